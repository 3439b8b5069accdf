package game

import "github.com/tenpin/tenpin/lane/bowling"

// played is one event of the game in play as a [State] keeps it for its
// next snapshot. Every lane of a server keeps a game's worth of them all
// the time (eighty or so for four bowlers), nearly all rolls: a roll is
// kept in its few fields, a sixth of an [Event]'s size, and any other
// event (a seat taken, a correction: a handful a game) as the event
// itself, behind a pointer.
type played struct {
	other *Event // the event, unless it is a roll kept by its fields

	player, by        bowling.Name
	deck              bowling.Deck
	frame, ball, pins int8
	hasDeck, foul     bool
}

// keep returns e as the game's log keeps it.
func keep(e Event) played {
	if e.Kind == Rolled {
		p := played{
			player: e.Player, by: e.By, deck: e.Deck, hasDeck: e.HasDeck, foul: e.Foul,
			frame: int8(e.Frame), ball: int8(e.Ball), pins: int8(e.Pins),
		}
		if p.event() == e { // nothing a roll does not have, nothing out of range
			return p
		}
	}
	return played{other: &e}
}

// event returns the event p keeps.
func (p played) event() Event {
	if p.other != nil {
		return *p.other
	}
	return Event{
		Kind: Rolled, Player: p.player, By: p.by,
		Frame: int(p.frame), Ball: int(p.ball), Pins: int(p.pins),
		Deck: p.deck, HasDeck: p.hasDeck, Foul: p.foul,
	}
}

// events returns the events log keeps, as a new slice.
func events(log []played) []Event {
	if log == nil {
		return nil
	}
	out := make([]Event, len(log))
	for i, p := range log {
		out[i] = p.event()
	}
	return out
}
