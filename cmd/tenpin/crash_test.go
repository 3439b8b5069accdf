package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/protocol"
)

// childEnv, when set, makes the test binary run "tenpin" with the
// arguments it holds instead of the tests: the server as a real process
// that a test can kill.
const childEnv = "TENPIN_TEST_CHILD_ARGS"

// childFilesEnv, when set with childEnv, is the open-file limit (soft and
// hard) the child sets itself before it serves.
const childFilesEnv = "TENPIN_TEST_CHILD_NOFILE"

// child is "tenpin serve" running as a child process.
type child struct {
	cmd     *exec.Cmd
	url     string
	printed string // what it printed on standard output when it started
	stderr  *strings.Builder
	exited  chan error
	out     *bufio.Reader // its standard output
}

// startChild starts the server as a child process with args and waits
// for its URL.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	return startChildEnv(t, nil, args...)
}

// startChildEnv is startChild with more environment variables for the
// child.
func startChildEnv(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	c := launchChild(t, env, args...)
	c.await(t)
	return c
}

// childCommand is the command that runs "tenpin serve" with args: the
// test binary, told so by childEnv.
func childCommand(args []string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(append([]string{"serve"}, args...), "\x1f"))
	return cmd
}

// launchChild starts the server as a child process with args and returns
// at once: several children that wait for each other (the nodes of a
// cluster) start together, then each is awaited.
func launchChild(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	cmd := childCommand(append([]string{"-addr", "127.0.0.1:0", "-log-level", "warn"}, args...))
	cmd.Env = append(cmd.Env, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stderr: new(strings.Builder), exited: make(chan error, 1), out: bufio.NewReader(stdout)}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		err := cmd.Wait()
		close(done) // stderr is all written once Wait returns
		c.exited <- err
	}()
	// Cleanups run last first: this one once the process is killed.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		select {
		case <-done:
			t.Logf("the server %v said:\n%s", args, c.stderr)
		case <-time.After(5 * time.Second):
		}
	})
	t.Cleanup(func() { cmd.Process.Kill() })
	return c
}

// await waits for the child to print its URL, and what follows it.
func (c *child) await(t *testing.T) {
	t.Helper()
	line, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatalf("the server printed no URL: %v; stderr: %s", err, c.stderr)
	}
	c.url = strings.TrimSpace(strings.TrimPrefix(line, "tenpin serving on "))
	c.printed = line
	for range 3 { // where friends can open it, where the lanes are kept, and how many connections it holds
		line, err := c.out.ReadString('\n')
		if err != nil {
			t.Fatalf("the server stopped printing: %v; printed %q", err, c.printed)
		}
		c.printed += line
	}
	go io.Copy(io.Discard, c.out)
}

func (c *child) kill(t *testing.T) {
	t.Helper()
	c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.exited
}

func (c *child) ws(id string) string {
	return "ws" + strings.TrimPrefix(c.url, "http") + "/ws/lanes/" + id
}

// TestCrashKeepsEveryAcknowledgedRoll kills the server with SIGKILL while
// a player streams rolls (the next roll is sent as soon as the last is
// acknowledged, so one is usually in flight), restarts it on the same data
// directory, and checks that the board holds every acknowledged roll, in
// order, and nothing that was never sent. Three rounds, on one game.
func TestCrashKeepsEveryAcknowledgedRoll(t *testing.T) {
	dir := t.TempDir()
	srv := startChild(t, "-data", dir)
	var created protocol.LaneSummary
	res, err := http.Post(srv.url+"/api/lanes", "application/json", strings.NewReader(`{"name":"crash","give_away":true,"open":true}`))
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(res.Body).Decode(&created)
	res.Body.Close()

	pinsOf := func(i int) int { return i % 5 } // frames of two balls, never ten pins
	roll := func(i int) string {
		return fmt.Sprintf(`{"type":"roll","pins":%d,"frame":%d,"ball":%d,"id":"r%d"}`, pinsOf(i), i/2+1, i%2+1, i)
	}
	var sent, acked int
	token := ""
	for round := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		ws, _, err := websocket.Dial(ctx, srv.ws(created.ID), nil)
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			write(ctx, t, ws, `{"type":"join","name":"PJS","id":"seat"}`)
		} else {
			write(ctx, t, ws, fmt.Sprintf(`{"type":"resume","token":%q,"id":"seat"}`, token))
		}
		token = readUntil(ctx, t, ws, "seat").Token
		if round == 0 {
			write(ctx, t, ws, `{"type":"start","id":"start"}`)
			readUntil(ctx, t, ws, "start")
		}

		// Stream rolls; the fifth ack of the round kills the server, with
		// the next roll already on its way.
		for n := 0; n < 5; n++ {
			write(ctx, t, ws, roll(sent))
			sent++
			if n == 4 {
				write(ctx, t, ws, roll(sent))
				sent++
			}
			if m := readUntil(ctx, t, ws, fmt.Sprintf("r%d", acked)); m.Type != "ack" {
				t.Fatalf("roll %d answered %+v", acked, m)
			}
			acked++
		}
		srv.kill(t)
		ws.CloseNow()
		cancel()

		srv = startChild(t, "-data", dir)
		var board protocol.Board
		res, err := http.Get(srv.url + "/api/lanes/" + created.ID)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			t.Fatalf("round %d: the lane after the crash: %s", round, res.Status)
		}
		json.NewDecoder(res.Body).Decode(&board)
		res.Body.Close()
		var rolls []int
		for _, f := range board.Players[0].Frames {
			rolls = append(rolls, f.Rolls...)
		}
		want := make([]int, sent)
		for i := range want {
			want[i] = pinsOf(i)
		}
		if len(rolls) < acked || len(rolls) > sent || !slices.Equal(rolls, want[:len(rolls)]) {
			t.Fatalf("round %d: %d rolls acknowledged of %d sent (%v), but the board holds %v", round, acked, sent, want, rolls)
		}
		t.Logf("round %d: %d acknowledged, %d sent, %d on the board", round, acked, sent, len(rolls))
		sent, acked = len(rolls), len(rolls) // a roll stored but not acknowledged counts: the board is the truth
	}
}

// TestSecondServerOnTheSameDataExits: a second server on a data directory
// in use exits at once, naming the lock, and the first goes on.
func TestSecondServerOnTheSameDataExits(t *testing.T) {
	dir := t.TempDir()
	first := startChild(t, "-data", dir)
	_, stderr, code := runCmd(t, "", "serve", "-addr", "127.0.0.1:0", "-data", dir)
	if code != 1 || !strings.Contains(stderr, "lock") || !strings.Contains(stderr, dir) {
		t.Errorf("a second server on %s: status %d, %q; want 1 and an error naming the lock", dir, code, stderr)
	}
	if res, err := http.Get(first.url + "/healthz"); err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("the first server after the second tried: %v %v", res, err)
	}
}

func write(ctx context.Context, t *testing.T, ws *websocket.Conn, s string) {
	t.Helper()
	if err := ws.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
		t.Fatalf("send %s: %v", s, err)
	}
}

// reply is the union of the answers a test reads here.
type reply struct {
	Type, Ref, Code, Token string
}

// readUntil reads until the answer to the message with id ref.
func readUntil(ctx context.Context, t *testing.T, ws *websocket.Conn, ref string) reply {
	t.Helper()
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for the answer to %s: %v", ref, err)
		}
		var r reply
		json.Unmarshal(data, &r)
		if r.Ref == ref {
			if r.Type == "error" {
				t.Fatalf("%s refused: %s", ref, data)
			}
			return r
		}
	}
}
