package api

import (
	"context"
	"net/http"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/ws"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// Services are what the API serves: the services it calls, each the
// small interface of the calls it makes of it, and the settings it
// reads. lobby/server builds them from a lobby (server.API), the one
// place they are wired.
type Services struct {
	Lanes     Lanes
	Admission Admission
	Leagues   Leagues
	// Bowlers keeps the bowlers who asked to be remembered; nil: the
	// server keeps none, and their routes answer so.
	Bowlers bowler.Service

	// URLs are the addresses at which friends can open the server, best
	// first: an invitation links there. None: the address a request came
	// to.
	URLs []string
	// OriginPatterns are the other origins whose pages may open
	// WebSockets; same-origin always may.
	OriginPatterns []string
	// IdleTimeout is how long a lane with nobody connected stays open: a
	// client refused for the lanes it holds open is told to retry after
	// it, the soonest one of them can close.
	IdleTimeout time.Duration
}

// Lanes keeps the lanes (a [*lobby.Lobby]): it creates them, lists and
// finds them wherever in the cluster they run, admits the WebSockets to
// them, and says whether the store behind them takes writes. Its errors
// carry what a client is told (see lane.ErrorFor).
type Lanes interface {
	// CreateFor creates the lane body asks for, for the client address
	// addr (see lobby.Lobby.CreateFor).
	CreateFor(ctx context.Context, body protocol.CreateLane, addr string) (protocol.CreatedLane, error)
	// Find returns lane id, here, on another node, or kept after it
	// closed; an error wrapping lobby.ErrNoLane if there is none.
	Find(ctx context.Context, id string) (lobby.Lane, error)
	// Admit decides whether addr may open a WebSocket to lane id, and
	// returns where to attach it and how to count it out (see
	// lobby.Lobby.Admit).
	Admit(ctx context.Context, id, addr string) (to lane.Endpoint, release func(), err error)
	// Listed returns the lanes listed, in the list's order; ListVersion
	// changes whenever a lane opens or closes, and Position is the place
	// in that order of lane id, open or closed lately.
	Listed() []lobby.Listed
	ListVersion() uint64
	Position(id string) (uint64, bool)
	// Nodes returns the nodes of the cluster, as GET /api/nodes shows
	// them.
	Nodes() []protocol.Node
	// Health is what /healthz reports: whether the store takes writes,
	// and if so the kinds of data whose budget is full.
	Health(ctx context.Context) (full []string, err error)
}

// Admission is the server's door (a [*lobby.Admission]): which client
// address a request counts against, what that address may create and
// guess at what rate, the limits of its WebSockets, and the refusals
// counted.
type Admission interface {
	ClientAddr(r *http.Request) string
	AllowCreation(addr string, now time.Time) (bool, time.Duration)
	LanesPerAddr() int
	AllowLeagueCreation(addr string, now time.Time) (bool, time.Duration)
	RefundLeagueCreation(addr string)
	AllowGuess(addr string, now time.Time) (bool, time.Duration)
	RefundGuess(addr string)
	Socket(addr string) ws.Config
	CountRefusal(code protocol.Code, limit string)
}

// Leagues runs the leagues on the lanes (a [*lobby.Leagues]): their
// creation and records, the weeks their secretaries open and close, the
// scores and corrections of their nights, the secretaries' commands on a
// night's lanes, and their standings, histories and recaps. A key is a
// league's secretary key.
type Leagues interface {
	CreateLeague(ctx context.Context, body protocol.CreateLeague) (protocol.CreatedLeague, error)
	League(ctx context.Context, id string) (protocol.League, error)
	CheckSecretary(ctx context.Context, id, key string) error

	OpenWeek(ctx context.Context, id, key string, week int, body protocol.OpenWeek) (protocol.OpenedWeek, error)
	WeekInvites(ctx context.Context, id, key string, week int) (protocol.OpenedWeek, error)
	CloseWeek(ctx context.Context, id, key string, week int) (protocol.LeagueRecord, error)
	ScoreGame(ctx context.Context, id, key string, body protocol.LeagueScore) (rec protocol.LeagueRecord, changed bool, err error)
	CorrectBall(ctx context.Context, id, key string, body protocol.LeagueBall) (protocol.LeagueRecord, error)

	SecretaryRoll(ctx context.Context, id, key string, week, match int, b protocol.LeagueLaneBall) ([]byte, error)
	SecretaryCorrect(ctx context.Context, id, key string, week, match int, b protocol.LeagueLaneBall) ([]byte, error)
	SecretarySkip(ctx context.Context, id, key string, week, match int) ([]byte, error)
	SecretaryRemove(ctx context.Context, id, key string, week, match int, p protocol.LeaguePlace) ([]byte, error)

	Standings(ctx context.Context, id string) (protocol.LeagueStandings, error)
	LeagueHistory(ctx context.Context, id, after string, limit int) (protocol.LeagueHistory, error)
	Recap(ctx context.Context, id, lang string) (lobby.LeagueRecap, error)
}
