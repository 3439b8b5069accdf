package natsstore

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby/natsconn"
)

var benchLanes = flag.Int("bench.lanes", 1000, "lanes of 30 events that BenchmarkLanes reads")

var roll = game.Event{Kind: game.Rolled, Player: "ABC", Frame: 4, Ball: 2, Pins: 6}

// BenchmarkAppend measures fenced appends of a roll: one after another to
// one lane, with no deadline and with the deadline a lane gives each
// append; and from parallel goroutines each to a lane of its own (eight a
// CPU: a lane spends most of an append waiting). The allocations count
// the embedded server's with the client's, and so does cpu-ns/op, the
// process's CPU time an append, which, unlike ns/op, does not count time
// spent waiting, nor other processes' use of the machine.
func BenchmarkAppend(b *testing.B) {
	ctx := context.Background()
	oneLane := func(b *testing.B, timeout time.Duration) {
		j := open(b, b.TempDir())
		var last uint64
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			ctx, cancel := ctx, context.CancelFunc(nil)
			if timeout > 0 {
				ctx, cancel = context.WithTimeout(ctx, timeout)
			}
			pos, err := j.Append(ctx, "bench", last, roll)
			if cancel != nil {
				cancel()
			}
			if err != nil {
				b.Fatal(err)
			}
			last = pos
		}
	}
	b.Run("OneLane", func(b *testing.B) { oneLane(b, 0) })
	b.Run("OneLaneDeadline", func(b *testing.B) { oneLane(b, natsconn.DefaultTimeout) })
	b.Run("Parallel", func(b *testing.B) {
		j := open(b, b.TempDir())
		var lanes atomic.Int64
		b.ReportAllocs()
		b.SetParallelism(8)
		defer reportCPU(b)()
		b.RunParallel(func(pb *testing.PB) {
			lane := fmt.Sprintf("bench-%d", lanes.Add(1))
			var last uint64
			for pb.Next() {
				pos, err := j.Append(ctx, lane, last, roll)
				if err != nil {
					b.Error(err)
					return
				}
				last = pos
			}
		})
	})
}

// reportCPU starts counting the process's CPU time; the function it
// returns reports it as cpu-ns/op.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if used := cpuTime() - start; used > 0 && b.N > 0 {
			b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}

// BenchmarkRead measures reading back a lane of 30 events.
func BenchmarkRead(b *testing.B) {
	ctx := context.Background()
	j := open(b, b.TempDir())
	var last uint64
	for range 30 {
		var err error
		if last, err = j.Append(ctx, "bench", last, roll); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		log, err := j.Read(ctx, "bench", 0)
		if err != nil || len(log.Events) != 30 {
			b.Fatalf("Read = %d events, %v; want 30", len(log.Events), err)
		}
	}
}

// BenchmarkLanes measures reading every lane back, as a server does when
// it starts: -bench.lanes lanes of 30 events.
func BenchmarkLanes(b *testing.B) {
	ctx := context.Background()
	j := open(b, b.TempDir())
	data, err := game.Marshal(roll)
	if err != nil {
		b.Fatal(err)
	}
	// Unfenced and asynchronous: filling the store is not what is measured.
	start := time.Now()
	for i := range 30 * *benchLanes {
		if _, err := j.js.PublishAsync(fmt.Sprintf("%slane-%d", SubjectPrefix, i%*benchLanes), data); err != nil {
			b.Fatal(err)
		}
		if i%1000 == 999 {
			<-j.js.PublishAsyncComplete()
		}
	}
	<-j.js.PublishAsyncComplete()
	b.Logf("stored %d lanes × 30 events in %v", *benchLanes, time.Since(start))
	b.ReportAllocs()
	for b.Loop() {
		logs, err := j.Lanes(ctx)
		if err != nil || len(logs) != *benchLanes {
			b.Fatalf("Lanes = %d lanes, %v; want %d", len(logs), err, *benchLanes)
		}
	}
	b.ReportMetric(float64(*benchLanes*30), "events/op")
}

// BenchmarkBowler measures what a bowler costs the store: Add, a game's
// end (the game stored, then the record, from the record this node last
// wrote), and Get, a record read; each with its values sealed and opened
// under the bowler's data key, cached after the first.
func BenchmarkBowler(b *testing.B) {
	ctx := context.Background()
	j := open(b, b.TempDir())
	bw, err := j.Bowlers(ctx)
	if err != nil {
		b.Fatal(err)
	}
	at := time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC)
	r, err := bw.Create(ctx, bowler.NewID(), bowler.HashKey("phone"), "Kim", at)
	if err != nil {
		b.Fatal(err)
	}
	marks := []string{"X", "9/", "X", "X", "81", "X", "9/", "X", "X", "X9/"}
	b.Run("Add", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		n := 0
		for b.Loop() {
			// Three games a night on a lane, as a league bowls them.
			g := bowler.Game{Lane: fmt.Sprint("night", n/3), LaneName: "Friday", Game: n%3 + 1, At: at.Add(time.Duration(n) * time.Minute), Name: "Kim", Score: 211, Marks: marks}
			if _, _, err := bw.Add(ctx, r.ID, g); err != nil {
				b.Fatal(err)
			}
			n++
		}
	})
	b.Run("Get", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			if _, err := bw.Get(ctx, r.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Sealing and opening alone, of the record as the games left it.
	got, err := bw.Get(ctx, r.ID)
	if err != nil {
		b.Fatal(err)
	}
	record, err := json.Marshal(got)
	if err != nil {
		b.Fatal(err)
	}
	sealed, err := bw.seal(ctx, r.ID, recordKey(r.ID), record)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Seal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(record)))
		for b.Loop() {
			if _, err := bw.seal(ctx, r.ID, recordKey(r.ID), record); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Open", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(record)))
		for b.Loop() {
			if _, err := bw.open(ctx, r.ID, recordKey(r.ID), sealed); err != nil {
				b.Fatal(err)
			}
		}
	})
}
