package natsstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/game/journaltest"
	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/natsconn/natstest"
)

// opened is a journal on a connection of its own: Close closes both, the
// journal first, as a node does.
type opened struct{ *Journal }

func (o *opened) Close() error { return errors.Join(o.Journal.Close(), o.conn.Close()) }

// openOn opens a connection as cc says, and a journal on it as sc says.
func openOn(ctx context.Context, cc natsconn.Config, sc Config) (*opened, error) {
	conn, err := natsconn.Open(ctx, cc)
	if err != nil {
		return nil, err
	}
	j, err := Open(ctx, conn, sc)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &opened{j}, nil
}

// open opens a journal on an embedded server in dir, closed when the test
// ends, logging through t.
func open(t testing.TB, dir string) *opened {
	t.Helper()
	j, err := openOn(t.Context(), natsconn.Config{Dir: dir, Logger: testLogger(t)}, Config{})
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() {
		if err := j.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return j
}

// openShards opens a journal of n shards on an embedded server in dir,
// closed when the test ends.
func openShards(t testing.TB, dir string, n int) *opened {
	t.Helper()
	j, err := openOn(t.Context(), natsconn.Config{Dir: dir, Logger: testLogger(t)}, Config{Shards: n})
	if err != nil {
		t.Fatalf("Open(%s, %d shards): %v", dir, n, err)
	}
	t.Cleanup(func() {
		if err := j.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return j
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type tlog struct{ t testing.TB }

func (w tlog) Write(p []byte) (int, error) {
	w.t.Logf("%s", strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func TestJournal(t *testing.T) {
	j := open(t, t.TempDir()) // one server for every subtest
	journaltest.Run(t, func(*testing.T) game.Journal { return j })

	// Every read deleted its consumer.
	info, err := j.stream.Info(t.Context())
	if err != nil {
		t.Fatalf("stream info: %v", err)
	}
	if n := info.State.Consumers; n != 0 {
		t.Errorf("after the reads the stream has %d consumers, want 0", n)
	}
}

// TestJournalShards runs the suite against a journal whose lanes are
// spread over three streams: every shard gets lanes, and every read
// deleted its consumer.
func TestJournalShards(t *testing.T) {
	j := openShards(t, t.TempDir(), 3)
	journaltest.Run(t, func(*testing.T) game.Journal { return j })
	for _, s := range j.shards {
		info, err := s.stream.Info(t.Context())
		if err != nil {
			t.Fatalf("stream %s info: %v", s.name, err)
		}
		if info.State.Msgs == 0 && info.State.LastSeq == 0 {
			t.Errorf("stream %s never had a message: the suite's lanes all went elsewhere", s.name)
		}
		if n := info.State.Consumers; n != 0 {
			t.Errorf("after the reads stream %s has %d consumers, want 0", s.name, n)
		}
	}
}

// TestURL runs the suite against a NATS server of its own, reached over
// TCP as an external server or cluster is.
func TestURL(t *testing.T) {
	url := natstest.StartServer(t)
	j, err := openOn(t.Context(), natsconn.Config{URL: url, Replicas: 1, Logger: testLogger(t)}, Config{})
	if err != nil {
		t.Fatalf("Open(URL %s): %v", url, err)
	}
	t.Cleanup(func() { j.Close() })
	if err := j.Check(t.Context()); err != nil {
		t.Errorf("Check: %v", err)
	}
	journaltest.Run(t, func(*testing.T) game.Journal { return j })
}

// TestReopen closes the journal and opens it again on the same directory:
// every lane comes back as it was, and appends go on from there.
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	j, err := openOn(ctx, natsconn.Config{Dir: dir, Logger: testLogger(t)}, Config{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	last := map[string]uint64{}
	add := func(j *opened, lane string, e game.Event) {
		t.Helper()
		pos, err := j.Append(ctx, lane, last[lane], e)
		if err != nil {
			t.Fatalf("Append(%s, after %d): %v", lane, last[lane], err)
		}
		last[lane] = pos
	}
	var states []*game.State
	for i := range 3 {
		lane := fmt.Sprintf("lane-%d", i)
		s := new(game.State)
		for _, e := range []game.Event{game.Open(lane, "Lane", 4), s.Claim("a")} {
			s.Apply(e)
			add(j, lane, e)
		}
		states = append(states, s)
	}
	add(j, "lane-1", states[1].Snapshot())
	before, err := j.Lanes(ctx)
	if err != nil {
		t.Fatalf("Lanes: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	j = open(t, dir)
	after, err := j.Lanes(ctx)
	if err != nil {
		t.Fatalf("Lanes after reopening: %v", err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Errorf("Lanes after reopening = %+v\nwant %+v", after, before)
	}
	add(j, "lane-2", states[2].Claim("b"))
	if _, err := j.Append(ctx, "lane-0", last["lane-0"]-1, states[0].Claim("b")); !errors.Is(err, game.ErrConflict) {
		t.Errorf("Append after a stale position, reopened: %v, want an error wrapping game.ErrConflict", err)
	}
}

// TestRetriedAppend appends again what was appended, as a caller does when
// an append's answer is lost: the append is found in, not a conflict.
func TestRetriedAppend(t *testing.T) {
	j := open(t, t.TempDir())
	ctx := t.Context()
	roll := game.Event{Kind: game.Rolled, Player: "ABC", Frame: 1, Ball: 1, Pins: 7}
	other := roll
	other.Pins = 3

	p1, err := j.Append(ctx, "retry", 0, game.Open("retry", "Retry", 2))
	if err != nil {
		t.Fatal(err)
	}
	p2, err := j.Append(ctx, "retry", p1, roll)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := j.Append(ctx, "retry", p1, roll); got != p2 || err != nil {
		t.Errorf("the same append again = %d, %v; want %d, nil (it is in)", got, err, p2)
	}
	if got, err := j.Append(ctx, "retry", p1, other); !errors.Is(err, game.ErrConflict) {
		t.Errorf("another event after the same position = %d, %v; want an error wrapping game.ErrConflict", got, err)
	}
	if _, err := j.Append(ctx, "retry", p2, other); err != nil {
		t.Fatal(err)
	}
	// Once the lane has moved on, the retry is a conflict: the caller must
	// read the lane to learn what happened.
	if got, err := j.Append(ctx, "retry", p1, roll); !errors.Is(err, game.ErrConflict) {
		t.Errorf("the first append again after another = %d, %v; want an error wrapping game.ErrConflict", got, err)
	}
}

// TestStoreDown checks that once the store is gone an append fails within
// its deadline, and not with a conflict, which would tell the lane that
// another server took it.
func TestStoreDown(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(j *opened)
	}{
		{"connection closed", func(j *opened) { j.nc.Close() }},
		{"NATS closed", func(j *opened) { j.Close() }}, // the embedded server shut down too
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := open(t, t.TempDir())
			last, err := j.Append(t.Context(), "down", 0, game.Open("down", "Down", 2))
			if err != nil {
				t.Fatal(err)
			}
			if err := j.Check(t.Context()); err != nil {
				t.Errorf("Check while up: %v", err)
			}
			tc.stop(j)

			const deadline = time.Second
			ctx, cancel := context.WithTimeout(t.Context(), deadline)
			defer cancel()
			start := time.Now()
			_, err = j.Append(ctx, "down", last, game.Event{Kind: game.Claimed, Epoch: 1, Node: "a"})
			if took := time.Since(start); took > deadline+200*time.Millisecond {
				t.Errorf("Append took %v, want at most its deadline of %v", took, deadline)
			}
			if err == nil || errors.Is(err, game.ErrConflict) {
				t.Errorf("Append with the store down: %v, want an error that is not game.ErrConflict", err)
			}
			t.Logf("Append: %v", err)
			if _, err := j.Read(ctx, "down", 0); err == nil {
				t.Errorf("Read with the store down: no error")
			} else {
				t.Logf("Read: %v", err)
			}
			if err := j.Check(t.Context()); err == nil {
				t.Errorf("Check with the store down: no error")
			} else {
				t.Logf("Check: %v", err)
			}
		})
	}
}

func TestLaneID(t *testing.T) {
	j := open(t, t.TempDir())
	for _, id := range []string{"", "a.b", "a*", ">", "a b", "a\tb", "a\nb", "\x00"} {
		if _, err := j.Append(t.Context(), id, 0, game.Open(id, "Bad", 2)); !errors.Is(err, ErrLaneID) {
			t.Errorf("Append(%q) = %v, want an error wrapping ErrLaneID", id, err)
		}
		if _, err := j.Read(t.Context(), id, 0); !errors.Is(err, ErrLaneID) {
			t.Errorf("Read(%q) = %v, want an error wrapping ErrLaneID", id, err)
		}
	}
	for _, id := range []string{"7f3c9a2e-4b1d-4c8e-9f00-1a2b3c4d5e6f", "lane_1", "Ünï"} {
		if _, err := j.Append(t.Context(), id, 0, game.Open(id, "Good", 2)); err != nil {
			t.Errorf("Append(%q) = %v, want nil", id, err)
		}
	}
}

// TestLanesWithAnUndecodableEvent: an event this version cannot decode
// (written by a later one) marks its lane's log, and the other lanes come
// back whole.
func TestLanesWithAnUndecodableEvent(t *testing.T) {
	j := open(t, t.TempDir())
	ctx := t.Context()
	if _, err := j.Append(ctx, "good", 0, game.Open("good", "Good", 4)); err != nil {
		t.Fatal(err)
	}
	pos, err := j.Append(ctx, "bad", 0, game.Open("bad", "Bad", 4))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.js.Publish(ctx, SubjectPrefix+"bad", []byte(`{"v":99,"kind":"hologram"}`)); err != nil {
		t.Fatal(err)
	}
	logs, err := j.Lanes(ctx)
	if err != nil || len(logs) != 2 {
		t.Fatalf("Lanes = %d logs, %v; want 2 and no error", len(logs), err)
	}
	good, bad := logs[0], logs[1]
	if good.Lane != "good" || good.Err != nil || len(good.Events) != 1 {
		t.Errorf("the good lane's log = %+v", good)
	}
	if bad.Lane != "bad" || bad.Err == nil || len(bad.Events) != 1 || bad.Events[0].Kind != game.Opened || bad.Last <= pos {
		t.Errorf("the bad lane's log = %+v; want its opening, an error, and its last position", bad)
	}
}

// TestLargestEvent: the embedded server stores an event as large as a
// lane's largest snapshot may be (NATS's default limit is 1 MiB).
func TestLargestEvent(t *testing.T) {
	j := open(t, t.TempDir())
	e := game.Open("big", strings.Repeat("x", game.MaxEventSize-1024), 0)
	data, err := game.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) <= 1<<20 || len(data) > game.MaxEventSize {
		t.Fatalf("the event is %d bytes: want more than NATS's default limit, at most %d", len(data), game.MaxEventSize)
	}
	pos, err := j.Append(t.Context(), "big", 0, e)
	if err != nil {
		t.Fatalf("append an event of %d bytes: %v", len(data), err)
	}
	log, err := j.Read(t.Context(), "big", 0)
	if err != nil || len(log.Events) != 1 || log.Last != pos || log.Events[0].Name != e.Name {
		t.Fatalf("read back %d events to %d, %v", len(log.Events), log.Last, err)
	}
}
