package game

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/golden"
)

// everyKind is one event of each kind, with every field its kind has.
func everyKind() []Event {
	roll := Event{Kind: Rolled, Player: "PJS", Frame: 3, Ball: 2, Pins: 0}
	corrected := Event{Kind: Corrected, Player: "BOB", Frame: 3, Ball: 1, Pins: 8, Was: 7, By: "PJS", At: time.Date(2026, 11, 22, 20, 15, 7, 0, time.UTC)}
	invited := Open("i4v7", "Invited", 8)
	invited.Invite = HashToken("the invitation")
	league := OpenPrivate("lg9", "Week 1: Pins v Aces", 2)
	league.League = &LeagueLane{League: "lg1", Week: 1, Games: 3, Teams: [2]string{"Pins", "Aces"},
		Places:  []LeaguePlace{{Name: "Ann", Team: 0}, {Name: "Bob", Team: 1}},
		Invites: [2]TokenHash{HashToken("home"), HashToken("away")}}
	return []Event{
		Open("k3x9mdq2vb", "Friday night", 8),
		OpenPrivate("p7w2", "Our lane", 4),
		invited,
		league,
		{Kind: Invited, Invite: HashToken("a new invitation"), By: "PJS"},
		{Kind: Claimed, Epoch: 2, Node: "n1"},
		{Kind: SeatTaken, Player: "PJS", Token: HashToken("9b2c")},
		{Kind: GameStarted},
		roll,
		{Kind: Rolled, Player: "BOB", Frame: 3, Ball: 1, Pins: 7, By: "PJS"},
		{Kind: PlayerLeft, Player: "BOB"},
		{Kind: PlayerLeft, Player: "BOB", By: "PJS"},
		corrected,
		{Kind: PlayerAway, Player: "BOB", By: "PJS"},
		{Kind: PlayerBack, Player: "BOB"},
		{Kind: NewGame},
		{Kind: NextGame},
		{Kind: Closed, Reason: "idle"},
		{Kind: Snapshot, Snapshot: &LaneSnapshot{
			ID: "k3x9mdq2vb", Name: "Friday night", MaxPlayers: 8, Private: true, Epoch: 2, Invite: HashToken("the invitation"),
			Series: []Result{
				{Players: []Score{{Name: "PJS", Game: replayed(10, 10)}, {Name: "BOB", Left: true}, {Name: "홍길동", Game: splitThenFoul()}}},
				{Players: []Score{{Name: "PJS", Game: replayed(8)}}, Corrections: []Event{corrected}},
			},
			Game: []Event{{Kind: SeatTaken, Player: "PJS", Token: HashToken("9b2c")}, {Kind: GameStarted}, roll},
		}},
		// A league lane's secretary's, from the league's page.
		{Kind: Rolled, Player: "BOB", Frame: 3, Ball: 2, Pins: 2, Secretary: true},
		{Kind: Corrected, Player: "BOB", Frame: 3, Ball: 1, Pins: 8, Was: 7, Secretary: true, At: time.Date(2026, 11, 22, 20, 16, 0, 0, time.UTC)},
		{Kind: PlayerAway, Player: "BOB", Secretary: true},
		{Kind: SeatClaimed, Player: "BOB", Secretary: true},
	}
}

