package protocol

import (
	"time"

	"github.com/go-json-experiment/json"
)

// MaxMessageSize is the largest client message the server reads, in bytes.
// The longest legitimate message is a join with the longest name (240
// bytes of UTF-8, which a client that escapes all but ASCII writes in up
// to 720), the lane's host key, its invitation and a bowler key (26
// each) and an id of 64 bytes (384 escaped): about 1,260 bytes. Anything larger is not a tenpin
// message; the server closes the connection (1009) rather than read it.
const MaxMessageSize = 2048

// MaxIDLength bounds the id a client may put on a message, so that echoing
// it back as "ref" costs little.
const MaxIDLength = 64

// Type names a message.
type Type string

// Client → server message types.
const (
	TypeJoin    Type = "join"
	TypeResume  Type = "resume"
	TypeStart   Type = "start"
	TypeRoll    Type = "roll"
	TypeLeave   Type = "leave"
	TypeRematch Type = "rematch"
	TypeCorrect Type = "correct"
	TypeSkip    Type = "skip"
	TypeRemove  Type = "remove"
	TypeReadmit Type = "readmit"
	TypeFree    Type = "free" // the host frees the seat of a player who left after bowling
	TypeGive    Type = "give" // the holder of the host key gives the lane away: it waits for its creator no longer
	// TypeNewInvite: the host issues a new invitation; the ack carries it
	// ("invite"), and the one before seats nobody from then on.
	TypeNewInvite Type = "new_invite"
)

// Server → client message types.
const (
	TypeWelcome Type = "welcome"
	TypeBoard   Type = "board"
	TypeAck     Type = "ack"
	TypeError   Type = "error"
)

// Request is a decoded client message. Only the fields of its Type are set.
type Request struct {
	Type  Type   `json:"type"`
	ID    string `json:"id,omitempty"`    // any message; echoed back as "ref"
	Name  string `json:"name,omitempty"`  // join, remove, readmit, free; roll, correct: whose ball it is, when not the sender's
	Token string `json:"token,omitempty"` // resume
	// HostKey, on a join, is the lane's host key from the answer to
	// POST /api/lanes: the joiner becomes the lane's host, whoever
	// joined before. On a give, it proves the sender is the creator.
	HostKey string `json:"host_key,omitempty"`
	// BowlerKey, on a join, links the seat to the bowler whose key it is
	// (the welcome of a join with Remember gave it): every finished game
	// of the seat goes into their history. Remember, on a join without a
	// key, makes a new bowler and the welcome carries their key.
	BowlerKey string `json:"bowler_key,omitempty"`
	Remember  bool   `json:"remember,omitempty"`
	// Invite, on a join, is the lane's invitation, from its link (the
	// "#invite=" of its fragment) or from POST /api/lanes: a lane seats
	// only a join that carries it, but for its host's (with the host
	// key) and a lane created "open". On a league lane it is a team's.
	Invite string `json:"invite,omitempty"`
	Pins   *int   `json:"pins,omitempty"`  // roll, correct: the pins the ball knocked down
	Frame  *int   `json:"frame,omitempty"` // roll, correct: the frame of the ball it is for, 1 to 10
	Ball   *int   `json:"ball,omitempty"`  // roll, correct: which ball of that frame, 1 to 3
	// Deck, on a roll or a correction, names the pins the ball left
	// standing (1 the head pin; 2–3; 4–6; 7–10), [] for none: the server
	// counts the pins from it. With "pins" too, the two must agree.
	Deck *[]int `json:"deck,omitempty"`
	// Foul, on a roll or a correction, says the bowler fouled: the ball
	// counts 0 and has no deck.
	Foul bool `json:"foul,omitempty"`
}

// MaxDeck bounds a request's "deck": ten pins, and no more numbers than
// that are read, right or wrong.
const MaxDeck = 10

