package lobby_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/lobby/sheet"
)

// TestExportsAsBuiltAfresh: a lane's games, games.csv and scorecards,
// made of its finished games' parts built once and kept, are byte for
// byte what building them afresh from the lane's games writes, at every
// step of a night: a game in play, a correction, a game over and corrected, the
// series with the next game, and a series past its longest, whose games
// all move down a number.
func TestExportsAsBuiltAfresh(t *testing.T) {
	j := memjournal.New()
	const long = "hundredxyz"
	r := rand.New(rand.NewPCG(1, 2))
	series := make([]game.Result, game.MaxSeries)
	for i := range series {
		series[i].Players = []game.Score{{Name: "Ann", Game: randomGame(r)}, {Name: "홍길동", Game: randomGame(r), Left: i%7 == 0}}
		if i%10 == 0 {
			series[i].Corrections = []game.Event{{Kind: game.Corrected, Player: "Ann", Frame: 1, Ball: 1, Pins: 3, Was: 4, By: "홍길동", At: time.Date(2026, 11, 27, 20, 0, i, 0, time.UTC)}}
		}
	}
	snap := game.Event{Kind: game.Snapshot, Snapshot: &game.LaneSnapshot{ID: long, Name: "A hundred games", MaxPlayers: 8, Series: series, Played: 250}}
	if _, err := j.Append(context.Background(), long, 0, snap); err != nil {
		t.Fatal(err)
	}
	// Each step asks from an address of its own: the exports' rate is
	// not what is tested.
	trust := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	s, _ := startServer(t, lobby.Config{Lane: lane.Config{Journal: j}, TrustProxy: trust}, func(lb *lobby.Lobby) {
		if n, err := lb.Restore(context.Background()); n != 1 || err != nil {
			t.Fatalf("Restore = %d, %v; want the lane of a hundred games", n, err)
		}
	})
	fresh := s.createLane(t, "Friday night")
	// play rolls frames from frame from, its balls from ball 1 or from
	// those in ball's place.
	play := func(c *client, tag string, from, ball int, frames [][]int) func(*testing.T) {
		return func(t *testing.T) {
			for f, balls := range frames {
				for i, pins := range balls {
					if f > 0 {
						ball = 1
					}
					roll(t, c, from+f, ball+i, pins, fmt.Sprintf("%s-%d-%d", tag, from+f, ball+i))
				}
			}
		}
	}
	send := func(c *client, m map[string]any) func(*testing.T) {
		return func(t *testing.T) {
			c.send(t, m)
			c.expectAck(t, m["id"].(string))
		}
	}
	type step struct {
		name string
		do   func(*testing.T)
	}
	a, b := s.dial(t, fresh), s.dial(t, long)
	for _, ln := range []struct {
		name  string
		id    string
		c     *client
		steps []step
	}{
		{"a new lane", fresh, a, []step{
			{"nobody seated", func(*testing.T) {}},
			{"seated", func(t *testing.T) { a.join(t, "Mina") }},
			{"a game in play", func(t *testing.T) {
				send(a, map[string]any{"type": "start", "id": "s1"})(t)
				play(a, "g1", 1, 1, [][]int{{9, 0}, {7}})(t)
			}},
			{"a ball of it corrected", send(a, map[string]any{"type": "correct", "frame": 1, "ball": 1, "pins": 8, "id": "c1"})},
			{"the game over", play(a, "g1", 2, 2, [][]int{{3}, {10}, {0, 0}, {1, 2}, {3, 4}, {5, 5}, {10}, {9, 0}, {10, 10, 10}})},
			{"a ball of the game over corrected", send(a, map[string]any{"type": "correct", "frame": 10, "ball": 3, "pins": 9, "id": "c2"})},
			{"the game in the series, the next waiting", send(a, map[string]any{"type": "rematch", "id": "m1"})},
			{"the next in play", func(t *testing.T) {
				send(a, map[string]any{"type": "start", "id": "s2"})(t)
				play(a, "g2", 1, 1, [][]int{{10}, {4}})(t)
			}},
			{"two in the series", func(t *testing.T) {
				play(a, "g2", 2, 2, [][]int{{0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}})(t)
				send(a, map[string]any{"type": "rematch", "id": "m2"})(t)
				send(a, map[string]any{"type": "start", "id": "s3"})(t)
			}},
		}},
		{"a hundred games", long, b, []step{
			{"a hundred games, nobody seated", func(*testing.T) {}},
			{"a game in play", func(t *testing.T) {
				b.join(t, "Ann")
				send(b, map[string]any{"type": "start", "id": "s1"})(t)
				play(b, "g1", 1, 1, [][]int{{1, 2}})(t)
			}},
			{"the game over", play(b, "g1", 2, 1, [][]int{{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {5, 5, 5}})},
			{"past the longest series: every game a number down", send(b, map[string]any{"type": "rematch", "id": "m1"})},
			{"and the next in play", func(t *testing.T) {
				send(b, map[string]any{"type": "start", "id": "s2"})(t)
				play(b, "g2", 1, 1, [][]int{{6}})(t)
			}},
			{"two games past", func(t *testing.T) {
				play(b, "g2", 1, 2, [][]int{{4}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}})(t)
				send(b, map[string]any{"type": "rematch", "id": "m2"})(t)
			}},
		}},
	} {
		for i, step := range ln.steps {
			addr := fmt.Sprintf("10.0.%d.%d", len(ln.name), i+1)
			t.Run(ln.name+"/"+step.name, func(t *testing.T) {
				step.do(t)
				// Twice: the second from the parts the first kept.
				for range 2 {
					l, ok := s.lobby.Get(ln.id)
					if !ok {
						t.Fatalf("lane %s is not running", ln.id)
					}
					want, err := json.Marshal(l.Games())
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, '\n')
					var wantCSV bytes.Buffer
					if err := sheet.CSV(&wantCSV, l.Games()); err != nil {
						t.Fatal(err)
					}
					wants := map[string][]byte{"/games": want, "/games.csv": wantCSV.Bytes()}
					for _, n := range []int{1, 2, 57, 100, 101} {
						g, ok := l.Game(n)
						if !ok {
							continue
						}
						for _, lang := range []string{"en", "ko"} {
							var svg bytes.Buffer
							if err := sheet.SVG(&svg, g, sheet.Card{Lane: l.Name(), Date: time.Now(), Lang: lang}); err != nil {
								t.Fatal(err)
							}
							wants[fmt.Sprintf("/games/%d.svg?lang=%s", n, lang)] = svg.Bytes()
						}
					}
					for path, want := range wants {
						if got := getFrom(t, s.srv.URL+"/api/lanes/"+ln.id+path, addr); !bytes.Equal(got, want) {
							t.Errorf("GET %s differs from it built afresh at byte %d:\ngot  %s\nwant %s", path, firstDiff(got, want), around(got, want), around(want, got))
						}
					}
				}
			})
		}
	}
}

// getFrom fetches url as a request from addr, behind a proxy, and
// returns its body if it is answered 200.
func getFrom(t *testing.T, url, addr string) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("X-Forwarded-For", addr)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v:\n%s", url, res.StatusCode, err, body)
	}
	return body
}

// firstDiff is the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// around is a near where it first differs from b.
func around(a, b []byte) string {
	i := firstDiff(a, b)
	return fmt.Sprintf("…%q…", a[max(i-60, 0):min(i+60, len(a))])
}

// randomGame is a finished game of random balls, each named by the pins
// it leaves standing (so its leaves are known), as the pin deck enters
// them.
func randomGame(r *rand.Rand) bowling.Game {
	var g bowling.Game
	for !g.Over() {
		rack, ok := g.Rack()
		if !ok {
			g.Roll(r.IntN(g.Standing() + 1))
			continue
		}
		pins := rack.Pins()
		r.Shuffle(len(pins), func(i, j int) { pins[i], pins[j] = pins[j], pins[i] })
		d, _ := bowling.NewDeck(pins[:r.IntN(len(pins)+1)]...)
		g.RollDeck(d)
	}
	return g
}