// TestEncodingGolden pins the stored form of every kind of event: a change
// here is a change of what every journal holds.
func TestEncodingGolden(t *testing.T) {
	var out []byte
	for _, e := range everyKind() {
		data, err := Marshal(e)
		if err != nil {
			t.Fatalf("Marshal(%v): %v", e.Kind, err)
		}
		got, err := Unmarshal(data)
		if err != nil {
			t.Fatalf("Unmarshal(%s): %v", data, err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("round trip of %v:\n got %+v\nwant %+v", e.Kind, got, e)
		}
		out = append(append(out, data...), '\n')
	}
	golden.Check(t, "events.golden", out)
}

// TestReplayV1Log replays a lane's log as version 1 wrote it: two players,
// a seat given up before the start, a player leaving mid-game, a finished
// game, claims by two servers, a snapshot and a new game. The file is
// never rewritten: a version that cannot read it must not ship.
func TestReplayV1Log(t *testing.T) {
	f, err := os.Open("testdata/v1-lane.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		e, err := Unmarshal(sc.Bytes())
		if err != nil {
			t.Fatalf("line %d: %v", len(events)+1, err)
		}
		events = append(events, e)
	}
	s := Replay(events)
	if s.ID() != "k3x9mdq2vb" || s.Name() != "Friday night" || s.MaxPlayers() != 8 || s.Epoch() != 2 || s.Phase() != Playing || s.Closed() {
		t.Errorf("lane %q %q, %d seats, epoch %d, %s, closed %v; want k3x9mdq2vb, Friday night, 8, 2, playing, open",
			s.ID(), s.Name(), s.MaxPlayers(), s.Epoch(), s.Phase(), s.Closed())
	}
	series := s.Series()
	if len(series) != 1 {
		t.Fatalf("series holds %d games, want 1", len(series))
	}
	first := series[0].Players
	if len(first) != 2 || first[0].Name != "PJS" || first[0].Total() != 186 || first[1].Name != "BOB" || !first[1].Left || first[1].Total() != 32 {
		t.Errorf("first game = %+v, want PJS 186, BOB 32 (left)", first)
	}
	if name, ok := s.Holder(HashToken("token-pjs")); !ok || name != "PJS" {
		t.Errorf("PJS's token resumes %q, %v", name, ok)
	}
	if _, ok := s.Holder(HashToken("token-ann")); ok {
		t.Error("ANN gave up her seat, but her token still resumes one")
	}
	golden.Check(t, "v1-lane.board", []byte(s.Match().Board()))

	// From its last snapshot on, the log rebuilds the same lane: what a
	// journal that rolled the log up holds.
	i := len(events) - 1
	for events[i].Kind != Snapshot {
		i--
	}
	if rolled := Replay(events[i:]); !equal(rolled, s) {
		t.Errorf("the log from its snapshot rebuilds\n%s\nnot\n%s", rolled.Match().Board(), s.Match().Board())
	}
}

func TestUnmarshalRefuses(t *testing.T) {
	tests := []struct {
		in, why string
	}{
		{``, "EOF"},
		{`[]`, "cannot unmarshal array"},
		{`{"v":2,"kind":"game_started"}`, "version 2"},
		{`{"v":0,"kind":"game_started"}`, "version 0"},
		{`{"v":1}`, `no "kind"`},
		{`{"v":1,"kind":"exploded"}`, `unknown kind "exploded"`},
		{`{"v":1,"kind":"game_started","color":"red"}`, `unknown field "color"`},
		{`{"v":1,"kind":"game_started"} {}`, "data after the event"},
		{`{"v":1,"kind":"opened"}`, `no "lane"`},
		{`{"v":1,"kind":"claimed"}`, `no "epoch"`},
		{`{"v":1,"kind":"seat_taken","player":"PJS","token_sha256":"abc"}`, "not a SHA-256"},
		{`{"v":1,"kind":"seat_taken","player":"P1S","token_sha256":""}`, "invalid name"},
		{`{"v":1,"kind":"rolled","player":"PJS","frame":1,"ball":1}`, `needs "pins"`},
		{`{"v":1,"kind":"rolled","player":"PJS","frame":11,"ball":1,"pins":1}`, `"frame" 1 to 10`},
		{`{"v":1,"kind":"rolled","player":"PJS","frame":1,"ball":4,"pins":1}`, `"ball" 1 to 3`},
		{`{"v":1,"kind":"rolled","player":"PJS","frame":1,"ball":1,"pins":1,"by":"P1"}`, `"by": bowling: invalid name`},
		{`{"v":1,"kind":"player_left"}`, "invalid name"},
		{`{"v":1,"kind":"snapshot"}`, `no "snapshot"`},
		{`{"v":1,"kind":"snapshot","snapshot":{"lane":"l","game":[{"v":1,"kind":"snapshot"}]}}`, "a snapshot inside a snapshot"},
		{`{"v":1,"kind":"snapshot","snapshot":{"lane":"l","series":[{"players":[{"name":"PJS","rolls":[8,5]}]}]}}`, "PJS's series game: roll 2: 5 pins but only 2 standing"},
		{`{"v":1,"kind":"snapshot","snapshot":{"lane":"l","series":[{"players":[{"name":"PJS","rolls":[8,2],"standing":[[7,10]]}]}]}}`, "2 rolls but 1 decks"},
		{`{"v":1,"kind":"snapshot","snapshot":{"lane":"l","series":[{"players":[{"name":"PJS","rolls":[8],"standing":[[7,11]]}]}]}}`, "roll 1: bowling: invalid pins"},
		{`{"v":1,"kind":"snapshot","snapshot":{"lane":"l","series":[{"players":[{"name":"PJS","rolls":[8],"standing":[[7]]}]}]}}`, "PJS's series game"},
		{`{"v":1,"kind":"snapshot","snapshot":{"lane":"l","series":[{"players":[{"name":"PJS","rolls":[0],"fouls":[1]}]}]}}`, "a foul at roll 2 of 1"},
		{`{"v":1,"kind":"snapshot","snapshot":{"lane":"l","series":[{"players":[{"name":"P1S","rolls":[]}]}]}}`, "a series' player: bowling: invalid name"},
	}
	for _, tt := range tests {
		_, err := Unmarshal([]byte(tt.in))
		if !errors.Is(err, ErrEncoding) || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("Unmarshal(%s) = %v, want ErrEncoding saying %q", tt.in, err, tt.why)
		}
	}
}

