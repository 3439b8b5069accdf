package game

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
)

// Errors of a lane's decisions, besides those of package bowling. The
// errors the decisions return wrap one of these or one of bowling's, so
// callers match them with [errors.Is].
var (
	// ErrGameStarted: a join or a start once the game has started.
	ErrGameStarted = errors.New("game: game started")
	// ErrNotPlaying: a roll while no game is in play.
	ErrNotPlaying = errors.New("game: no game in play")
	// ErrLaneFull: a join when every seat is taken.
	ErrLaneFull = errors.New("game: lane full")
	// ErrNotFinished: a new game before the game is over.
	ErrNotFinished = errors.New("game: game not finished")
	// ErrClosed: any command to a lane that has closed.
	ErrClosed = errors.New("game: lane closed")
	// ErrStaleRoll: a roll for a ball other than the one up: a late
	// roll, which must never count, or one ahead of the game.
	ErrStaleRoll = errors.New("game: stale roll")
	// ErrRolledAlready: a roll for a ball bowled already, as that very
	// ball — the same pins, deck and foul: the roll sent again, whose
	// answer was lost (a retry, or a lane's node that died after storing
	// it and before answering). It changes nothing, and is no refusal:
	// the lane acknowledges it as the roll that counted.
	ErrRolledAlready = errors.New("game: rolled already")
	// ErrNotHost: a command only the host may give (start, a new game,
	// remove, another player's correction), from another player.
	ErrNotHost = errors.New("game: not the host")
	// ErrNotAway: a skip of a player up who is connected, or absent for
	// less than the away time, or whom nobody else could follow.
	ErrNotAway = errors.New("game: not away")
	// ErrRemoved: a join under the name of a player the host removed and
	// has not readmitted.
	ErrRemoved = errors.New("game: removed by the host")
	// ErrCreatorAway: a command only the host may give, on a lane that
	// waits for its creator ([State.AwaitsCreator]).
	ErrCreatorAway = errors.New("game: the lane waits for its creator")
	// ErrNotOnRoster: on a league lane, a join under a name none of its
	// places has, or a command a league night does not take (a rematch,
	// a readmission, a seat freed: its places are the rosters').
	ErrNotOnRoster = errors.New("game: not on the league match's rosters")
	// ErrInvitationRequired: a join without the lane's invitation, or
	// with another's (an old one the host replaced, another lane's):
	// whoever has only the lane's link may watch, not sit.
	ErrInvitationRequired = errors.New("game: invitation required")
	// ErrNotYourTeam: on a league lane, a join under a place of the other
	// team than the invitation's; a roll or a correction of a ball of the
	// other team's place: a team keeps its own score, and only the
	// league's secretary enters anyone's.
	ErrNotYourTeam = errors.New("game: not your team")
)

// Open returns the event that opens a lane. A maxPlayers of 0 or less
// means [DefaultMaxPlayers].
func Open(id, name string, maxPlayers int) Event {
	if maxPlayers <= 0 {
		maxPlayers = DefaultMaxPlayers
	}
	return Event{Kind: Opened, Lane: id, Name: name, MaxPlayers: maxPlayers}
}

// OpenPrivate returns the event that opens a lane the lobby does not
// list: only its link leads to it.
func OpenPrivate(id, name string, maxPlayers int) Event {
	e := Open(id, name, maxPlayers)
	e.Private = true
	return e
}

// Claim returns the event by which a server (node) takes the lane up,
// starting a new epoch: what a client was shown before can then never be
// confused with what it is shown after.
func (s *State) Claim(node string) Event {
	return Event{Kind: Claimed, Epoch: s.epoch + 1, Node: node}
}

// Close returns the event that closes the lane.
func (s *State) Close(reason string) Event {
	return Event{Kind: Closed, Reason: reason}
}

// Join decides whether a player named name may take a seat that token
// resumes. A lane's names are [bowling.ParseLaneName]'s: up to twelve
// letters of any script, unique on the lane but for case. A player may
// join while seats remain until the game is over: after the first ball
// they bowl the frames they missed first ([bowling.Match.AddLate]), and a
// player who left this game comes back to their seat and frames. A player
// the host removed may not, until readmitted.
//
// A lane that awaits its creator keeps its last seat for them: only a
// join with the host key takes it.
//
// A lane opened with an invitation seats only a join that carries it:
// invite is the SHA-256 of the join's ([HashToken]; zero for none). On a
// league lane, it is a team's, and seats that team's places alone.
func (s *State) Join(name string, token, invite TokenHash) (Event, error) {
	return s.join(name, token, invite, false)
}

