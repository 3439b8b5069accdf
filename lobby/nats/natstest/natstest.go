// Package natstest runs NATS servers for tests, as an operator would run
// them outside tenpin: a tenpin node reaches them with -nats URL. It
// belongs to the tree of lobby/nats, the only one that imports NATS.
package natstest

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// StartServer starts a NATS server with JetStream on a port the OS
// assigns, storing in a temporary directory, and returns its client URL.
// It is shut down when the test ends.
func StartServer(t testing.TB) string {
	t.Helper()
	s, err := server.NewServer(&server.Options{
		JetStream: true, StoreDir: t.TempDir(),
		Host: "127.0.0.1", Port: server.RANDOM_PORT,
		NoSigs: true, NoLog: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("natstest: the NATS server did not start in 10 s")
	}
	return s.ClientURL()
}
