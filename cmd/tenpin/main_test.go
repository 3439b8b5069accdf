package main

import (
	"bytes"
	"context"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tenpin/tenpin/lane/golden"
)

// TestMain points the server's default data directory at a temporary one:
// a test that serves without -data must not touch the user's lanes.
//
// With childEnv set, the test binary is the server itself, run by the
// tests that kill it (crash_test.go).
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(childEnv); ok {
		if n, err := strconv.ParseUint(os.Getenv(childFilesEnv), 10, 64); err == nil {
			if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
				panic(err)
			}
		}
		main2(strings.Split(args, "\x1f"))
	}
	serveCommand = childCommand // tenpin nemesis starts its nodes as the tests' children
	dir, err := os.MkdirTemp("", "tenpin-test-state")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runCmd runs the program with args and stdin and returns its output and
// exit status.
func runCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(t.Context(), args, strings.NewReader(stdin), &out, &errOut)
	code = exitCode(err, &errOut)
	return out.String(), errOut.String(), code
}

func TestScore(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		golden string // expected stdout, from testdata
		stderr string
		code   int
	}{
		{name: "seeds' three frames", args: []string{"score", "10", "8", "2", "8", "1"}, golden: "score-seeds.golden"},
		{name: "perfect game", args: []string{"score", "-name", "kim", "10", "10", "10", "10", "10", "10", "10", "10", "10", "10", "10", "10"}, golden: "score-perfect.golden"},
		{name: "no rolls", args: []string{"score"}, golden: "score-empty.golden"},
		{name: "too many pins", args: []string{"score", "10", "8", "2", "8", "9"}, stderr: "tenpin: score: roll 5: 9 pins but only 2 standing\n", code: 1},
		{name: "marks and a name of any script", args: []string{"score", "-name", "홍길동", "X", "7", "/", "-", "F", "9", "/", "x", "8", "1"}, golden: "score-marks.golden"},
		{name: "negative", args: []string{"score", "--", "-1"}, stderr: "tenpin: score: roll 1: \"-1\": a ball knocks down 0 to 10 pins\n", code: 1},
		{name: "after the game", args: append([]string{"score"}, strings.Fields(strings.Repeat("0 ", 21))...), stderr: "tenpin: score: roll 21: the game is over\n", code: 1},
		{name: "not a ball", args: []string{"score", "3", "three"}, stderr: "tenpin: score: roll 2: \"three\": not a ball: enter the pins knocked down (0 to 10), X, /, - or F\n", code: 1},
		{name: "a strike on a second ball", args: []string{"score", "3", "x"}, stderr: "tenpin: score: roll 2: \"x\": X is a strike, the first ball at ten pins; this ball is the rack's second: enter the pins it knocked down, or /\n", code: 1},
		{name: "a spare on a first ball", args: []string{"score", "/"}, stderr: "tenpin: score: roll 1: \"/\": / is a spare, the second ball of a rack; this ball is the first: enter the pins it knocked down, or X\n", code: 1},
		{name: "bad name", args: []string{"score", "-name", "P1", "3"}, stderr: "tenpin: score: -name: bowling: invalid name: \"P1\" has the digit '1', a name is letters\n", code: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCmd(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit status = %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if stderr != tt.stderr {
				t.Errorf("stderr = %q, want %q", stderr, tt.stderr)
			}
			if tt.golden != "" {
				golden.Check(t, tt.golden, []byte(stdout))
			} else if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
		})
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"score", "-bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"score", "-h"}, 0, "usage: tenpin score"},
		{[]string{"play", "-lang", "fr"}, 1, `play: -lang "fr": the languages are en and ko`},
		{[]string{"help"}, 0, "tenpin nemesis"},
		{[]string{"nemesis", "-h"}, 0, "usage: tenpin nemesis"},
		{[]string{"nemesis", "-games", "0"}, 1, "1 to 90 games a lane"},
		{[]string{"help"}, 0, "tenpin failover"},
		{[]string{"failover", "-h"}, 0, "usage: tenpin failover"},
		{[]string{"failover", "-kill", "nats-leader"}, 1, "give -natscluster the path of natscluster"},
		{[]string{"failover", "-kill", "disk"}, 1, `kill "disk": want node, nats-leader or nats`},
		{[]string{"failover", "-kill", "node", "-node", "n4"}, 1, `node "n4": the nodes are n1, n2 and n3`},
	}
	for _, tt := range tests {
		_, stderr, code := runCmd(t, "", tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("tenpin %v: status %d, stderr %q; want status %d and %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}

func TestPlay(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		input  string
		golden string
	}{
		{
			name: "one player, a whole game in Korean",
			args: []string{"play", "-lang", "ko"},
			// a perfect game but for the last ball, by marks, a mistake
			// said in Korean on the way
			input:  "1\n홍길동1\n홍길동\n/\nX\nx\n10\n10\n10\n10\n10\n10\n10\nX\nX\n9\n",
			golden: "play-ko.golden",
		},
		{
			name: "two players, bad input asked again",
			args: []string{"play"},
			input: strings.Join([]string{
				"zero", "0", "9", "2", // bad counts, then two players
				"p1s", "Pjs", "PJS", "Kim", // a bad name, a taken one (case aside), kept as typed
				"X", "8", "3", "eleven", "11", "x", "/", // Kim: 8, then refusals, then a spare
				"-", "10", // Pjs frame 2: a spare after a gutter, by count
				"F", "/", // Kim frame 2: a foul, then all ten
			}, "\n") + "\n",
			golden: "play-en.golden",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCmd(t, tt.input, tt.args...)
			if code != 0 || stderr != "" {
				t.Errorf("exit status %d, stderr %q; want 0 and nothing", code, stderr)
			}
			golden.Check(t, tt.golden, []byte(stdout))
		})
	}
}

func TestPlayStopsOnSignal(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	r, w, err := os.Pipe() // stdin that never ends
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"play"}, r, &out, &out) }()
	cancel()
	if err := <-done; exitCode(err, &out) != 130 {
		t.Errorf("play after SIGINT returned %v, want exit status 130", err)
	}
}

// main2 is main with the given arguments.
func main2(args []string) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}
