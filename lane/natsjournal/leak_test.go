package natsjournal

import (
	"runtime"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/game"
)

func TestLeakDbg(t *testing.T) {
	j := open(t, t.TempDir())
	ctx := t.Context()
	last, _ := j.Append(ctx, "l", 0, game.Open("l", "L", 2))
	j.Append(ctx, "l", last, game.Event{Kind: game.Claimed, Epoch: 1})
	j.Read(ctx, "l", 0)
	j.Read(ctx, "empty", 0)
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()
	start := time.Now()
	for range 500 {
		if _, err := j.Read(ctx, "l", 0); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Read(ctx, "empty", 0); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Lanes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("1500 reads in %v", time.Since(start))
	time.Sleep(500 * time.Millisecond)
	info, _ := j.stream.Info(ctx)
	t.Logf("goroutines %d -> %d, consumers %d", before, runtime.NumGoroutine(), info.State.Consumers)
}
