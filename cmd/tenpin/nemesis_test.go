package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// nemesisEnv, when set to a duration, makes TestNemesis the long run:
// TENPIN_NEMESIS=10m go test -run Nemesis -timeout 0 ./cmd/tenpin. The
// README has the command line of a long run without the tests.
const nemesisEnv = "TENPIN_NEMESIS"

// TestNemesis runs tenpin nemesis: three nodes of an embedded NATS
// cluster under a reconnecting load (6 lanes of two players and a
// spectator), one node at a time killed (SIGKILL, then started again) or
// paused (SIGSTOP, then SIGCONT); every acknowledged roll must be stored
// once, nothing nobody sent may be, and no client may see a board's seq
// go back. The short run has a kill and a pause, and a few more faults at
// random; it fits in 90 s under the race detector on two cores.
func TestNemesis(t *testing.T) {
	if testing.Short() {
		t.Skip("three processes form a cluster, killed and paused for half a minute")
	}
	duration := 30 * time.Second
	if s := os.Getenv(nemesisEnv); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("%s=%q: want a duration, such as 10m", nemesisEnv, s)
		}
		duration = d
	}
	args := []string{"nemesis", "-dir", t.TempDir(), "-duration", duration.String(),
		"-lanes", "6", "-players", "2", "-spectators", "1", "-games", "10",
		"-gap", "5s", "-down", "3s", "-pause", "8s"}
	stdout, stderr, code := runCmd(t, "", args...)
	t.Logf("tenpin %s\n%s", strings.Join(args, " "), stdout)
	if code != 0 {
		t.Fatalf("nemesis exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if testing.Verbose() {
		t.Logf("stderr:\n%s", stderr)
	}
}