// Decode parses one client message. It refuses, with an *[Error] whose
// Code says why, anything that is not exactly one JSON object of a known
// type with the fields that type needs: unknown or misspelt fields (names
// match exactly: "TYPE" is not "type"), a field given twice, fields of the
// wrong JSON type, pins, frame or ball that are not a whole number or are
// written -0, fields another type owns, invalid UTF-8, trailing data, and
// an id longer than [MaxIDLength]. Range checks that need the lane (pins
// standing, valid names) are the lane's. A refused message's Request
// carries its id when that could be read, so the refusal can answer to it.
func Decode(data []byte) (Request, error) {
	var r Request
	if len(data) > MaxMessageSize {
		return r, Errorf(CodeBadMessage, "message is %d bytes, the limit is %d", len(data), MaxMessageSize)
	}
	if err := json.Unmarshal(data, &r, strict); err != nil {
		// Keep the id when it can be read, so the client can match the refusal.
		return Request{ID: readID(data)}, Errorf(CodeBadMessage, "not a tenpin message: %s", describe(data, err))
	}
	if p := negativeZero(data); p != "" {
		return Request{ID: validID(r.ID)}, Errorf(CodeBadMessage, "not a tenpin message: %s is -0: zero is written 0", field(p))
	}
	if len(r.ID) > MaxIDLength {
		return Request{}, Errorf(CodeBadMessage, "id is %d characters, the limit is %d", len(r.ID), MaxIDLength)
	}
	id := Request{ID: r.ID}                              // what a refusal can still answer to
	var name, token, ball, optName, optKey, hostKey bool // the fields the type takes
	switch r.Type {
	case TypeJoin:
		name, optKey = true, true
	case TypeRemove, TypeReadmit, TypeFree:
		name = true
	case TypeGive:
		hostKey = true
	case TypeResume:
		token = true
	case TypeRoll, TypeCorrect:
		ball, optName = true, true
	case TypeStart, TypeLeave, TypeRematch, TypeSkip, TypeNewInvite:
	case "":
		return id, Errorf(CodeBadMessage, `message has no "type"`)
	default:
		return id, Errorf(CodeUnknownType, "unknown message type %q", r.Type)
	}
	if r.Type == TypeNewInvite && r.ID == "" {
		// Its ack alone carries the new invitation: without an id the
		// host would never learn it.
		return id, Errorf(CodeBadMessage, `new_invite message needs "id": its ack carries the invitation`)
	}
	if r.Type == TypeJoin && r.Name == "" {
		// A name left empty is a name refused, as the lane refuses others:
		// the form's mistake, not the client's.
		return id, Errorf(CodeInvalidName, "the name is empty: a name is 1 to 12 letters")
	}
	if ball && r.Pins == nil && r.Deck == nil && !r.Foul {
		return id, Errorf(CodeBadMessage, `%s message needs "pins", "deck" or "foul"`, r.Type)
	}
	for _, f := range []struct {
		field                   string
		takes, optional, exists bool
	}{
		{"name", name, optName, r.Name != ""},
		{"token", token, false, r.Token != ""},
		{"host_key", hostKey, optKey, r.HostKey != ""},
		{"bowler_key", false, optKey, r.BowlerKey != ""},
		{"remember", false, optKey, r.Remember},
		{"invite", false, optKey, r.Invite != ""},
		{"pins", false, ball, r.Pins != nil},
		{"deck", false, ball, r.Deck != nil},
		{"foul", false, ball, r.Foul},
		{"frame", ball, false, r.Frame != nil},
		{"ball", ball, false, r.Ball != nil},
	} {
		if f.takes && !f.exists {
			return id, Errorf(CodeBadMessage, "%s message needs %q", r.Type, f.field)
		}
		if !f.takes && !f.optional && f.exists {
			return id, Errorf(CodeBadMessage, "%s message takes no %q", r.Type, f.field)
		}
	}
	switch {
	case r.Deck != nil && len(*r.Deck) > MaxDeck:
		return id, Errorf(CodeInvalidPins, `"deck" names %d pins: a deck has at most %d`, len(*r.Deck), MaxDeck)
	case r.Frame != nil && (*r.Frame < 1 || *r.Frame > 10):
		return id, Errorf(CodeBadMessage, `"frame" is %d: a frame is 1 to 10`, *r.Frame)
	case r.Ball != nil && (*r.Ball < 1 || *r.Ball > 3):
		return id, Errorf(CodeBadMessage, `"ball" is %d: a ball of a frame is 1 to 3`, *r.Ball)
	}
	return r, nil
}

// Up says who is bowling: their seat, the frame and the ball in it (the
// two a roll must name), and how many pins stand.
type Up struct {
	Seat     int `json:"seat"`
	Frame    int `json:"frame"`
	Ball     int `json:"ball"`
	Standing int `json:"standing"`
	// Deck is the pins standing, when they are known: all ten on a fresh
	// rack, those the first ball left when it named them; omitted when
	// that ball was entered as a count.
	Deck []int `json:"deck,omitempty"`
	// SkipIn, while the player up is offline, is how many seconds are
	// left before another player may skip them: 0 once they may. A board
	// comes when it reaches 0.
	SkipIn *int `json:"skip_in,omitempty"`
}