func TestMarshalRefuses(t *testing.T) {
	for _, e := range []Event{
		{Kind: "exploded"},
		{Kind: Snapshot},
		{Kind: Snapshot, Snapshot: &LaneSnapshot{Game: []Event{{Kind: Snapshot}}}},
	} {
		if _, err := Marshal(e); err == nil {
			t.Errorf("Marshal(%+v) = nil error, want a refusal", e)
		}
	}
}

// replayed returns the game of rolls, for a series in a test.
func replayed(rolls ...int) bowling.Game {
	g, err := bowling.Replay(rolls)
	if err != nil {
		panic(err)
	}
	return g
}

// splitThenFoul returns a game of a 7-10 split made, then a foul and a
// spare: decks and fouls in a series.
func splitThenFoul() bowling.Game {
	split, _ := bowling.NewDeck(7, 10)
	g, err := bowling.ReplayBalls([]bowling.Ball{
		{Pins: 8, Deck: split, HasDeck: true}, {Pins: 2, HasDeck: true}, {Foul: true}, {Pins: 10},
	})
	if err != nil {
		panic(err)
	}
	return g
}

func TestRolledEncodedAsEncodingJSONDoes(t *testing.T) {
	// appendRolled must write what json.Marshal writes for the record:
	// the stored form has one spelling.
	names := []bowling.Name{"", "ANN", "김민지", "Zoë", "a<b", "R&D", "x\u2028y", "\"q\"", "back\\slash"}
	decks := []bowling.Deck{0, bowling.Full, 1 << 0, 1<<6 | 1<<9, 0b1010101010}
	var n int
	for _, player := range names {
		for _, by := range names {
			for i, deck := range decks {
				for _, foul := range []bool{false, true} {
					e := Event{Kind: Rolled, Player: player, By: by, Frame: i * 2, Ball: i % 4, Pins: 10 - i*2,
						Deck: deck, HasDeck: i%2 == 0, Foul: foul, Secretary: foul && i%2 == 1}
					want, err := marshalRecord(e)
					if err != nil {
						t.Fatal(err)
					}
					got, err := Marshal(e)
					if err != nil || !bytes.Equal(got, want) {
						t.Fatalf("Marshal(%+v) = %s, %v; encoding/json writes %s", e, got, err, want)
					}
					if _, fast := appendRolled(nil, e); fast {
						n++
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no event took appendRolled's way")
	}
	if _, fast := appendRolled(nil, Event{Kind: Corrected, Player: "ANN"}); fast {
		t.Error("appendRolled wrote a Corrected event")
	}
}

func BenchmarkMarshalRolled(b *testing.B) {
	e := Event{Kind: Rolled, Player: "ANN", Frame: 4, Ball: 1, Pins: 7, Deck: 1<<6 | 1<<9 | 1<<2, HasDeck: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(e); err != nil {
			b.Fatal(err)
		}
	}
}
