package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nemesisEnv, when set to a duration, makes TestNemesis the long run:
// TENPIN_NEMESIS=10m go test -run Nemesis -timeout 0 ./cmd/tenpin. The
// README has the command line of a long run without the tests.
const nemesisEnv = "TENPIN_NEMESIS"

// nemesisNATSEnv, when set to the client URLs of an external NATS cluster
// with JetStream, has TestNemesis's nodes use it (-nats) instead of
// embedded servers: see the README for three nats-servers built from the
// module.
const nemesisNATSEnv = "TENPIN_NEMESIS_NATS"

// TestNemesis runs tenpin nemesis: three nodes of an embedded NATS
// cluster under a reconnecting load (6 lanes of two players and a
// spectator), one node at a time killed (SIGKILL, then started again) or
// paused (SIGSTOP, then SIGCONT); every acknowledged roll must be stored
// once, nothing nobody sent may be, and no client may see a board's seq
// go back. The short run has a kill and a pause, and a few more faults at
// random; its first kill is of the node whose server leads the bowlers'
// bucket (-kill-bowlers-leader, on by default), and it fails without
// one. It fits in 90 s under the race detector on two cores.
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
	dir := t.TempDir()
	args := []string{"nemesis", "-dir", dir, "-duration", duration.String(),
		"-lanes", "6", "-players", "2", "-spectators", "1", "-games", "10",
		"-gap", "5s", "-down", "3s", "-pause", "8s"}
	if urls := os.Getenv(nemesisNATSEnv); urls != "" {
		args = append(args, "-nats", urls)
	}
	stdout, stderr, code := runCmd(t, "", args...)
	t.Logf("tenpin %s\n%s", strings.Join(args, " "), stdout)
	if code != 0 {
		for _, n := range []string{"n1", "n2", "n3"} {
			log, _ := os.ReadFile(filepath.Join(dir, n+".log"))
			lines := strings.Split(string(log), "\n")
			t.Logf("the last of %s.log:\n%s", n, strings.Join(lines[max(0, len(lines)-60):], "\n"))
		}
		t.Fatalf("nemesis exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if testing.Verbose() {
		t.Logf("stderr:\n%s", stderr)
	}
}

// A nemesis that cannot kill the bowlers' bucket leader as asked says why
// and starts nothing: not even its directory is made.
func TestNemesisRefusesALeaderKillItCannotMake(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-nats", "nats://127.0.0.1:4222", "-kill-bowlers-leader"}, "-natscluster"},
		{[]string{"-no-kill", "-kill-bowlers-leader"}, "-no-kill"},
		{[]string{"-nats", "nats://127.0.0.1:4222", "-natscluster", "/tmp/natscluster"}, "not both"},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		args := append([]string{"nemesis", "-dir", dir}, tc.args...)
		_, stderr, code := runCmd(t, "", args...)
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("tenpin %s: exit %d, %q; want 1 and %q", strings.Join(args, " "), code, stderr, tc.want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("tenpin %s made its directory (%v)", strings.Join(args, " "), err)
		}
	}
}
