package bowling

import (
	"fmt"
	"slices"
)

// Player is one seat of a [Match]: a name and that player's game.
type Player struct {
	Name Name
	Game Game
	Left bool // the player left (or was removed) during the match; the turn skips them
	Away bool // the player was skipped while absent; the turn passes them by until they are back
	Late bool // the player joined after the first ball ([Match.AddLate]) and bowls the frames they missed first
}

// Match is several players sharing a lane. The player up bowls until
// their frame is complete; then the player up is, among those neither
// left nor away, the one with the fewest completed frames, ties broken by
// seat order. With nobody away that is the classic order: every player
// bowls frame 1 in seat order, then frame 2, and so on. A player who is
// marked away is passed by; once back, they have the fewest frames, so
// they bowl their missed ones one after another; when only away players have balls left, they
// are up all the same (someone may bowl for them). The match is over when
// every player still in it has completed the tenth frame.
//
// Players are added before the first roll, or late ([Match.AddLate]). A
// player who leaves before bowling a ball gives up their seat; one who
// leaves later keeps their frames on the board and is skipped from then on,
// until their seat is freed ([Match.Free]).
//
// The zero value is an empty match, ready for players.
type Match struct {
	players []Player
	up      int  // index in players of the player up, when anyone is
	started bool // a roll has been bowled
}

