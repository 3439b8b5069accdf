package game

import (
	"crypto/subtle"
	"slices"

	"github.com/tenpin/tenpin/lane/bowling"
)

// Limits of the log.
const (
	// MaxSeries is how many finished games a lane keeps in its history.
	// A snapshot carries them all: see MaxEventSize.
	MaxSeries = 100

	// MaxCorrections is how many corrections a game takes: a game keeps
	// every one for its history.
	MaxCorrections = 100

	// MaxGameEvents bounds the events of the game in play, which a
	// snapshot carries: every ball of eight players with every correction
	// is under 300, and the rest is players leaving and coming back, or
	// being skipped and coming back. Past it, a player who left may not
	// take their seat again, and a player up may not be skipped, until the
	// next game (a player skipped before still comes back: each came back
	// once at most for each skip).
	MaxGameEvents = 600

	// MaxRemoved is how many removed players a lane remembers: past it,
	// the first removed may join again.
	MaxRemoved = 64

	// MaxEventSize bounds an event as [Marshal] writes it. A snapshot of
	// a lane at every limit above, with names as long as they may be and
	// every ball with its deck or a foul, stays below it (a test builds
	// one); a journal must take messages this large (NATS takes 1 MiB by
	// default: the embedded server is configured for this).
	MaxEventSize = 7 << 20

	// DefaultMaxPlayers is the seats of a lane opened without saying.
	DefaultMaxPlayers = 8
)

// State is a lane: its id, name and settings, who is seated (and the hash
// of each seat's token), the game in play and the finished games of the
// series. It changes only by [State.Apply]. The zero value is a lane not
// yet opened; [Replay] a log to rebuild one.
type State struct {
	lane, name string
	maxPlayers int
	private    bool
	epoch      uint64
	closed     bool

	match     bowling.Match
	started   bool
	seats     []seat         // tokens of the players seated now, in seat order
	game      []played       // the events of the game in play, for a snapshot
	corrected []Event        // the game's Corrected events, for the board
	series    []Result       // finished games, oldest first
	played    int            // games finished, those series no longer keeps included
	totals    []Total        // the series' totals, kept as games finish
	removed   []bowling.Name // players the host removed: they may not join again until readmitted
	hostKey   TokenHash      // the SHA-256 of the lane's host key; zero for none
	hostSeat  TokenHash      // the token hash of the seat taken with the host key: its holder hosts while seated
	invite    TokenHash      // the SHA-256 of the invitation a join must carry; zero: anyone may join
	league    *LeagueLane    // the league match the lane is for; nil for none
}

// Total is one player's line of a series: the games they bowled in (at
// least a ball) and the sum of their totals.
type Total struct {
	Name  bowling.Name
	Games int
	Pins  int
}

// addTotals returns totals with the game of r added, as a new slice.
func addTotals(totals []Total, r Result) []Total {
	out := slices.Clone(totals)
	for _, p := range r.Players {
		if p.Game.NumRolls() == 0 {
			continue
		}
		// The exact name first: Same of two names that differ folds and
		// skeletons both, which on every game's end of a lane of eight
		// was most of what a night's balls allocated. No two totals are
		// Same, so the exact one is the only Same one.
		i := slices.IndexFunc(out, func(t Total) bool { return t.Name == p.Name })
		if i < 0 {
			i = slices.IndexFunc(out, func(t Total) bool { return t.Name.Same(p.Name) })
		}
		if i < 0 {
			i = len(out)
			out = append(out, Total{Name: p.Name})
		}
		out[i].Games++
		out[i].Pins += p.Game.Total()
	}
	return out
}

type seat struct {
	name   bowling.Name
	token  TokenHash
	bowler string // the bowler the seat is linked to; "" for a guest
	// newBowler, for a seat whose join asked to be remembered, is the
	// hash of the key the bowler is made with at its first ball.
	newBowler TokenHash
}

// Replay returns the state that a log of events builds.
func Replay(events []Event) *State {
	s := new(State)
	for _, e := range events {
		s.Apply(e)
	}
	return s
}

