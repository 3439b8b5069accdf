package natsstore

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/natsconn/natstest"
)

// logWatch is a log that writes to the test's and tells when a line
// containing a given text is first written.
type logWatch struct {
	t    testing.TB
	text string
	once sync.Once
	seen chan struct{}
	mu   sync.Mutex
	all  strings.Builder
}

func watchLog(t testing.TB, text string) (*slog.Logger, *logWatch) {
	w := &logWatch{t: t, text: text, seen: make(chan struct{})}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})), w
}

func (w *logWatch) Write(p []byte) (int, error) {
	line := string(p)
	w.t.Logf("%s", strings.TrimSuffix(line, "\n"))
	w.mu.Lock()
	w.all.WriteString(line)
	w.mu.Unlock()
	if strings.Contains(line, w.text) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *logWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}

// TestOpenWaitsForTheClusterToElect: a node started against an external
// NATS cluster before its servers have met and elected a JetStream meta
// leader waits for them, saying what it waits for, and comes up with
// three copies of the stream and of every bucket once they have.
func TestOpenWaitsForTheClusterToElect(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a NATS election")
	}
	c := natstest.NewCluster(t, 3)
	c.Start(0) // one of three: no quorum, so no meta leader
	logger, log := watchLog(t, "waiting for NATS")
	type result struct {
		j   *opened
		err error
	}
	done := make(chan result, 1)
	go func() {
		j, err := openOn(context.Background(), natsconn.Config{URL: c.URLs(), Node: "n1", ClusterWait: time.Minute, Logger: logger}, Config{Shared: true})
		done <- result{j, err}
	}()
	select {
	case <-log.seen:
	case o := <-done:
		if o.j != nil {
			o.j.Close()
		}
		t.Fatalf("Open with one NATS server of three returned %v before waiting for the others", o.err)
	case <-time.After(30 * time.Second):
		t.Fatal("Open logged no wait in 30 s")
	}
	c.Start(1)
	c.Start(2)
	var o result
	select {
	case o = <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("Open did not return within 90 s of the cluster's start")
	}
	if o.err != nil {
		t.Fatalf("Open: %v", o.err)
	}
	j := o.j
	t.Cleanup(func() { j.Close() })
	ctx := t.Context()
	info, err := j.stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := info.Config.Replicas; r != 3 {
		t.Errorf("the stream has %d replicas, want 3", r)
	}
	if _, err := j.Archive(ctx, time.Hour); err != nil {
		t.Fatalf("Archive: %v", err)
	}
	if _, err := j.Bowlers(ctx); err != nil {
		t.Fatalf("Bowlers: %v", err)
	}
	for _, bucket := range []string{ArchiveBucket, BowlersBucket} {
		kv, err := j.js.KeyValue(ctx, bucket)
		if err != nil {
			t.Fatalf("bucket %s: %v", bucket, err)
		}
		st, err := kv.Status(ctx)
		if err != nil {
			t.Fatalf("bucket %s: %v", bucket, err)
		}
		if r := st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config.Replicas; r != 3 {
			t.Errorf("bucket %s has %d replicas, want 3", bucket, r)
		}
	}
	if !strings.Contains(log.String(), "meta leader") && !strings.Contains(log.String(), "JetStream does not answer") {
		t.Errorf("the log does not say what Open waited for:\n%s", log)
	}
}

// TestOpenRefusesFewerServersThanReplicas: at a URL a journal keeps three
// copies unless told otherwise, so a single NATS server is refused at
// once, with an error that says why; one copy is kept only when asked,
// with a warning.
func TestOpenRefusesFewerServersThanReplicas(t *testing.T) {
	url := natstest.StartServer(t)
	start := time.Now()
	j, err := openOn(t.Context(), natsconn.Config{URL: url, Logger: testLogger(t)}, Config{})
	if j != nil {
		j.Close()
	}
	if !errors.Is(err, natsconn.ErrFewServers) || !strings.Contains(err.Error(), "single server") {
		t.Fatalf("Open(a single server, default replicas) = %v, want natsconn.ErrFewServers saying it is a single server", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the refusal took %v: it should not wait", d)
	}

	logger, log := watchLog(t, "replicas 1")
	j, err = openOn(t.Context(), natsconn.Config{URL: url, Replicas: 1, Logger: logger}, Config{})
	if err != nil {
		t.Fatalf("Open(a single server, 1 replica): %v", err)
	}
	j.Close()
	select {
	case <-log.seen:
	default:
		t.Errorf("no warning of one copy in the log:\n%s", log)
	}
}

// TestOpenSaysTheClusterIsTooSmall: three copies asked of a cluster of
// two servers: Open waits for a third, then says so.
func TestOpenSaysTheClusterIsTooSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a NATS election")
	}
	urls := natstest.StartCluster(t, 2)
	j, err := openOn(t.Context(), natsconn.Config{URL: urls, Node: "n1", ClusterWait: 25 * time.Second, Logger: testLogger(t)}, Config{Shared: true})
	if j != nil {
		j.Close()
	}
	t.Logf("Open: %v", err)
	if !errors.Is(err, natsconn.ErrFewServers) || !strings.Contains(err.Error(), "fewer than 3 servers") {
		t.Fatalf("Open(3 replicas on 2 servers) = %v, want natsconn.ErrFewServers saying fewer than 3 servers answered", err)
	}
}
