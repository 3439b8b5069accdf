package game

import (
	"errors"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
)

// mix returns pins chosen by n, the same for the same n.
func mix(n int) bowling.Deck { return bowling.Deck(uint16(n)*0x9e37) & bowling.Full }

// FuzzDecideApplyReplay decides random commands from three would-be
// players (joins, starts, rolls, corrections, skips, returns, removals,
// leaves, new games, claims, snapshots; rolls and corrections by counts,
// by decks and fouls),
// applies those accepted, and checks after each that a refusal changed
// nothing, and that the log, encoded and decoded, rebuilds the same
// state, from its start and from its last snapshot.
func FuzzDecideApplyReplay(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 10, 10, 10, 4, 5})
	f.Add([]byte{0, 1, 3, 10, 7, 3, 8, 2, 6, 9, 14, 13})
	f.Add([]byte{0, 3, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 5, 9, 12})
	f.Add([]byte{0, 1, 3, 26, 42, 22, 151, 231, 8, 24, 10, 38, 57, 13, 5, 2, 3})
	f.Add([]byte{0, 1, 3, 250, 250, 10, 250, 234, 250, 250, 214, 198, 250, 10, 26, 13, 250})
	names := []bowling.Name{"AAA", "BBB", "CCC"}
	f.Fuzz(func(t *testing.T, data []byte) {
		log := []Event{Open("fz", "fuzz", 2)}
		s := Replay(log)
		snap := 0 // index in log of the last snapshot
		for _, b := range data {
			who := names[int(b/16)%3]
			before, _ := Marshal(s.Snapshot())
			var e Event
			var err error
			switch b % 16 {
			case 0, 1, 2:
				e, err = s.Join(string(names[b%3]), HashToken(string(names[b%3])), TokenHash{})
			case 3:
				e, err = s.Start(who)
			case 4:
				e, err = s.Leave(who)
			case 5:
				e, err = s.NewGame(who)
			case 6: // a correction of some ball of some player, by who
				c := Correction{By: who, For: names[int(b/16)%2], Frame: int(b/16)%10 + 1, Ball: int(b/32)%3 + 1, Pins: int(b) % 11, At: time.Unix(int64(b), 0)}
				switch b / 16 {
				case 12, 14: // to a foul
					c.Pins, c.Foul = 0, true
				case 13, 15: // a first ball, to a deck
					c.Ball, c.HasDeck, c.Deck = 1, true, bowling.Full&^mix(len(log))
					c.Pins = bowling.NumPins - c.Deck.Count()
				}
				e, err = s.Correct(c)
			case 7: // a skip, after the away time or not
				e, err = s.Skip(who, time.Duration(b/16)*time.Second, 8*time.Second)
			case 8:
				var ok bool
				if e, ok = s.Back(who); !ok {
					err = errors.New("nobody away")
				}
			case 9: // a removal, or the host letting a removed player back
				if b&16 == 0 {
					e, err = s.Remove(who, string(names[int(b/32)%3]))
				} else {
					e, err = s.Readmit(who, string(names[int(b/32)%3]))
				}
			case 11: // a correction and a throw of frames and balls no game has, as a client may send them
				huge := (int(b) - 128) << 55
				e, err = s.Correct(Correction{By: who, Frame: int(b)%3 + 1, Ball: huge, Pins: 1})
				if err == nil {
					t.Fatalf("a correction of ball %d was accepted", huge)
				}
				e, err = s.Roll(Throw{By: who, Frame: huge, Ball: huge, Pins: 1})
			case 12:
				e = s.Claim("n")
			case 13:
				e = s.Snapshot()
			case 14: // someone enters the ball of whoever is up, as if offline
				if seat, frame, ok := s.Match().Up(); ok {
					p := s.Match().Players()[seat]
					e, err = s.Roll(Throw{By: who, For: p.Name, Frame: frame, Ball: p.Game.Ball(), Pins: int(b/16) % 11, UpOffline: true})
				} else {
					e, err = s.Roll(Throw{By: who, Frame: 1, Ball: 1})
				}
			case 15: // a stale ball: the one before the one up
				p, _ := s.Match().Player(who)
				e, err = s.Roll(Throw{By: who, Frame: p.Game.CurrentFrame(), Ball: p.Game.Ball() - 1, Pins: 0})
			default:
				p, _ := s.Match().Player(who)
				th := Throw{By: who, Frame: p.Game.CurrentFrame(), Ball: p.Game.Ball(), Pins: int(b/16) - 2}
				rack, known := p.Game.Rack()
				switch b / 16 {
				case 0: // a foul
					th.Pins, th.Foul = 0, true
				case 15: // the pins left standing: some of the rack, or as many as stand
					th.HasDeck, th.Deck = true, rack&^mix(len(log))
					if !known {
						th.Deck = bowling.Full >> (bowling.NumPins - p.Game.Standing() + int(b)%2)
					}
					th.Pins = p.Game.Standing() - th.Deck.Count()
				case 14: // a deck that disagrees with its count
					th.HasDeck, th.Deck, th.Pins = true, rack, 1
					if !known {
						th.Deck, th.Pins = 0, p.Game.Standing()-1
					}
				}
				e, err = s.Roll(th)
				if err == nil && b/16 == 14 {
					t.Fatalf("the roll %+v of a deck that disagrees with its count was accepted", th)
				}
			}
			if err != nil {
				if after, _ := Marshal(s.Snapshot()); string(after) != string(before) {
					t.Fatalf("a refused %v changed the state", e.Kind)
				}
				continue
			}
			s.Apply(e)
			if e.Kind == Snapshot {
				snap = len(log)
			}
			log = append(log, e)
			if got := Replay(roundTrip(t, log)); !equal(got, s) {
				t.Fatalf("after %v the log rebuilds\n%s%s\nnot\n%s%s", e.Kind, got.Match().Board(), got.Phase(), s.Match().Board(), s.Phase())
			}
			if got := Replay(log[snap:]); !equal(got, s) {
				t.Fatalf("after %v the log from its last snapshot rebuilds\n%s\nnot\n%s", e.Kind, got.Match().Board(), s.Match().Board())
			}
			if got := Replay([]Event{s.Snapshot()}); !equal(got, s) {
				t.Fatalf("after %v a snapshot rebuilds\n%s\nnot\n%s", e.Kind, got.Match().Board(), s.Match().Board())
			}
		}
	})
}