// Apply applies one event. It cannot fail: an event that no longer fits
// the state (it could only come from a log written under other rules) is
// applied as far as it can be, and never panics.
func (s *State) Apply(e Event) {
	switch e.Kind {
	case Opened:
		*s = State{lane: e.Lane, name: e.Name, maxPlayers: e.MaxPlayers, private: e.Private, hostKey: e.HostKey, invite: e.Invite}
		if e.League != nil {
			s.openLeague(e.League)
		}
	case SeatClaimed:
		i := slices.IndexFunc(s.seats, func(st seat) bool { return st.name.Same(e.Player) })
		if s.league == nil || i < 0 {
			return
		}
		s.seats[i].token, s.seats[i].bowler, s.seats[i].newBowler = e.Token, e.Bowler, e.NewBowler
		s.game = append(s.game, keep(e))
	case Claimed:
		s.epoch = max(s.epoch, e.Epoch)
	case SeatTaken:
		n, err := bowling.ParseLaneName(string(e.Player))
		if err != nil || s.match.AddLate(n) != nil { // AddName before the first ball
			return
		}
		s.seats = append(s.seats, seat{e.Player, e.Token, e.Bowler, e.NewBowler})
		s.game = append(s.game, keep(e))
		if e.Host {
			s.hostSeat = e.Token
		}
	case GameStarted:
		if !s.started {
			s.started = true
			s.game = append(s.game, keep(e))
		}
	case Rolled:
		if s.started && s.match.RollBallAs(e.Player, e.bowled()) == nil {
			s.game = append(s.game, keep(e))
		}
	case PlayerLeft:
		s.leave(e)
		if e.By != "" && !e.By.Same(e.Player) && !s.Removed(e.Player) {
			s.removed = append(slices.Clip(s.removed), e.Player) // a new array: a snapshot's slice stays as it was
			if n := len(s.removed) - MaxRemoved; n > 0 {
				s.removed = s.removed[n:]
			}
		}
	case Readmitted:
		s.removed = slices.DeleteFunc(slices.Clone(s.removed), func(n bowling.Name) bool { return n.Same(e.Player) })
	case SeatFreed:
		if s.match.Free(e.Player) != nil {
			return
		}
		if s.match.Len() == 0 {
			s.started = false // every seat freed: wait for players again
			s.game = s.game[:0]
			return
		}
		s.game = append(s.game, keep(e)) // the rolls before it stay: a snapshot replays them, then this
	case Given:
		s.hostKey, s.hostSeat = TokenHash{}, TokenHash{}
	case Invited:
		s.invite = e.Invite
	case Corrected:
		if s.started {
			if correctMatch(&s.match, e.Player, e.Frame, e.Ball, e.bowled()) == nil {
				s.game = append(s.game, keep(e))
				s.corrected = append(s.corrected, e)
			}
		}
	case PlayerAway, PlayerBack:
		if s.started && s.match.SetAway(e.Player, e.Kind == PlayerAway) == nil {
			s.game = append(s.game, keep(e))
		}
	case NewGame:
		s.nextGame(true)
	case NextGame:
		if s.Phase() == Finished {
			s.nextGame(false)
		}
	case Closed:
		s.closed = true
	case Snapshot:
		if e.Snapshot != nil {
			s.restore(e.Snapshot)
		}
	}
}

func (s *State) leave(e Event) {
	p, _ := s.match.Player(e.Player)
	bowled := p.Game.NumRolls() > 0
	if s.match.Remove(e.Player) != nil {
		return
	}
	s.seats = slices.DeleteFunc(s.seats, func(st seat) bool { return st.name.Same(e.Player) })
	if bowled {
		s.game = append(s.game, keep(e)) // the frames stay, the turn skips them
		return
	}
	// A player who bowled no ball gives the seat up: the game's log
	// forgets it, so that joining and leaving does not grow a snapshot
	// (nor keep a seat from the next arrival), and so the player being
	// skipped or back, which a snapshot could not replay without their
	// seat.
	s.game = slices.DeleteFunc(s.game, func(p played) bool {
		switch g := p.event(); g.Kind {
		case SeatTaken, PlayerAway, PlayerBack:
			return g.Player.Same(e.Player)
		}
		return false
	})
	if s.match.Len() == 0 {
		s.started = false // everyone gave up their seat before a ball: wait for players again
		s.game = s.game[:0]
	}
}

// openLeague seats a league match's places and starts its first game.
// The seats are events of the game in play, as if taken one by one, so
// that a snapshot replays them.
func (s *State) openLeague(ll *LeagueLane) {
	cp := *ll
	cp.Places = slices.Clone(ll.Places)
	s.league = &cp
	s.maxPlayers = max(s.maxPlayers, len(cp.Places))
	for _, p := range cp.Places {
		s.Apply(Event{Kind: SeatTaken, Player: p.Name})
	}
	s.Apply(Event{Kind: GameStarted})
}