// Frame is one bowled frame on a board.
type Frame struct {
	Marks     string `json:"marks"` // "X", "8|/", "8|1", "7", "X|7|/"
	Rolls     []int  `json:"rolls"`
	Score     *int   `json:"score"`               // cumulative; null while it can still change
	Corrected bool   `json:"corrected,omitempty"` // a roll of the frame was corrected after it was bowled
	// Split says the frame's first ball left a split: the head pin down
	// and a gap between or ahead of two or more standing pins (USBC).
	// Known only when that ball named its deck.
	Split bool `json:"split,omitempty"`
	// Decks holds, ball by ball, the pins each ball left standing, null
	// for a ball entered as a count or a foul; omitted when no ball of the
	// frame named its deck.
	Decks []*[]int `json:"decks,omitempty"`
	// Fouls lists the balls of the frame (1 to 3) that were fouls.
	Fouls []int `json:"fouls,omitempty"`
}

// Player is one seat on a board.
type Player struct {
	Name      string  `json:"name"`
	Connected bool    `json:"connected"`
	Left      bool    `json:"left,omitempty"`    // left or removed during the game; skipped from then on
	Away      bool    `json:"away,omitempty"`    // skipped while offline; bowls again once back
	Removed   bool    `json:"removed,omitempty"` // the host removed them (Left is set too): they may not join the lane again until the host readmits them
	Late      bool    `json:"late,omitempty"`    // joined after the first ball: bowls the frames they missed before the others go on
	Frames    []Frame `json:"frames"`            // the frames bowled so far, from frame 1
	Total     int     `json:"total"`             // the last cumulative score that can no longer change
	// Average is the player's average over every game they bowled, for a
	// seat linked to a bowler with a game in their history (see
	// BowlerKey); omitted otherwise.
	Average *int `json:"average,omitempty"`
	// Team and Handicap, on a league night's lane, are the player's team
	// and the handicap their games get tonight (omitted until the league
	// knows it: a first night's comes from that night's own average).
	Team     string `json:"team,omitempty"`
	Handicap *int   `json:"handicap,omitempty"`
}

// TeamScore is a team's line on a league night's lane: the game in
// play's scratch pins and its total with handicap, every place counted
// (an absent bowler's and an empty place's scores included), the points
// the team has won tonight, and its games' totals, as the league counted
// the games over.
type TeamScore struct {
	Name    string  `json:"name"`
	Scratch int     `json:"scratch"`
	Total   int     `json:"total"`
	Points  float64 `json:"points"`
	// Games are the team's totals with handicap of tonight's games the
	// league has counted, game by game from the first.
	Games []int `json:"games,omitempty"`
}

// Phase is where a lane's game stands.
type Phase string

// The phases of a lane's game.
const (
	PhaseWaiting  Phase = "waiting"  // players join; nobody has bowled
	PhasePlaying  Phase = "playing"  // started and not over
	PhaseFinished Phase = "finished" // over; players may ask for a rematch
)

// Board is the whole state of a lane as everyone sees it, sent after every
// change. Seq grows by one with every change of the lane.
type Board struct {
	Type  Type   `json:"type"` // "board"
	Lane  string `json:"lane"` // the lane's id
	Name  string `json:"name"` // the lane's name
	Seq   uint64 `json:"seq"`
	Phase Phase  `json:"phase"`
	Up    *Up    `json:"up"`             // null when nobody is up
	Host  string `json:"host,omitempty"` // the player who may start and rematch; none on an empty lane, or one that awaits its creator
	// CreatorAway says the lane waits for its creator, who holds its host
	// key: no game starts, and a seat is kept for them, until they join
	// with the key or give the lane away ("give").
	CreatorAway bool     `json:"creator_away,omitempty"`
	Players     []Player `json:"players"`
	Spectators  int      `json:"spectators"`
	// Series totals the lane's games so far, this one included, once the
	// lane has finished a game; omitted before.
	Series []SeriesPlayer `json:"series,omitempty"`
	// Removed lists the players the host removed and has not let back
	// (readmit), who may not join again: omitted when none.
	Removed []string `json:"removed,omitempty"`
	// Highs are the personal bests the game just finished brought, from
	// its end until the next game: a new high game or series of a
	// linked bowler. Omitted when none.
	Highs []High `json:"highs,omitempty"`
	// Stats are the night's numbers, each bowler's over the lane's series
	// and the game in play, as GET /api/lanes/{id}/stats answers its
	// players (see [Stats]): a page shows them without asking. Omitted
	// until a ball is bowled.
	Stats []PlayerStats `json:"stats,omitempty"`
	// Teams, on a league night's lane, are its two teams, home first:
	// omitted on a lane of friends.
	Teams []TeamScore `json:"teams,omitempty"`
	// ClosedAt is when a kept lane closed: set only on the board of a
	// lane that has closed, which GET /api/lanes/{id} answers read-only
	// for as long as the server keeps closed lanes; a lane's WebSocket
	// never sends it.
	ClosedAt *time.Time `json:"closed_at,omitempty"`
}

