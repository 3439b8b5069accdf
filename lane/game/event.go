package game

import (
	"crypto/sha256"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
)

// Kind names what happened on a lane. Kinds are stored: never rename one.
type Kind string

// The kinds of event.
const (
	Opened      Kind = "opened"       // the lane was created: Lane, Name, MaxPlayers, Private
	Claimed     Kind = "claimed"      // a server took the lane up: Epoch, Node
	SeatTaken   Kind = "seat_taken"   // Player took a seat, resumable with Token
	GameStarted Kind = "game_started" // the game started
	Rolled      Kind = "rolled"       // Player knocked down Pins with ball Ball of frame Frame, leaving Deck standing or fouling
	PlayerLeft  Kind = "player_left"  // Player gave up their seat, or By (the host) removed them
	Corrected   Kind = "corrected"    // By changed Player's ball Ball of frame Frame from Was to Pins (Deck, Foul), At a time
	PlayerAway  Kind = "away"         // By skipped Player, up and absent: the turn passes them by
	PlayerBack  Kind = "back"         // Player, away, came back: they bowl again as their turns come
	Readmitted  Kind = "readmitted"   // By (the host) let Player, whom the host had removed, join the lane again
	SeatFreed   Kind = "seat_freed"   // By (the host) freed the seat Player left after bowling: their frames of the game go
	Given       Kind = "given"        // the holder of the host key gave the lane away: it waits for its creator no longer
	Invited     Kind = "invited"      // By (the host) issued a new invitation, Invite: the one before seats nobody now
	SeatClaimed Kind = "seat_claimed" // on a league lane, Player's place is taken (resumable with Token, linked to Bowler), or given back (Token zero)
	NextGame    Kind = "next_game"    // the game is over and joins the series; the players still seated wait for the next
	Closed      Kind = "closed"       // the lane closed, for Reason

	// NewGame is written by version 1 servers only: the game joins the
	// series and the next one starts at once, with the players still
	// seated. Decisions now write [NextGame], which lets players join
	// between games.
	NewGame  Kind = "new_game"
	Snapshot Kind = "snapshot" // the whole lane, replacing the events before it
)

// Event is one change of a lane. Only the fields of its Kind are set.
type Event struct {
	Kind Kind

	Lane       string // Opened: the lane's id
	Name       string // Opened: the lane's name
	MaxPlayers int    // Opened: the seats the lane has
	Private    bool   // Opened: the lobby does not list the lane; its link is the invitation
	// HostKey, Opened: the SHA-256 of the key that makes its holder the
	// lane's host (its creator's page has it); zero for none.
	HostKey TokenHash
	// Invite, Opened and Invited: the SHA-256 of the invitation a join
	// must carry ([HashToken]); zero for an open lane, which anyone may
	// join.
	Invite TokenHash
	// League, Opened: the league night's match the lane is for; nil for a
	// lane of friends.
	League *LeagueLane

	Player bowling.Name // SeatTaken, Rolled, PlayerLeft, Corrected, PlayerAway, PlayerBack, Readmitted, SeatFreed
	Token  TokenHash    // SeatTaken, SeatClaimed: the SHA-256 of the seat's resume token
	Host   bool         // SeatTaken: taken with the lane's host key: this player is the host
	// Bowler, SeatTaken, SeatClaimed: the id of the bowler (lane/bowler) the seat is
	// linked to, whose history its finished games go into; "" for a guest.
	Bowler string
	// NewBowler, SeatTaken, SeatClaimed: for a seat whose join asked to
	// be remembered, the SHA-256 of the new bowler's key. Bowler is then
	// the id drawn for them, and the bowler is made with that key at the
	// seat's first ball (a join costs the store no bowler); zero
	// otherwise.
	NewBowler TokenHash

	Frame   int          // Rolled, Corrected: 1 to 10
	Ball    int          // Rolled, Corrected: 1 to 3, within the frame
	Pins    int          // Rolled; Corrected: the new value
	Deck    bowling.Deck // Rolled, Corrected: the pins standing after the ball, if HasDeck
	HasDeck bool         // Rolled, Corrected: the ball named its deck
	Foul    bool         // Rolled, Corrected: the ball was a foul (Pins 0)
	By      bowling.Name // Rolled, Corrected, PlayerLeft: who did it, when not Player; PlayerAway: who skipped; Readmitted, SeatFreed: the host
	// Secretary, Rolled, Corrected, PlayerAway, SeatClaimed (a place
	// given back): the league's secretary did it, from the league's page
	// (By is then empty).
	Secretary bool
	Was       int       // Corrected: the pins before
	At        time.Time // Corrected: when, to the second, in UTC

	Epoch uint64 // Claimed: one more than the lane's epoch before
	Node  string // Claimed: which server, for its logs

	Reason string // Closed

	Snapshot *LaneSnapshot // Snapshot: the whole lane
}