// nextGame puts the game in play into the series and seats the players
// still seated for the next one, which starts at once if start (as
// version 1 did) or waits for the host otherwise.
func (s *State) nextGame(start bool) {
	r := s.result()
	s.series = append(s.series, r)
	s.played = max(s.played, len(s.series)-1) + 1
	s.totals = addTotals(s.totals, r)
	if n := len(s.series) - MaxSeries; n > 0 {
		s.series = slices.Clone(s.series[n:]) // a new array: Series' slices of the old one stay as they were
		s.totals = nil
		for _, r := range s.series {
			s.totals = addTotals(s.totals, r)
		}
	}
	var next bowling.Match
	game := []played{}
	for _, st := range s.seats {
		if err := next.AddName(st.name); err == nil {
			game = append(game, keep(Event{Kind: SeatTaken, Player: st.name, Token: st.token, Bowler: st.bowler, NewBowler: st.newBowler}))
		}
	}
	s.match = next
	s.started = start && next.Len() > 0
	if s.started {
		game = append(game, keep(Event{Kind: GameStarted}))
	}
	s.game = game
	s.corrected = nil
}

// result returns the game in play as a finished game of the series.
func (s *State) result() Result {
	players := s.match.Players()
	r := Result{Players: make([]Score, len(players)), Corrections: s.corrected}
	for i, p := range players {
		r.Players[i] = Score{Name: p.Name, Game: p.Game, Left: p.Left}
	}
	return r
}

func (s *State) restore(l *LaneSnapshot) {
	*s = State{lane: l.ID, name: l.Name, maxPlayers: l.MaxPlayers, private: l.Private, epoch: l.Epoch, series: slices.Clone(l.Series),
		removed: slices.Clone(l.Removed), hostKey: l.HostKey, hostSeat: l.HostSeat, invite: l.Invite, played: max(l.Played, len(l.Series)), league: l.League}
	for _, r := range s.series {
		s.totals = addTotals(s.totals, r)
	}
	for _, e := range l.Game {
		switch e.Kind {
		case SeatTaken, GameStarted, Rolled, PlayerLeft, Corrected, PlayerAway, PlayerBack, SeatFreed, SeatClaimed:
			s.Apply(e)
		}
	}
}

// Bowler returns the id of the bowler the seat of name is linked to (or
// was, for a player who left the game in play), and false for a guest or
// a player not on the lane.
func (s *State) Bowler(name bowling.Name) (string, bool) {
	st, ok := s.seatOf(name)
	return st.bowler, ok && st.bowler != ""
}

// NewBowler returns, for the seat of name (or the player who left the
// game in play from it) if its join asked to be remembered, the hash of
// the key its bowler (Bowler) is made with at the seat's first ball.
func (s *State) NewBowler(name bowling.Name) (TokenHash, bool) {
	st, ok := s.seatOf(name)
	return st.newBowler, ok && st.bowler != "" && st.newBowler != TokenHash{}
}

// seatOf returns the seat of name, or that of a player who left the game
// in play after bowling, as their join's event left it.
func (s *State) seatOf(name bowling.Name) (seat, bool) {
	// The board asks for each player by the seat's own name, once for
	// each board: the exact name first, as [bowling.Match] does, for Same
	// reckons both names' confusable skeletons.
	i := slices.IndexFunc(s.seats, func(st seat) bool { return st.name == name })
	if i < 0 {
		i = slices.IndexFunc(s.seats, func(st seat) bool { return st.name.Same(name) })
	}
	if i >= 0 {
		return s.seats[i], true
	}
	// A player who left this game after bowling: their seat's event.
	for i := len(s.game) - 1; i >= 0; i-- {
		if e := s.game[i].event(); e.Kind == SeatTaken && e.Player.Same(name) {
			return seat{e.Player, e.Token, e.Bowler, e.NewBowler}, true
		}
	}
	return seat{}, false
}

// GameNumber returns the number of the game in play in the lane's series,
// from 1: every game the lane finished, those the series no longer keeps
// (past MaxSeries) included, and this one. A game's number never
// changes: a bowler's history names a game by its lane and number.
func (s *State) GameNumber() int { return max(s.played, len(s.series)) + 1 }

// RemovedPlayers returns the players the host removed and has not let
// back, in the order they were removed.
func (s *State) RemovedPlayers() []bowling.Name { return s.removed[:len(s.removed):len(s.removed)] }

// Removed reports whether the host removed the player named name (or a
// [bowling.Name.Same] name) and has not readmitted them: they may not
// join the lane again under that name.
func (s *State) Removed(name bowling.Name) bool {
	return slices.ContainsFunc(s.removed, name.Same)
}

// ID returns the lane's id.
func (s *State) ID() string { return s.lane }

// Name returns the lane's name.
func (s *State) Name() string { return s.name }

// Private reports whether the lane is unlisted: only its link leads to it.
func (s *State) Private() bool { return s.private }

// MaxPlayers returns the seats the lane has.
func (s *State) MaxPlayers() int {
	if s.maxPlayers > 0 {
		return s.maxPlayers
	}
	return DefaultMaxPlayers
}