// invited reports whether invite, a join's invitation's hash, is the
// lane's, or the lane is open.
func invited(want, invite TokenHash) bool {
	return want == (TokenHash{}) || subtle.ConstantTimeCompare(want[:], invite[:]) == 1
}

func (s *State) join(name string, token, invite TokenHash, creator bool) (Event, error) {
	if s.league == nil && !creator && !invited(s.invite, invite) {
		return Event{}, fmt.Errorf("%w: this lane seats only who has its invitation; ask a player for the link or its QR code, or watch", ErrInvitationRequired)
	}
	n, err := bowling.ParseLaneName(name)
	if err != nil {
		return Event{}, err
	}
	if s.league != nil {
		return s.claim(n, token, invite)
	}
	p, back := s.match.Player(n) // a player who left this game comes back to their seat
	switch {
	case s.closed:
		return Event{}, fmt.Errorf("%w: %s cannot join", ErrClosed, n)
	case s.Phase() == Finished:
		return Event{}, fmt.Errorf("%w: %s can join once the host starts the next game (rematch)", ErrGameStarted, n)
	case s.Removed(n):
		return Event{}, fmt.Errorf("%w: the host removed %s from this lane; the host may let them back", ErrRemoved, n)
	case back && !p.Left:
		return Event{}, fmt.Errorf("%w: %s is already on this lane", bowling.ErrNameTaken, n)
	case back && len(s.game) >= MaxGameEvents:
		return Event{}, fmt.Errorf("%w: %s left this game, and it has seen too many seats given up and taken again; join the next game", ErrLaneFull, n)
	case back:
		n = p.Name // as the seat was named
	case s.match.Len() >= s.MaxPlayers():
		return Event{}, fmt.Errorf("%w: all %d seats are taken", ErrLaneFull, s.MaxPlayers())
	case !creator && s.AwaitsCreator() && s.match.Len() >= s.MaxPlayers()-1:
		return Event{}, fmt.Errorf("%w: the last seat is kept for the lane's creator until they join", ErrLaneFull)
	}
	return Event{Kind: SeatTaken, Player: n, Token: token}, nil
}

// JoinHost is Join for the holder of the lane's host key, who becomes
// its host, whoever joined first: the lane's creator, whose page got the
// key when it created the lane. key is the SHA-256 of the key the joiner
// gave ([HashToken]): the key itself need not reach the lane's node (a
// relay hashes it). A key that is not the lane's is refused with
// ErrNotHost.
func (s *State) JoinHost(name string, token, key TokenHash) (Event, error) {
	if s.hostKey == (TokenHash{}) || subtle.ConstantTimeCompare(key[:], s.hostKey[:]) != 1 {
		return Event{}, fmt.Errorf("%w: that is not this lane's host key", ErrNotHost)
	}
	e, err := s.join(name, token, TokenHash{}, true)
	e.Host = err == nil
	return e, err
}

// claim decides a join on a league lane: it takes the place of the name,
// if nobody holds it and the join carries the invitation of the place's
// team.
func (s *State) claim(n bowling.Name, token, invite TokenHash) (Event, error) {
	i := slices.IndexFunc(s.seats, func(st seat) bool { return st.name.Same(n) })
	team := -1
	for t, want := range s.league.Invites {
		if want != (TokenHash{}) && invited(want, invite) {
			team = t
		}
	}
	teams := s.league.Teams
	switch {
	case s.closed:
		return Event{}, fmt.Errorf("%w: %s cannot join", ErrClosed, n)
	case team < 0 && s.league.Invites != [2]TokenHash{}:
		return Event{}, fmt.Errorf("%w: a league lane seats only who has their team's invitation; ask your team's captain or the secretary for it, or watch", ErrInvitationRequired)
	case i < 0:
		return Event{}, fmt.Errorf("%w: %s bowls in no place of %s v %s tonight; join under a name of the rosters", ErrNotOnRoster, n, teams[0], teams[1])
	case team >= 0 && s.placeTeam(s.seats[i].name) != team:
		return Event{}, fmt.Errorf("%w: %s bowls for %s, and this is %s's invitation", ErrNotYourTeam, s.seats[i].name, teams[1-team], teams[team])
	case s.seats[i].token != (TokenHash{}):
		return Event{}, fmt.Errorf("%w: %s's place is taken by another phone; resume it there", bowling.ErrNameTaken, s.seats[i].name)
	}
	return Event{Kind: SeatClaimed, Player: s.seats[i].name, Token: token}, nil
}