// bowled returns the ball a Rolled or Corrected event records.
func (e Event) bowled() bowling.Ball {
	return bowling.Ball{Pins: e.Pins, Deck: e.Deck, HasDeck: e.HasDeck, Foul: e.Foul}
}

// TokenHash is the SHA-256 of a seat's resume token. The journal keeps
// only this: reading the log does not let anyone take a seat.
type TokenHash [sha256.Size]byte

// HashToken returns the SHA-256 of a resume token, or of a host key: all
// a lane keeps of either, and all that a relay sends the lane's node.
func HashToken(token string) TokenHash { return sha256.Sum256([]byte(token)) }

// LeagueLane makes a lane a league night's match: the league, the week
// and the match's place in it, the night's games, the two teams (home
// first) and the places that bowl, in the order they bowl: the home
// team's, then the away team's, each in roster order (absent bowlers and
// empty places bowl nothing, and have no seat). The lane opens with every
// place seated and the first game started: a bowler claims their place by
// joining under its name ([SeatClaimed]), anyone seated enters the ball
// of a place nobody holds, and each next game starts by itself until the
// night's games are bowled.
type LeagueLane struct {
	League      string
	Week, Match int
	Games       int // the night's games, from 1
	Teams       [2]string
	Places      []LeaguePlace
	// Invites are the SHA-256 of each team's invitation (home first): a
	// join under a place's name must carry its team's. Zero for a team
	// whose places anyone may claim (a lane of a version before them).
	Invites [2]TokenHash
}

// LeaguePlace is a seat of a league lane: who bowls it, and for which
// team (0 home, 1 away).
type LeaguePlace struct {
	Name bowling.Name
	Team int
}

// LaneSnapshot is a whole lane, as a [Snapshot] event holds it.
type LaneSnapshot struct {
	ID         string
	Name       string
	MaxPlayers int
	Private    bool
	Epoch      uint64
	Series     []Result       // the earlier games of the series, oldest first, at most MaxSeries
	Game       []Event        // the events of the game in play: seats taken, game started, rolls, players left
	Removed    []bowling.Name // the players the host removed, who may not join again until readmitted
	HostKey    TokenHash      // the lane's host key's SHA-256; zero for none
	HostSeat   TokenHash      // the token hash of the seat taken with the host key; zero for none
	Invite     TokenHash      // the SHA-256 of the invitation a join must carry; zero for an open lane
	// Played is how many games the lane has finished, those the series
	// no longer keeps included; 0 in a snapshot of a version before it,
	// which counted only len(Series).
	Played int
	League *LeagueLane // the league match the lane is for; nil for none
}

// Result is a finished game of a lane's series.
type Result struct {
	Players     []Score
	Corrections []Event // the game's Corrected events, oldest first
}

// Score is one player's game in a [Result]: every ball as it was
// recorded, decks and fouls included.
type Score struct {
	Name bowling.Name
	Game bowling.Game
	Left bool // left during the game
}

// Total returns the player's score for the game.
func (s Score) Total() int { return s.Game.Total() }
