package natsstore

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lobby/natsconn"
)

// appendEvents stores an opening and then n-1 more events on lane, and
// returns the sequence of each.
func appendEvents(t *testing.T, j *opened, lane string, n int) []uint64 {
	t.Helper()
	var seqs []uint64
	last := uint64(0)
	for i := range n {
		e := game.Event{Kind: game.Claimed, Epoch: uint64(i), Node: "n1"}
		if i == 0 {
			e = game.Event{Kind: game.Opened, Lane: lane, Name: lane, MaxPlayers: 4}
		}
		seq, err := j.Append(t.Context(), lane, last, e)
		if err != nil {
			t.Fatalf("Append(%s, after %d): %v", lane, last, err)
		}
		seqs, last = append(seqs, seq), seq
	}
	return seqs
}

// takeConsumers creates n consumers of the journal's stream that nobody
// reads with, as other readers (or a stranger) might hold them. Durable:
// an ephemeral one nobody reads with is deleted after 5 s, and under the
// race detector making a thousand took longer (the limit then seemed
// gone).
func takeConsumers(t *testing.T, j *opened, n int) {
	t.Helper()
	for i := range n {
		if _, err := j.stream.CreateConsumer(t.Context(), jetstream.ConsumerConfig{Durable: fmt.Sprint("held-", i), FilterSubject: SubjectPrefix + "nobody"}); err != nil {
			t.Fatalf("consumer %d: %v", i, err)
		}
	}
}

// TestReadBackTakesNoConsumer: a lane reading back the events since it
// last looked asks for them one by one, however many, and so does a read
// of a short lane from its start: they work when the stream has every
// consumer it may have (NATS's default limit, 1,000), and never wait for
// the meta leader that makes one.
func TestReadBackTakesNoConsumer(t *testing.T) {
	j := open(t, t.TempDir())
	seqs := appendEvents(t, j, "short", maxGets)
	long := appendEvents(t, j, "long", 4*maxGets)
	takeConsumers(t, j, 1000)
	if _, err := j.stream.CreateConsumer(t.Context(), jetstream.ConsumerConfig{Name: "one-more"}); err == nil {
		t.Fatal("the stream took a consumer past 1,000: the limit this test relies on is gone")
	}
	for _, after := range []uint64{0, seqs[0], seqs[len(seqs)-2], seqs[len(seqs)-1]} {
		log, err := j.Read(t.Context(), "short", after)
		if err != nil {
			t.Fatalf("Read(after %d) with the stream's consumers all taken: %v", after, err)
		}
		if want := len(seqs) - indexAfter(seqs, after); len(log.Events) != want || (want > 0 && log.Last != seqs[len(seqs)-1]) {
			t.Errorf("Read(after %d): %d events up to %d, want %d up to %d", after, len(log.Events), log.Last, want, seqs[len(seqs)-1])
		}
	}
	log, err := j.Read(t.Context(), "long", long[0])
	if err != nil || len(log.Events) != len(long)-1 || log.Last != long[len(long)-1] {
		t.Fatalf("a read-back of %d events with the stream's consumers all taken: %d events up to %d, %v; want %d up to %d", len(long)-1, len(log.Events), log.Last, err, len(long)-1, long[len(long)-1])
	}
}

// indexAfter returns the index of the first sequence in seqs after after.
func indexAfter(seqs []uint64, after uint64) int {
	for i, s := range seqs {
		if s > after {
			return i
		}
	}
	return len(seqs)
}

// TestLongReadsTakeTurns: reads too long to ask for one message at a
// time take a consumer each, and wait for one of the journal's rather
// than fail when more run at once than the stream has consumers left.
// The 192 reads ask the stream for its info at once, on a stream with a
// thousand consumers: on a loaded machine (a full race run beside
// browser tests) some took longer than the default 2 s a request, which
// is not what this tests, so the journal here waits 10 s.
func TestLongReadsTakeTurns(t *testing.T) {
	j, err := openOn(t.Context(), natsconn.Config{Dir: t.TempDir(), Logger: testLogger(t), Timeout: 10 * time.Second}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	const lanes = 3 * maxConsumers
	for i := range lanes {
		appendEvents(t, j, fmt.Sprint("long-", i), maxGets+4)
	}
	takeConsumers(t, j, 1000-maxConsumers)
	var wg sync.WaitGroup
	errs := make(chan error, lanes)
	for i := range lanes {
		wg.Go(func() {
			log, err := j.Read(t.Context(), fmt.Sprint("long-", i), 0)
			switch {
			case err != nil:
				errs <- err
			case len(log.Events) != maxGets+4:
				errs <- fmt.Errorf("lane long-%d: %d events, want %d", i, len(log.Events), maxGets+4)
			}
		})
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if failed++; failed <= 3 {
			t.Error(err)
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d reads at once failed", failed, lanes)
	}
}