// placeTeam returns the team (0 home, 1 away) of a league lane's place
// name; -1 for none.
func (s *State) placeTeam(name bowling.Name) int {
	for _, p := range s.league.Places {
		if p.Name.Same(name) {
			return p.Team
		}
	}
	return -1
}

// Invite decides whether by, the host, may issue a new invitation, of
// SHA-256 invite: from then on a join needs it, and the one before
// seats nobody (the players seated keep their seats). A host shuts a
// crawler out so, and an open lane becomes one by invitation.
func (s *State) Invite(by bowling.Name, invite TokenHash) (Event, error) {
	if err := s.checkSeats(by, "issue a new invitation"); err != nil {
		return Event{}, err
	}
	if invite == (TokenHash{}) {
		return Event{}, errors.New("game: an invitation needs a hash")
	}
	return Event{Kind: Invited, Invite: invite, By: s.canonical(by)}, nil
}

// Give decides whether the holder of the lane's host key (key is its
// SHA-256) may give the lane away: from then on it waits for nobody, and
// its first player seated hosts it, as on a lane made without a key. A
// creator who makes a lane for others (a TV, a group they will not bowl
// with) gives it away. A key that is not the lane's, or a lane without
// one, is refused with ErrNotHost.
func (s *State) Give(key TokenHash) (Event, error) {
	switch {
	case s.closed:
		return Event{}, ErrClosed
	case s.hostKey == (TokenHash{}):
		return Event{}, fmt.Errorf("%w: this lane has no host key to give away", ErrNotHost)
	case subtle.ConstantTimeCompare(key[:], s.hostKey[:]) != 1:
		return Event{}, fmt.Errorf("%w: that is not this lane's host key", ErrNotHost)
	}
	return Event{Kind: Given}, nil
}

// Free decides whether by, the host, may free the seat of name, who left
// the game in play after bowling: their frames of this game go, and the
// seat is free for a late friend. (A player who leaves before bowling
// frees their seat themselves.)
func (s *State) Free(by bowling.Name, name string) (Event, error) {
	n, err := bowling.ParseLaneName(name)
	if err != nil {
		return Event{}, err
	}
	if err := s.checkSeats(by, "free a seat"); err != nil {
		return Event{}, err
	}
	p, ok := s.match.Player(n)
	switch {
	case !ok:
		return Event{}, fmt.Errorf("%w: %s is not on this lane", bowling.ErrUnknownPlayer, n)
	case !p.Left:
		return Event{}, fmt.Errorf("%w: %s is still playing; the host may remove them first", bowling.ErrNameTaken, n)
	case len(s.game) >= MaxGameEvents:
		return Event{}, fmt.Errorf("%w: this game has seen too many seats given up and taken again; its seats are free for the next game", ErrLaneFull)
	}
	return Event{Kind: SeatFreed, Player: p.Name, By: s.canonical(by)}, nil
}

// Start decides whether by, the host, may start the game.
func (s *State) Start(by bowling.Name) (Event, error) {
	if err := s.checkHost(by, "start the game"); err != nil {
		return Event{}, err
	}
	if s.started {
		return Event{}, fmt.Errorf("%w: the game is already under way", ErrGameStarted)
	}
	return Event{Kind: GameStarted}, nil
}

// Throw is a roll as a player enters it: who enters it (By), whose ball
// it is (For; empty means By's own), which ball it is meant for, and the
// pins; if the lane saw them, the pins left standing (Deck, with HasDeck),
// which must agree with Pins and the pins standing before; or a foul (with
// Pins 0). UpOffline says whether the player up has no connection: the
// lane knows that, the game does not.
type Throw struct {
	By, For     bowling.Name
	Frame, Ball int
	Pins        int
	Deck        bowling.Deck
	HasDeck     bool
	Foul        bool
	// FromDeck says the throw gave no count: its pins are those standing
	// before it that Deck no longer has.
	FromDeck  bool
	UpOffline bool
	// Secretary says the league's secretary enters it, on a league
	// lane, from the league's page: By is then empty, and For is
	// any place's.
	Secretary bool
}