// SeriesPlayer is one player's line of a lane's series: the games they
// bowled in and the sum of their totals.
type SeriesPlayer struct {
	Name  string `json:"name"`
	Games int    `json:"games"`
	Total int    `json:"total"`
}

// High is a bowler's new personal best: a high game or a high series (3
// games in a row of one night), or both.
type High struct {
	Name   string `json:"name"`
	Game   int    `json:"game,omitempty"`   // the new high game
	Series int    `json:"series,omitempty"` // the new high series
}

// Welcome answers a join or a resume. The token is sent only here, only to
// the connection that holds the seat.
type Welcome struct {
	Type  Type   `json:"type"` // "welcome"
	Ref   string `json:"ref,omitempty"`
	Seat  int    `json:"seat"`
	Name  string `json:"name"`
	Token string `json:"token"`
	// BowlerKey is the key of the bowler a join with "remember" made:
	// keep it on the device, never in a URL; it is sent only here.
	BowlerKey string `json:"bowler_key,omitempty"`
	// Guest, on a join with "remember" or a bowler's key that the server
	// seated as a guest, says why its games are not remembered: an error
	// ({"type":"error","code":"storage_full",…}) that refused the bowler,
	// not the seat.
	Guest *Error `json:"guest,omitempty"`
}

// Ack confirms an accepted command that carried an id. Seq is that of the
// first board that includes the command's effect.
type Ack struct {
	Type Type   `json:"type"` // "ack"
	Ref  string `json:"ref"`
	Seq  uint64 `json:"seq"`
	// Invite, of a new_invite, is the lane's new invitation: sent only
	// here, only to the host.
	Invite string `json:"invite,omitempty"`
}

// LaneSummary is a lane as the lobby lists it.
type LaneSummary struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Phase      Phase    `json:"phase"`
	Players    []string `json:"players"`
	Spectators int      `json:"spectators"`
	Frame      int      `json:"frame"` // the frame in play; 0 before the game starts
}

// Games is a lane's series: GET /api/lanes/{id}/games.
type Games struct {
	Games []Game `json:"games"`
}

// Game is one game of a lane's series.
type Game struct {
	Game        int          `json:"game"`     // 1 for the lane's first
	Finished    bool         `json:"finished"` // false for the game in play
	Players     []GamePlayer `json:"players"`
	Corrections []Correction `json:"corrections,omitempty"` // oldest first
}

// Correction is a roll changed after it was bowled: whose, which ball,
// what it was and what it became, who changed it, and when.
type Correction struct {
	Name  string    `json:"name"`
	Frame int       `json:"frame"`
	Ball  int       `json:"ball"`
	Was   int       `json:"was"`
	Pins  int       `json:"pins"`
	By    string    `json:"by"`
	At    time.Time `json:"at"`
}

// GamePlayer is one player's game in a series: frames as on the board,
// the total, and how many frames were strikes, spares and open (a tenth
// frame counts by its first two balls).
type GamePlayer struct {
	Name    string  `json:"name"`
	Frames  []Frame `json:"frames"`
	Total   int     `json:"total"`
	Strikes int     `json:"strikes"`
	Spares  int     `json:"spares"`
	Opens   int     `json:"opens"`
	Left    bool    `json:"left,omitempty"`
	// Stats are the game's numbers, as [Stats] defines them for a series.
	Stats PlayerStats `json:"stats"`
}

// Stats is GET /api/lanes/{id}/stats: each bowler's numbers over the
// lane's series, the game in play included, in the order they first
// bowled.
//
// A rack is set fresh for a frame's first ball, and again in the tenth
// after a strike or a spare there. Games, Pins, Average, High and
// CleanGames count finished games only (a game in play is not yet a
// game); the other figures count every ball bowled:
//   - strike_chances: first balls of a fresh rack (12 in a perfect game);
//     strikes: those that took all ten;
//   - first_ball_avg: the mean count of those balls, a foul counting 0;
//     null before the first;
//   - spare_chances: racks not struck on their first ball, once the second
//     is bowled; spares: those the second ball cleared (a foul then ten is
//     a spare);
//   - opens: finished frames whose first rack was neither struck nor
//     spared (the tenth counts by its first two balls);
//   - splits, single_pins: first balls that left a split or one pin, counted
//     only when the ball named its deck; splits_made, single_pins_made:
//     those the next ball cleared;
//   - fouls: balls marked F;
//   - clean_games: finished games without an open frame;
//   - average: pins over games, null before a game is finished.
type Stats struct {
	Players []PlayerStats `json:"players"`
}

