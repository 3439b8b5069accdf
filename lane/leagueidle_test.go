package lane

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lobby/memjournal"
)

// weekOf is a LeagueNight whose week is open or closed as the test says,
// or that does not answer (err): it counts the lane's questions.
type weekOf struct {
	mu    sync.Mutex
	open  bool
	err   error
	asked int
}

func (w *weekOf) Scores(context.Context, string, game.LeagueLane, int, map[bowling.Name]int) (league.MatchSheet, error) {
	return league.MatchSheet{}, errors.New("no sheet in this test")
}

func (w *weekOf) Sheet(context.Context, game.LeagueLane) (league.MatchSheet, error) {
	return league.MatchSheet{}, errors.New("no sheet in this test")
}

func (w *weekOf) WeekOpen(context.Context, game.LeagueLane) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.asked++
	return w.open, w.err
}

func (w *weekOf) set(open bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.open, w.err = open, err
}

// TestLeagueLaneStaysOpenWhileItsWeekIs: a league night's lane nobody is
// on never closes for idleness while its week is open, nor while its
// league does not say (a lane closed by mistake leaves its night to be
// typed in by hand), whether a ball was bowled (the abandon timeout) or
// not (the idle timeout); once the week has closed, it closes at its
// next idle timeout, as any lane does. A lane of friends closes as ever
// (TestIdleLaneCloses).
func TestLeagueLaneStaysOpenWhileItsWeekIs(t *testing.T) {
	const idle, abandon = 5 * time.Minute, time.Hour
	for _, tt := range []struct {
		name   string
		err    error // the league's answer while the week is open
		bowled bool  // a ball was bowled, and its bowler left
	}{
		{name: "open"},
		{name: "league down", err: errors.New("the league's store is down")},
		{name: "abandoned", bowled: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := &game.LeagueLane{League: "lg1", Week: 1, Games: 3, Teams: [2]string{"Pins", "Aces"},
					Places: []game.LeaguePlace{{Name: "Ann", Team: 0}, {Name: "Bob", Team: 1}}}
				week := &weekOf{open: tt.err == nil, err: tt.err}
				l := openLane(t, "league1", Config{Journal: memjournal.New(), League: m, LeagueNight: week, IdleTimeout: idle, AbandonTimeout: abandon})
				done := make(chan error, 1)
				go func() { done <- l.Run(context.Background()) }()
				timeout := idle
				if tt.bowled {
					ann := attachRunning(t, l)
					sendRunning(t, ann, `{"type":"join","name":"Ann","id":"j"}`)
					sendRunning(t, ann, `{"type":"roll","pins":7,"frame":1,"ball":1,"id":"r"}`)
					if r := replies(ann); len(r) != 2 || r[1]["type"] != "ack" {
						t.Fatalf("Ann's join and roll: %v", r)
					}
					ann.Detach()
					timeout = abandon
				}
				synctest.Wait()
				for i := range 3 {
					time.Sleep(timeout)
					timeout = idle // the lane asks its league again every idle timeout
					synctest.Wait()
					select {
					case err := <-done:
						t.Fatalf("the lane closed (%v) after %d idle timeouts with its week open", err, i+1)
					default:
					}
				}
				week.mu.Lock()
				asked := week.asked
				week.mu.Unlock()
				if asked != 3 {
					t.Errorf("the lane asked its league %d times in 3 idle timeouts, want 3", asked)
				}

				week.set(false, nil) // the week closes
				time.Sleep(idle)
				synctest.Wait()
				select {
				case err := <-done:
					if !errors.Is(err, ErrIdle) {
						t.Fatalf("Run = %v, want ErrIdle", err)
					}
				default:
					t.Fatal("the lane is still open an idle timeout after its week closed")
				}
			})
		})
	}
}