// Roll decides whether a throw counts. It must be for the ball up — the
// player up, the frame and the ball they are on — so that a late roll is
// refused (ErrStaleRoll) and a repeated one never counts twice: one that
// is the ball bowled already, in this game or (before its player's first
// ball of this one) in the game before, is ErrRolledAlready. A player
// enters their own balls; the host may enter anyone's, and any seated
// player may enter the ball of a player up who is offline. On a league
// lane, which has no host, a bowler enters their own and their
// teammates' balls, never the other team's (ErrNotYourTeam), and the
// league's secretary anyone's ([Throw.Secretary]).
func (s *State) Roll(t Throw) (Event, error) {
	if err := s.actor(&t.By, &t.For, t.Secretary); err != nil {
		return Event{}, err
	}
	// A ball sent again is answered as bowled, whoever sent it and
	// whatever came since (the turn passed, the game ended, the next one
	// began): it changes nothing, and its sender learns that it counted.
	// Only a roll for another ball than the one up can be one, so the
	// roll of the ball up, every ball of every game, never looks.
	if p := s.Phase(); p != Playing {
		if err := s.sentAgain(t); err != nil {
			return Event{}, err
		}
		return Event{}, fmt.Errorf("%w: the game is %s", ErrNotPlaying, p)
	}
	p, ok := s.match.Player(t.For)
	if !ok || p.Left {
		return Event{}, fmt.Errorf("%w: %s is not playing on this lane", bowling.ErrUnknownPlayer, t.For)
	}
	g := &p.Game
	notUp := g.Over() || t.Frame != g.CurrentFrame() || t.Ball != g.Ball()
	if notUp {
		if err := s.sentAgain(t); err != nil {
			return Event{}, err
		}
	}
	seat, _, _ := s.match.Up()
	up := s.match.At(seat).Name
	if err := s.mayEnter(t.By, t.For, t.Secretary, t.For == up && t.UpOffline, false); err != nil {
		return Event{}, err
	}
	switch {
	case notUp:
		return Event{}, fmt.Errorf("%w: frame %d ball %d is not %s's next ball%s", ErrStaleRoll, t.Frame, t.Ball, t.For, next(g))
	case t.For != up:
		return Event{}, fmt.Errorf("%w: it is %s's turn, not %s's", bowling.ErrNotYourTurn, up, t.For)
	}
	if t.FromDeck {
		t.Pins = max(g.Standing()-t.Deck.Count(), 0) // a deck of more pins than stand is refused below
	}
	b := bowling.Ball{Pins: t.Pins, Deck: t.Deck, HasDeck: t.HasDeck, Foul: t.Foul}
	if err := g.CheckBall(b); err != nil {
		return Event{}, err
	}
	if !b.HasDeck {
		b.Deck = 0
	}
	e := Event{Kind: Rolled, Player: t.For, Frame: t.Frame, Ball: t.Ball, Pins: b.Pins, Deck: b.Deck, HasDeck: b.HasDeck, Foul: b.Foul, Secretary: t.Secretary}
	if t.By != t.For {
		e.By = t.By
	}
	return e, nil
}

// actor checks who gives a command for a player's ball, by or the
// league's secretary, and names both as the lane seats them: for, if
// empty, is by's own. A bowler must be seated; the secretary acts only
// on a league lane, for a place of it.
func (s *State) actor(by, forName *bowling.Name, secretary bool) error {
	switch {
	case s.closed:
		return ErrClosed
	case secretary && s.league == nil:
		return fmt.Errorf("%w: only a league night's lane has a secretary", ErrNotHost)
	case secretary && *by != "":
		return fmt.Errorf("%w: the secretary enters a ball as nobody else", ErrNotHost)
	case secretary && *forName == "":
		return fmt.Errorf("%w: the secretary names whose ball it is", bowling.ErrUnknownPlayer)
	case secretary && !s.Seated(*forName):
		return fmt.Errorf("%w: %s bowls in no place of this lane", bowling.ErrUnknownPlayer, *forName)
	case secretary:
		*forName = s.canonical(*forName)
		return nil
	}
	if *forName == "" {
		*forName = *by
	}
	if err := s.check(*by); err != nil {
		return err
	}
	*by, *forName = s.canonical(*by), s.canonical(*forName)
	return nil
}

