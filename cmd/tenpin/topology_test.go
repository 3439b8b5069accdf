package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/tenpin/tenpin/lobby/natsconn/natstest"
)

// TestServeOnASingleNATSServer: with -nats a server keeps three copies of
// the lanes unless told otherwise, so a single NATS server is refused at
// start, saying why and what to do; -replicas 1 serves on it, saying that
// the lanes stop while that server is down.
func TestServeOnASingleNATSServer(t *testing.T) {
	url := natstest.StartServer(t)
	_, stderr, code := runCmd(t, "", "serve", "-addr", "127.0.0.1:0", "-nats", url)
	if code != 1 || !strings.Contains(stderr, "single server") || !strings.Contains(stderr, "-replicas 1") {
		t.Errorf("serve -nats (a single server): status %d, %q; want 1 and an error saying it is a single server, naming -replicas 1", code, stderr)
	}

	// The server stops once it says where it keeps the lanes.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := &stopAt{text: "tenpin lanes:", stop: cancel}
	var errOut bytes.Buffer
	err := run(ctx, []string{"serve", "-addr", "127.0.0.1:0", "-nats", url, "-replicas", "1", "-log-level", "warn"}, strings.NewReader(""), out, &errOut)
	if code := exitCode(err, io.Discard); code != 0 {
		t.Fatalf("serve -nats -replicas 1: status %d, %v; stderr %s", code, err, &errOut)
	}
	if !strings.Contains(out.buf.String(), "1 copy: the lanes stop while its server is down") {
		t.Errorf("serve -nats -replicas 1 printed %q, want it to say it keeps 1 copy", &out.buf)
	}
	if !strings.Contains(errOut.String(), "replicas 1") {
		t.Errorf("serve -nats -replicas 1 logged %q, want a warning of one copy", &errOut)
	}
}

// stopAt is a writer that calls stop once text has been written to it.
type stopAt struct {
	text string
	stop context.CancelFunc
	mu   sync.Mutex
	buf  bytes.Buffer
}

func (w *stopAt) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.text) {
		w.stop()
	}
	return len(p), nil
}