// PlayerStats is one bowler's line of [Stats].
type PlayerStats struct {
	Name           string   `json:"name"`
	Games          int      `json:"games"`
	Pins           int      `json:"pins"`
	Average        *float64 `json:"average"`
	High           int      `json:"high"`
	Strikes        int      `json:"strikes"`
	StrikeChances  int      `json:"strike_chances"`
	Spares         int      `json:"spares"`
	SpareChances   int      `json:"spare_chances"`
	Opens          int      `json:"opens"`
	FirstBallAvg   *float64 `json:"first_ball_avg"`
	Splits         int      `json:"splits"`
	SplitsMade     int      `json:"splits_made"`
	SinglePins     int      `json:"single_pins"`
	SinglePinsMade int      `json:"single_pins_made"`
	Fouls          int      `json:"fouls"`
	CleanGames     int      `json:"clean_games"`
}

// Lanes is the lobby's list, GET /api/lanes, a page at a time: the open
// lanes oldest first, from the one after the lane whose id the request's
// "after" names.
type Lanes struct {
	Lanes []LaneSummary `json:"lanes"`
	// Next is the "after" of the next page; omitted on the last.
	Next string `json:"next,omitempty"`
	// Total is how many lanes are open, on every page.
	Total int `json:"total"`
}

// Invite is GET /api/lanes/{id}/invite: the lane's link at an address a
// phone on the same network can open, even when the browser asking is on
// localhost; every such link; and the path of a QR code of the first.
type Invite struct {
	URL  string   `json:"url"`
	URLs []string `json:"urls"`
	QR   string   `json:"qr"`
}

// Nodes is the answer of GET /api/nodes: the nodes of the server's
// cluster that are alive, the server's own first. A lone server is a
// cluster of one node with no name. A page keeps the list, and tries
// another node when its own stops answering.
type Nodes struct {
	Nodes []Node `json:"nodes"`
}

// Node is one node of a cluster: its name (-node) and the addresses at
// which clients open it, best first.
type Node struct {
	Name string   `json:"name"`
	URLs []string `json:"urls"`
}

// CreateLane is the body of POST /api/lanes.
type CreateLane struct {
	Name    string `json:"name"`
	Private bool   `json:"private,omitempty"` // unlisted: the lobby never lists it, only its link leads to it
	// GiveAway makes a lane for others (a TV's, a league's, a load
	// test's): it has no host key and waits for nobody, and its first
	// player seated hosts it. Without it the lane waits for its creator:
	// see [CreatedLane].
	GiveAway bool `json:"give_away,omitempty"`
	// Open makes a lane anyone may join, with no invitation: a demo's,
	// a load test's. Without it a join needs the lane's invitation (see
	// [CreatedLane]).
	Open bool `json:"open,omitempty"`
}

// CreatedLane answers POST /api/lanes: the lane, and its host key. The
// creator's page joins with the key ("host_key" on its join) and is the
// lane's host, whoever joined first. Until then the lane waits for its
// creator (the board's "creator_away"): no game starts and a seat is kept
// for them, so a crawler that joins every new lane of the list cannot
// take one over. A creator who will not bowl gives the lane away ("give"
// with the key, or "give_away" when creating it: then there is no key).
// The key is in the body only, never in a URL a server or proxy would
// log; keep it as a seat's token is kept.
//
// Invite is the lane's invitation (omitted for a lane created "open"): a
// join must carry it. The creator's page puts it in the fragment of the
// link and the QR code it shares (/lanes/{id}#invite=…), which no server
// log or Referer sees; whoever has the link without it may watch, not
// sit. The host replaces it with "new_invite".
type CreatedLane struct {
	LaneSummary
	HostKey string `json:"host_key,omitempty"`
	Invite  string `json:"invite,omitempty"`
}

// InviteHeader is the request header by which GET
// /api/lanes/{id}/qr.png is given the invitation its QR code carries in
// the link's fragment: a header, so that no URL a server or proxy logs
// holds it.
const InviteHeader = "Tenpin-Invite"

// ValidInvite reports whether s has an invitation's shape: 26 letters of
// base32 (A–Z, 2–7), 130 bits, as the server draws them.
func ValidInvite(s string) bool {
	if len(s) != 26 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < 'A' || c > 'Z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

// validID returns id if it may be echoed back, else "".
func validID(id string) string {
	if len(id) > MaxIDLength {
		return ""
	}
	return id
}