// mayEnter refuses by's entering (or, if correcting, correcting) a ball of forName's,
// unless it is by's own, or by may: the league's secretary; on a league
// lane a teammate, whoever holds the place (one phone keeps a team's
// score), and never the other team; elsewhere the host, or anyone when
// offlineUp (the ball is of the player up, who is offline).
func (s *State) mayEnter(by, forName bowling.Name, secretary, offlineUp, correcting bool) error {
	switch {
	case secretary || by == forName:
		return nil
	case s.league != nil:
		mine, theirs := s.teamOf(by), s.teamOf(forName)
		if mine < 0 || theirs < 0 {
			// Every seat of a league lane is a place; a log written
			// otherwise gives nobody another's ball.
			return fmt.Errorf("%w: %s or %s bowls in no place of either team", ErrNotYourTeam, by, forName)
		}
		if mine != theirs {
			return fmt.Errorf("%w: %s bowls for %s, %s for %s; only %s or the league's secretary may enter %s's balls",
				ErrNotYourTeam, by, s.league.Teams[mine], forName, s.league.Teams[theirs], s.league.Teams[theirs], forName)
		}
		return nil
	case by == s.Host() || offlineUp:
		return nil
	case correcting:
		return fmt.Errorf("%w: only the host%s may correct %s's ball", ErrNotHost, s.hostNamed(), forName)
	}
	return fmt.Errorf("%w: only the host%s may enter %s's roll while %s is connected", ErrNotHost, s.hostNamed(), forName, forName)
}

// teamOf returns the team (0 home, 1 away) of a league lane's place;
// every seat of a league lane is a place.
func (s *State) teamOf(n bowling.Name) int {
	i := slices.IndexFunc(s.league.Places, func(p LeaguePlace) bool { return p.Name.Same(n) })
	if i < 0 {
		return -1
	}
	return s.league.Places[i].Team
}

// sentAgain returns ErrRolledAlready, saying which ball, if t is a ball
// bowled already (see bowled); nil otherwise.
func (s *State) sentAgain(t Throw) error {
	if b, game, ok := s.bowled(t); ok {
		return fmt.Errorf("%w: frame %d ball %d of %s is %s in %s", ErrRolledAlready, t.Frame, t.Ball, t.For, b, game)
	}
	return nil
}

// bowled returns t's ball, and the game it is in, if t is that very ball
// bowled already: in its player's game in play, or — while that game has
// no ball of theirs yet, and t is not their first — in the game before,
// whose last ball a roll sent again finds over (a league night's next
// game starts by itself). A first ball is always the new game's: it may
// well be the same as the game before's.
func (s *State) bowled(t Throw) (b bowling.Ball, game string, ok bool) {
	if p, in := s.match.Player(t.For); in {
		g := &p.Game
		if b, ok := g.BallAt(t.Frame, t.Ball); ok {
			return b, "this game", t.is(b)
		}
		if p.Left || g.NumRolls() > 0 || t.Frame == g.CurrentFrame() && t.Ball == g.Ball() {
			return bowling.Ball{}, "", false
		}
	}
	if n := len(s.series); n > 0 {
		for _, sc := range s.series[n-1].Players {
			if sc.Name == t.For {
				b, ok := sc.Game.BallAt(t.Frame, t.Ball)
				return b, "the game before", ok && t.is(b)
			}
		}
	}
	return bowling.Ball{}, "", false
}

// is reports whether b, a ball bowled, is the ball t throws: the same
// pins, or the same deck if t gives the deck alone, and the same foul.
func (t Throw) is(b bowling.Ball) bool {
	switch {
	case b.Foul != t.Foul:
		return false
	case t.FromDeck:
		return b.HasDeck && b.Deck == t.Deck
	case t.HasDeck:
		return b.Pins == t.Pins && b.HasDeck && b.Deck == t.Deck
	}
	return b.Pins == t.Pins
}

// correctGame corrects a ball of g: a count only as [bowling.Game.Correct]
// does, a ball with a deck or a foul as [bowling.Game.CorrectBall]. It
// returns the pins the ball had.
func correctGame(g *bowling.Game, frame, ball int, b bowling.Ball) (was int, err error) {
	if !b.HasDeck && !b.Foul {
		return g.Correct(frame, ball, b.Pins)
	}
	w, err := g.CorrectBall(frame, ball, b)
	return w.Pins, err
}

// correctMatch applies a correction to a match as [correctGame] does to a game.
func correctMatch(m *bowling.Match, name bowling.Name, frame, ball int, b bowling.Ball) error {
	if !b.HasDeck && !b.Foul {
		_, err := m.Correct(name, frame, ball, b.Pins)
		return err
	}
	_, err := m.CorrectBall(name, frame, ball, b)
	return err
}

