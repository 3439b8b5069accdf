package lane

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/game"
)

// Config holds a lane's settings. The zero value gives the defaults.
type Config struct {
	MaxPlayers     int           // seats; default MaxPlayers
	MaxSpectators  int           // watchers; default MaxSpectators
	ResumeGrace    time.Duration // to resume a seat when watchers are full; default ResumeGrace
	IdleTimeout    time.Duration // nobody connected, no game in play; default IdleTimeout
	AbandonTimeout time.Duration // nobody connected, game in play; default AbandonTimeout
	AwayAfter      time.Duration // offline before the player up may be skipped; default AwayAfter
	Logger         *slog.Logger  // default: discard
	Metrics        *Metrics      // may be nil

	// Journal stores every event before the lane applies it; lanes made
	// with [Open] and [Restore] need one, those made with [New] keep
	// nothing. AppendTimeout bounds one append (default AppendTimeout).
	Journal       game.Journal
	AppendTimeout time.Duration
	// Durable says the journal outlives the process: on shutdown clients
	// are told the server is restarting (and will find their lane again),
	// not that the lane closed.
	Durable bool
	// Node names this server in the claims it writes, for the logs.
	Node string

	// Private opens the lane unlisted ([Open], [New]): the lobby does not
	// list it, and only its link leads to it.
	Private bool
	// HostKey, the SHA-256 of a key, opens the lane ([Open], [New]) with a
	// host key: whoever joins with the key is the lane's host, however
	// many joined before (see [game.State.JoinHost]). Zero: none.
	HostKey game.TokenHash
	// Invite, the SHA-256 of an invitation, opens the lane ([Open],
	// [New]) seating only a join that carries it (see
	// [game.State.Join]); zero opens it to anyone.
	Invite game.TokenHash
	// League opens the lane ([Open], [New]) as a league night's match:
	// its places seated, its first game under way (see
	// [game.LeagueLane]); Open refuses one that fails its Check.
	// LeagueNight, if set, is its league: the lane gives it each game's
	// scores and shows the handicaps, team totals and points it counts,
	// and stays open, idle or not, while it says the week is open.
	League      *game.LeagueLane
	LeagueNight LeagueNight

	// Bowlers, if set, keeps the bowlers seats may be linked to (a join
	// with a bowler's key, or asking to be remembered): each finished
	// game of a linked seat goes into the bowler's history. Without it
	// every player is a guest, and a join with a key is refused
	// unknown_bowler.
	Bowlers bowler.Service

	// Keep, if set, keeps the night of a lane that closes for good (idle,
	// or abandoned with a game in play) once a ball was bowled on it: what
	// the lane shows (its board, series and numbers) outlives its log.
	// It is called on the lane goroutine before the lane records that it
	// closed; if it fails, the lane stays open and tries again after its
	// idle timeout, so that no night is thrown away for a store that
	// failed a moment. An error wrapping game.ErrStorageFull (the kept
	// nights' budget is full) closes the lane unkept, saying why: room
	// may never come, and the lane would hold its place till then.
	Keep func(ctx context.Context, l *Lane) error

	// Wakes, if set, counts the times this server was found paused (its
	// process stopped, its machine frozen: see lobby/natspeers). When
	// the count changes, the lane reads its log back before its next
	// decision: another server may have taken it over meanwhile, and a
	// decision on what the lane was would be wrong even where the fence
	// keeps it from being stored.
	Wakes func() uint64
}

func (c Config) withDefaults() Config {
	if c.MaxPlayers <= 0 {
		c.MaxPlayers = MaxPlayers
	}
	if c.MaxSpectators <= 0 {
		c.MaxSpectators = MaxSpectators
	}
	if c.ResumeGrace <= 0 {
		c.ResumeGrace = ResumeGrace
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = IdleTimeout
	}
	if c.AbandonTimeout <= 0 {
		c.AbandonTimeout = AbandonTimeout
	}
	if c.AwayAfter <= 0 {
		c.AwayAfter = AwayAfter
	}
	if c.AppendTimeout <= 0 {
		c.AppendTimeout = AppendTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Metrics == nil {
		c.Metrics = new(Metrics)
	}
	return c
}

// Metrics counts what lanes do, for the server's /debug/vars. Its fields are
// updated atomically and may be read at any time.
type Metrics struct {
	Connections   atomic.Int64 // connections of this server attached now, to a lane or a relay
	BoardsSent    atomic.Int64 // boards given to a lane's clients, wherever they are served
	BoardsSkipped atomic.Int64 // boards dropped for clients that fell behind
	Refused       atomic.Int64 // client messages refused with an error
	Changes       atomic.Int64 // accepted changes of any lane
	Appends       atomic.Int64 // events stored in the journal
	AppendErrors  atomic.Int64 // appends that failed or timed out
}
