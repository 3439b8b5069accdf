//go:build unix

package lane

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/game"
)

// benchGames plays whole games of four players and six spectators on a
// lane that stores in j, each an op: every roll, the game's end, the
// rematch and the start of the next. With svc, the four are remembered
// bowlers, and each game's end is added to their histories before the
// next op (the lane's goroutine does not wait for it; the benchmark
// does, to count its CPU). cpu-ns/op is the process's CPU time a game:
// the lane's, the store's server's, and the recording's.
func benchGames(b *testing.B, j game.Journal, svc bowler.Service) {
	ctx := context.Background()
	l, err := Open(ctx, "bench", "bench", Config{MaxSpectators: 7, Journal: j, Bowlers: svc})
	if err != nil {
		b.Fatal(err)
	}
	var players []*Client
	for i := range 4 {
		c := attach(l)
		l.send(c, fmt.Sprintf(`{"type":"join","name":"Player %c","remember":%v}`, 'A'+i, svc != nil))
		players = append(players, c)
	}
	for range 6 {
		attach(l)
	}
	l.send(players[0], `{"type":"start"}`)
	pins := 0
	start := processCPU()
	b.ReportAllocs()
	for b.Loop() {
		for l.state.Phase() != game.Finished {
			rollOnce(l, players, &pins)
		}
		rollOnce(l, players, &pins) // the rematch, which makes the game final, and the next game's start
		l.bw.wg.Wait()
		for len(l.inbox) > 0 {
			l.handle(ctx, <-l.inbox)
		}
	}
	b.ReportMetric(float64((processCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	if svc != nil {
		if id, ok := l.state.Bowler("Player A"); !ok || l.bw.known[id] == nil || l.bw.known[id].games < b.N {
			b.Fatalf("Player A's games were not all recorded: %v %v %+v of %d", id, ok, l.bw.known, b.N)
		}
	}
}

// processCPU returns the CPU time the process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