// next says which ball a game is on, for an error message.
func next(g *bowling.Game) string {
	if g.Over() {
		return " (their game is over)"
	}
	return fmt.Sprintf(" (that is frame %d ball %d)", g.CurrentFrame(), g.Ball())
}

// Correction is a change of a ball already bowled, as a player enters it:
// who enters it (By), whose ball it is (For; empty means By's own), which
// ball, the pins it should have been (and, as in a [Throw], the pins it
// left standing, or a foul), and when (for the history).
type Correction struct {
	By, For     bowling.Name
	Frame, Ball int
	Pins        int
	Deck        bowling.Deck
	HasDeck     bool
	Foul        bool
	FromDeck    bool // as a [Throw]'s: the pins are counted from Deck
	At          time.Time
	Secretary   bool // as a [Throw]'s: the league's secretary corrects it
}

// Correct decides whether a correction stands. A player corrects their
// own balls of the game in play (until the next game); the host may
// correct anyone's; on a league lane a bowler corrects their teammates'
// too, never the other team's, and the league's secretary anyone's. The game is replayed with the new value: a correction
// that makes it impossible, or that would change which frame and ball any
// roll is, is refused with an error wrapping [bowling.ErrInvalidCorrection].
// A correction of a count only is [bowling.Game.Correct]'s; one with a deck
// or a foul is [bowling.Game.CorrectBall]'s.
func (s *State) Correct(c Correction) (Event, error) {
	if err := s.actor(&c.By, &c.For, c.Secretary); err != nil {
		return Event{}, err
	}
	if !s.started {
		return Event{}, fmt.Errorf("%w: nothing has been bowled in this game yet", ErrNotPlaying)
	}
	if len(s.corrected) >= MaxCorrections {
		return Event{}, fmt.Errorf("%w: a game takes at most %d corrections, and this one has had them all", bowling.ErrInvalidCorrection, MaxCorrections)
	}
	p, ok := s.match.Player(c.For)
	switch {
	case !ok:
		return Event{}, fmt.Errorf("%w: %s is not on this lane", bowling.ErrUnknownPlayer, c.For)
	}
	if err := s.mayEnter(c.By, c.For, c.Secretary, false, true); err != nil {
		return Event{}, err
	}
	g := p.Game // a copy: the state is untouched
	if c.FromDeck {
		standing, err := g.StandingBefore(c.Frame, c.Ball)
		if err != nil {
			return Event{}, err
		}
		c.Pins = max(standing-c.Deck.Count(), 0) // a deck of more pins than stood is refused below
	}
	b := bowling.Ball{Pins: c.Pins, Deck: c.Deck, HasDeck: c.HasDeck, Foul: c.Foul}
	if !b.HasDeck {
		b.Deck = 0
	}
	was, err := correctGame(&g, c.Frame, c.Ball, b)
	if err != nil {
		return Event{}, err
	}
	e := Event{Kind: Corrected, Player: c.For, Frame: c.Frame, Ball: c.Ball, Pins: b.Pins, Deck: b.Deck, HasDeck: b.HasDeck, Foul: b.Foul,
		Was: was, At: c.At.UTC().Truncate(time.Second), Secretary: c.Secretary}
	if c.By != c.For {
		e.By = c.By
	}
	return e, nil
}

// Skip decides whether by may skip the player up, absent — without a
// connection — for upOffline (0 while connected): once that is at least
// awayAfter, the player up is marked away and the turn passes them by
// until they come back. A player may skip only if someone else could bowl
// next.
func (s *State) Skip(by bowling.Name, upOffline, awayAfter time.Duration) (Event, error) {
	if err := s.check(by); err != nil {
		return Event{}, err
	}
	return s.skip(Event{Kind: PlayerAway, By: s.canonical(by)}, upOffline, awayAfter)
}

// SecretarySkip is [State.Skip] for the league's secretary, on a league
// lane: the same rule as for anyone on the lane — the player up offline
// for the away time — from the league's page, which is not on the lane.
func (s *State) SecretarySkip(upOffline, awayAfter time.Duration) (Event, error) {
	switch {
	case s.closed:
		return Event{}, ErrClosed
	case s.league == nil:
		return Event{}, fmt.Errorf("%w: only a league night's lane has a secretary", ErrNotHost)
	}
	return s.skip(Event{Kind: PlayerAway, Secretary: true}, upOffline, awayAfter)
}