// NewMatch returns a match with the named players seated in order.
func NewMatch(names ...string) (*Match, error) {
	m := new(Match)
	for _, s := range names {
		if _, err := m.Add(s); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Add seats a player with the given name, three English letters as
// [ParseName] reads them, at the end of the order. It fails with
// [ErrInvalidName], [ErrNameTaken] or [ErrStarted], changing nothing.
func (m *Match) Add(name string) (Name, error) {
	n, err := ParseName(name)
	if err != nil {
		return "", err
	}
	return n, m.AddName(n)
}

// AddName seats a player whose name is already parsed (by [ParseName] or
// [ParseLaneName]) at the end of the order. A name is taken if another
// player has the [Name.Same] name. It fails with [ErrInvalidName] (an empty
// name), [ErrNameTaken] or [ErrStarted], changing nothing.
func (m *Match) AddName(n Name) error {
	switch {
	case n == "":
		return fmt.Errorf("%w: the name is empty", ErrInvalidName)
	case m.started:
		return fmt.Errorf("%w: %s cannot join, the first ball has been bowled", ErrStarted, n)
	case m.seat(n) >= 0:
		return fmt.Errorf("%w: %s is already on this lane", ErrNameTaken, n)
	}
	m.players = append(m.players, Player{Name: n})
	m.choose()
	return nil
}

// AddLate seats a player who arrives once the first ball has been bowled:
// seated last and marked Late, they bowl the frames they missed before the
// others go on, as a player back from being away does (the player with
// the fewest frames is up once the frame in play is over). A player who
// left the match comes back to their seat the same way, their frames kept.
// Before the first ball it is [Match.AddName]. It fails as AddName does,
// and with [ErrGameOver] once the match is over.
func (m *Match) AddLate(n Name) error {
	switch {
	case !m.started:
		return m.AddName(n)
	case n == "":
		return fmt.Errorf("%w: the name is empty", ErrInvalidName)
	case m.Over():
		return fmt.Errorf("%w: %s cannot join, the match is over", ErrGameOver, n)
	}
	if i := m.seat(n); i >= 0 {
		if !m.players[i].Left {
			return fmt.Errorf("%w: %s is already on this lane", ErrNameTaken, n)
		}
		m.players[i].Left = false // back in their seat: their frames stay, the missed ones come first
	} else {
		m.players = append(m.players, Player{Name: n, Late: true})
	}
	m.choose()
	return nil
}

// Remove takes a player out of the match. A player who has bowled no ball
// gives up their seat, before the first roll of the match or after it (a
// late arrival who leaves at once takes no seat from the next); one who
// has bowled keeps their frames on the board and is skipped from then on.
// If the player was up, the turn passes to the next player.
func (m *Match) Remove(name Name) error {
	i := m.seat(name)
	if i < 0 || m.players[i].Left {
		return fmt.Errorf("%w: %s is not playing on this lane", ErrUnknownPlayer, name)
	}
	if m.players[i].Game.NumRolls() == 0 {
		m.drop(i)
		return nil
	}
	m.players[i].Left = true
	m.choose()
	return nil
}

// Free gives up the seat of a player who left the match after bowling:
// their frames go, and their seat is free for another. It fails with
// [ErrUnknownPlayer] for a player not in the match, and with
// [ErrNameTaken] for one who has not left.
func (m *Match) Free(name Name) error {
	i := m.seat(name)
	switch {
	case i < 0:
		return fmt.Errorf("%w: %s is not on this lane", ErrUnknownPlayer, name)
	case !m.players[i].Left:
		return fmt.Errorf("%w: %s is still playing; only a seat its player left may be freed", ErrNameTaken, name)
	}
	m.drop(i)
	return nil
}

// drop deletes seat i, keeping the player up (unless it was seat i).
func (m *Match) drop(i int) {
	m.players = slices.Delete(m.players, i, i+1)
	switch {
	case m.up > i:
		m.up--
	case m.up == i:
		m.up = 0
	}
	if len(m.players) == 0 {
		m.started = false // nobody who bowled is left: a match to begin again
	}
	m.choose()
}

// SetAway marks a player away (passed by when their turn comes) or back.
// It fails with [ErrUnknownPlayer] for a player not in the match.
func (m *Match) SetAway(name Name, away bool) error {
	i := m.seat(name)
	if i < 0 || m.players[i].Left {
		return fmt.Errorf("%w: %s is not playing on this lane", ErrUnknownPlayer, name)
	}
	m.players[i].Away = away
	m.choose()
	return nil
}

// Correct changes the pins of a ball the named player bowled (see
// [Game.Correct]) and returns what it was. Players who left may be
// corrected too: their frames stay on the board.
func (m *Match) Correct(name Name, frame, ball, pins int) (was int, err error) {
	i := m.seat(name)
	if i < 0 {
		return 0, fmt.Errorf("%w: %s is not on this lane", ErrUnknownPlayer, name)
	}
	if was, err = m.players[i].Game.Correct(frame, ball, pins); err != nil {
		return 0, err
	}
	m.choose()
	return was, nil
}

// CorrectBall changes a ball the named player bowled to b (see
// [Game.CorrectBall]) and returns what it was.
func (m *Match) CorrectBall(name Name, frame, ball int, b Ball) (was Ball, err error) {
	i := m.seat(name)
	if i < 0 {
		return Ball{}, fmt.Errorf("%w: %s is not on this lane", ErrUnknownPlayer, name)
	}
	if was, err = m.players[i].Game.CorrectBall(frame, ball, b); err != nil {
		return Ball{}, err
	}
	m.choose()
	return was, nil
}

// Started reports whether the first ball has been bowled.
func (m *Match) Started() bool { return m.started }

// Over reports whether every player still in the match has completed the
// tenth frame. A match nobody has bowled in is not over.
func (m *Match) Over() bool {
	if !m.started {
		return false
	}
	for _, p := range m.players {
		if !p.Left && !p.Game.Over() {
			return false
		}
	}
	return true
}

// Up returns the seat (index in [Match.Players]) of the player up and the
// frame they are bowling; ok is false when nobody is up (no players, or the
// match is over).
func (m *Match) Up() (seat, frame int, ok bool) {
	if m.up >= len(m.players) || !m.due(m.up, true) {
		return 0, 0, false
	}
	return m.up, m.players[m.up].Game.CurrentFrame(), true
}

// Roll records a roll for the player who is up. It fails with
// [ErrNoPlayers], [ErrGameOver] or the [Game.Roll] errors, changing nothing.
func (m *Match) Roll(pins int) error { return m.RollBall(Ball{Pins: pins}) }

// RollBall records a ball, which may carry its deck, for the player who
// is up, as [Match.Roll] does a count (see [Game.RollBall]).
func (m *Match) RollBall(b Ball) error {
	seat, frame, ok := m.Up()
	if !ok {
		return m.nobodyUp(b.Pins)
	}
	g := &m.players[seat].Game
	if err := g.RollBall(b); err != nil {
		return err
	}
	m.started = true
	if g.Over() || g.CurrentFrame() != frame {
		m.choose()
	}
	return nil
}

// RollAs records a roll for the named player, refusing it with
// [ErrNotYourTurn] unless that player is up.
func (m *Match) RollAs(name Name, pins int) error { return m.RollBallAs(name, Ball{Pins: pins}) }

// RollBallAs records a ball for the named player, refusing it with
// [ErrNotYourTurn] unless that player is up.
func (m *Match) RollBallAs(name Name, b Ball) error {
	i := m.seat(name)
	if i < 0 || m.players[i].Left {
		return fmt.Errorf("%w: %s is not playing on this lane", ErrUnknownPlayer, name)
	}
	seat, _, ok := m.Up()
	if !ok {
		return m.nobodyUp(b.Pins)
	}
	if seat != i {
		return fmt.Errorf("%w: it is %s's turn, not %s's", ErrNotYourTurn, m.players[seat].Name, name)
	}
	return m.RollBall(b)
}

func (m *Match) nobodyUp(pins int) error {
	switch {
	case len(m.players) == 0:
		return fmt.Errorf("%w: nobody is seated to bowl", ErrNoPlayers)
	case m.Over():
		return fmt.Errorf("%w: the match is over, %d pins not counted", ErrGameOver, pins)
	}
	return fmt.Errorf("%w: every player has left", ErrNoPlayers)
}

// due reports whether player i has balls left to bowl, and is not away
// (unless away players count, when nobody else has balls left).
func (m *Match) due(i int, awayToo bool) bool {
	p := &m.players[i]
	return !p.Left && !p.Game.Over() && (awayToo || !p.Away)
}

// choose decides who is up after a change: the player up stays while
// their frame is in play; otherwise it is the player with the fewest
// completed frames among those due, ties broken by seat order. Away
// players count only when nobody else is due.
func (m *Match) choose() {
	awayToo := true
	for i := range m.players {
		if m.due(i, false) {
			awayToo = false
			break
		}
	}
	if m.up < len(m.players) && m.due(m.up, awayToo) && m.players[m.up].Game.Ball() > 1 {
		return // mid-frame: a frame is bowled to its end
	}
	best, fewest := -1, NumFrames+1
	for i := range m.players {
		if !m.due(i, awayToo) {
			continue
		}
		if done := m.players[i].Game.CurrentFrame() - 1; done < fewest {
			best, fewest = i, done
		}
	}
	if best >= 0 {
		m.up = best
	}
}

// At returns the player in seat (an index in [Match.Players]), as a
// copy: unlike Players, it allocates nothing.
func (m *Match) At(seat int) Player { return m.players[seat] }

// Players returns a snapshot of the seats in order.
func (m *Match) Players() []Player { return slices.Clone(m.players) }

// Len returns the number of seats, including players who left mid-match.
func (m *Match) Len() int { return len(m.players) }

// Player returns the seat named name (or a [Name.Same] name), and false if
// there is none.
func (m *Match) Player(name Name) (Player, bool) {
	i := m.seat(name)
	if i < 0 {
		return Player{}, false
	}
	return m.players[i], true
}

// seat returns the index of the player named name ([Name.Same]), or -1.
func (m *Match) seat(name Name) int {
	// Commands name players as seated: the exact name first, so that a
	// roll costs no folding and no skeletons of the others' names.
	if i := slices.IndexFunc(m.players, func(p Player) bool { return p.Name == name }); i >= 0 {
		return i
	}
	return slices.IndexFunc(m.players, func(p Player) bool { return p.Name.Same(name) })
}