// Epoch returns how many times a server has taken the lane up since it
// was opened: each [Claimed] event adds one.
func (s *State) Epoch() uint64 { return s.epoch }

// Closed reports whether the lane has closed.
func (s *State) Closed() bool { return s.closed }

// Phase says where the game stands.
type Phase string

// The phases of a lane's game.
const (
	Waiting  Phase = "waiting"  // players join; the game has not started
	Playing  Phase = "playing"  // started and not over
	Finished Phase = "finished" // over: every player still in it has bowled ten frames, or every player left
)

// Phase returns where the game stands.
func (s *State) Phase() Phase {
	switch {
	case !s.started:
		return Waiting
	case s.match.Over():
		return Finished
	}
	if _, _, ok := s.match.Up(); !ok {
		return Finished // every player left
	}
	return Playing
}

// Match returns the players' match. It is the state's own: do not change it.
func (s *State) Match() *bowling.Match { return &s.match }

// Seated reports whether name holds a seat and has not left.
func (s *State) Seated(name bowling.Name) bool {
	p, ok := s.match.Player(name)
	return ok && !p.Left
}

// Seat returns the index in the board's players of name's seat, and false
// if name is not seated.
func (s *State) Seat(name bowling.Name) (int, bool) {
	for i, p := range s.match.Players() {
		if p.Name.Same(name) && !p.Left {
			return i, true
		}
	}
	return 0, false
}

// Holder returns the player whose seat the token hash resumes. Every
// seat's hash is compared in constant time, so that timing says nothing
// about how close a guess came.
func (s *State) Holder(token TokenHash) (bowling.Name, bool) {
	var name bowling.Name
	for _, st := range s.seats {
		if subtle.ConstantTimeCompare(st.token[:], token[:]) == 1 {
			name = st.name
		}
	}
	return name, name != ""
}

// Host returns the player who may start the game and a new one: the
// player who took their seat with the lane's host key while they hold
// that seat (see [State.JoinHost]: the seat, not the name — another who
// joins under that name after they left is not the host), otherwise the first player seated, or after they
// leave the next in seat order; "" on a lane nobody is seated on, on a
// lane that awaits its creator ([State.AwaitsCreator]), and on a league
// lane: its games start and follow by themselves, and the league's
// secretary, from the league's page, has the host's powers there.
func (s *State) Host() bowling.Name {
	if len(s.seats) == 0 || s.AwaitsCreator() || s.league != nil {
		return ""
	}
	if s.hostSeat != (TokenHash{}) {
		for _, st := range s.seats {
			if st.token == s.hostSeat {
				return st.name
			}
		}
	}
	return s.seats[0].name
}

// League returns the league match the lane is for, nil for a lane of
// friends. It is the state's own: do not change it.
func (s *State) League() *LeagueLane { return s.league }

// AwaitsCreator reports whether the lane waits for its creator: it has a
// host key and nobody has joined with it yet, nor has its holder given the
// lane away ([State.Give]). Until then nobody hosts it: no game starts, and
// a seat is kept for the creator. A crawler that joins a new lane the
// moment it is listed cannot take it from the friends it was made for.
func (s *State) AwaitsCreator() bool {
	return s.hostKey != (TokenHash{}) && s.hostSeat == (TokenHash{})
}

// Corrections returns the Corrected events of the game in play, oldest
// first. The slice is shared, like [State.Series]'s: do not change it.
func (s *State) Corrections() []Event { return s.corrected[:len(s.corrected):len(s.corrected)] }

// Totals returns the totals of the lane's finished games, a line for each
// player who bowled in any, in the order they first did. The slice is
// shared, like [State.Series]'s: do not change it.
func (s *State) Totals() []Total { return s.totals[:len(s.totals):len(s.totals)] }

// Series returns the lane's finished games, oldest first; the game in
// play, finished or not, is not among them. The slice is shared, not
// copied (a lane publishes it with every board): do not change it. It
// stays valid as the state changes, since the state only appends past its
// end or replaces it.
func (s *State) Series() []Result { return s.series[:len(s.series):len(s.series)] }

// Snapshot returns the event that holds the whole lane: applied to any
// state, it gives this one.
func (s *State) Snapshot() Event {
	return Event{Kind: Snapshot, Snapshot: &LaneSnapshot{
		ID:         s.lane,
		Name:       s.name,
		MaxPlayers: s.maxPlayers,
		Private:    s.private,
		Epoch:      s.epoch,
		Series:     slices.Clone(s.series),
		Game:       events(s.game),
		Removed:    slices.Clone(s.removed),
		HostKey:    s.hostKey,
		HostSeat:   s.hostSeat,
		Invite:     s.invite,
		Played:     s.played,
		League:     s.league,
	}}
}