// skip decides a skip of the player up, e (a PlayerAway event saying
// who skips) once it names them.
func (s *State) skip(e Event, upOffline, awayAfter time.Duration) (Event, error) {
	if p := s.Phase(); p != Playing {
		return Event{}, fmt.Errorf("%w: the game is %s", ErrNotPlaying, p)
	}
	seat, _, _ := s.match.Up()
	up := s.match.At(seat)
	switch {
	case len(s.game) >= MaxGameEvents:
		return Event{}, fmt.Errorf("%w: this game has seen too many players skipped and back; enter %s's balls, or the host may remove them", ErrNotAway, up.Name)
	case upOffline <= 0:
		return Event{}, fmt.Errorf("%w: %s is connected; it is their turn", ErrNotAway, up.Name)
	case upOffline < awayAfter:
		return Event{}, fmt.Errorf("%w: %s has been offline for %s; a player may be skipped after %s", ErrNotAway, up.Name, human(upOffline), human(awayAfter))
	}
	for _, p := range s.match.Players() {
		if p.Name != up.Name && !p.Left && !p.Away && !p.Game.Over() {
			e.Player = up.Name
			return e, nil
		}
	}
	return Event{}, fmt.Errorf("%w: nobody else has balls left to bowl; enter %s's balls, or the host may remove them", ErrNotAway, up.Name)
}

// Back returns the event that marks name back, if name is away: a player
// who comes back bowls their missed frames first, the frame in play once over.
func (s *State) Back(name bowling.Name) (Event, bool) {
	p, ok := s.match.Player(name)
	if !ok || !p.Away || p.Left || s.closed {
		return Event{}, false
	}
	return Event{Kind: PlayerBack, Player: name}, true
}

// Remove decides whether by, the host, may remove the player named name
// for good: as if they left, their frames stay and their seat's token no
// longer resumes it.
func (s *State) Remove(by bowling.Name, name string) (Event, error) {
	n, err := bowling.ParseLaneName(name)
	if err != nil {
		return Event{}, err
	}
	if s.league != nil {
		if err := s.check(by); err != nil {
			return Event{}, err
		}
		return Event{}, fmt.Errorf("%w: a league night's lane has no host: only the league's secretary may give %s's place back", ErrNotHost, n)
	}
	if err := s.checkSeats(by, "remove a player"); err != nil {
		return Event{}, err
	}
	p, ok := s.match.Player(n)
	if !ok || p.Left {
		return Event{}, fmt.Errorf("%w: %s is not playing on this lane", bowling.ErrUnknownPlayer, n)
	}
	e := Event{Kind: PlayerLeft, Player: p.Name} // as seated, whatever the case name was given in
	if !p.Name.Same(by) {
		e.By = s.canonical(by)
	}
	return e, nil
}

// SecretaryRemove decides whether the league's secretary may take the
// place of name, on a league lane, from the phone that holds it: the
// place is given back, as the phone's leave gives it, and another phone
// may claim it (a place is the roster's: its frames stay, and it bowls
// on). A place no phone holds has nothing to give back.
func (s *State) SecretaryRemove(name string) (Event, error) {
	n, err := bowling.ParseLaneName(name)
	if err != nil {
		return Event{}, err
	}
	var by bowling.Name
	if err := s.actor(&by, &n, true); err != nil {
		return Event{}, err
	}
	i := slices.IndexFunc(s.seats, func(st seat) bool { return st.name == n })
	if i < 0 || s.seats[i].token == (TokenHash{}) {
		return Event{}, fmt.Errorf("%w: no phone holds %s's place: there is nothing to give back", bowling.ErrUnknownPlayer, n)
	}
	return Event{Kind: SeatClaimed, Player: n, Secretary: true}, nil
}

// Readmit decides whether by, the host, may let a player they removed join
// the lane again.
func (s *State) Readmit(by bowling.Name, name string) (Event, error) {
	n, err := bowling.ParseLaneName(name)
	if err != nil {
		return Event{}, err
	}
	if err := s.checkSeats(by, "let a removed player back"); err != nil {
		return Event{}, err
	}
	i := slices.IndexFunc(s.removed, n.Same)
	if i < 0 {
		return Event{}, fmt.Errorf("%w: %s was not removed from this lane", bowling.ErrUnknownPlayer, n)
	}
	return Event{Kind: Readmitted, Player: s.removed[i], By: s.canonical(by)}, nil
}

// Leave decides whether by may give up their seat. Before the first ball
// the seat is freed; after it the player's frames stay and the turn skips
// them.
func (s *State) Leave(by bowling.Name) (Event, error) {
	if err := s.check(by); err != nil {
		return Event{}, err
	}
	if s.league != nil {
		// A league place is the roster's: the phone gives it back, and
		// the place bowls on (another phone may claim it).
		return Event{Kind: SeatClaimed, Player: s.canonical(by)}, nil
	}
	return Event{Kind: PlayerLeft, Player: s.canonical(by)}, nil
}

// NewGame decides whether by, the host, may end a game that is over, so
// that the series goes on: the game joins the series and the players
// still seated wait for the next one, which others may join until the
// host starts it.
func (s *State) NewGame(by bowling.Name) (Event, error) {
	if s.league != nil {
		return Event{}, fmt.Errorf("%w: a league night's next game starts by itself", ErrNotOnRoster)
	}
	if err := s.checkHost(by, "start a new game"); err != nil {
		return Event{}, err
	}
	if s.Phase() != Finished {
		return Event{}, fmt.Errorf("%w: a rematch comes after the game is over", ErrNotFinished)
	}
	return Event{Kind: NextGame}, nil
}

// NextLeagueGame returns the event that starts a league night's next game
// once a game is over, and false when none is due: not a league lane, the
// game not over, or the night's games all bowled.
func (s *State) NextLeagueGame() (Event, bool) {
	if s.league == nil || s.closed || s.Phase() != Finished || s.GameNumber() >= s.league.Games {
		return Event{}, false
	}
	return Event{Kind: NewGame}, true
}

// check refuses a command from a closed lane or from someone not seated.
func (s *State) check(by bowling.Name) error {
	switch {
	case s.closed:
		return ErrClosed
	case !s.Seated(by):
		return fmt.Errorf("%w: %s is not playing on this lane", bowling.ErrUnknownPlayer, by)
	}
	return nil
}

// canonical returns name as it is seated on the lane, where names are the
// same but for case ([bowling.Name.Same]), so that events name players one
// way; a name nobody has stays as it is.
func (s *State) canonical(name bowling.Name) bowling.Name {
	if p, ok := s.match.Player(name); ok {
		return p.Name
	}
	return name
}

// checkSeats refuses a command of the host's that changes who holds the
// seats (remove, readmit, free): a league night's places are its rosters',
// which nobody on the lane changes.
func (s *State) checkSeats(by bowling.Name, what string) error {
	if s.league != nil {
		if err := s.check(by); err != nil {
			return err
		}
		return fmt.Errorf("%w: on a league night nobody may %s: the places are the rosters'", ErrNotOnRoster, what)
	}
	return s.checkHost(by, what)
}

// checkHost refuses a command only the host may give.
func (s *State) checkHost(by bowling.Name, what string) error {
	if err := s.check(by); err != nil {
		return err
	}
	if s.AwaitsCreator() {
		return fmt.Errorf("%w: nobody may %s until the lane's creator joins, or gives the lane away", ErrCreatorAway, what)
	}
	if s.league != nil {
		return fmt.Errorf("%w: a league night's lane has no host: its games start by themselves, and only the league's secretary may %s", ErrNotHost, what)
	}
	if host := s.Host(); !by.Same(host) {
		return fmt.Errorf("%w: only %s, the host, may %s", ErrNotHost, host, what)
	}
	return nil
}

// hostNamed is ", NAME," naming the host in a message, or "" when nobody
// hosts the lane.
func (s *State) hostNamed() string {
	if h := s.Host(); h != "" {
		return ", " + string(h) + ","
	}
	return ""
}

// human writes a duration for a message to players: "45s", "1m30s",
// "1h" rather than Go's "1h0m0s"; under a second, in milliseconds.
func human(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	d = d.Round(time.Second)
	h, m, sec := int(d/time.Hour), int(d/time.Minute)%60, int(d/time.Second)%60
	out := ""
	if h > 0 {
		out += fmt.Sprintf("%dh", h)
	}
	if m > 0 {
		out += fmt.Sprintf("%dm", m)
	}
	if sec > 0 {
		out += fmt.Sprintf("%ds", sec)
	}
	return out
}
