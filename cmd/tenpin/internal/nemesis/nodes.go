package nemesis

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// node is one tenpin serve process of the cluster, started again on the
// same arguments (its address, its data directory) after each kill.
type node struct {
	name string
	args []string
	url  string // http://127.0.0.1:port
	log  *os.File
	run  *Run

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has been waited for
	state  string        // up, down, paused
}

// freePorts returns n TCP ports on 127.0.0.1 that were free a moment ago:
// a node keeps its ports across restarts, so they are chosen once, before
// any node starts, and every node can route to every other from the first.
func freePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("nemesis: pick a free port: %w", err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// newNodes makes the cluster's nodes, not started: three tenpin nodes of
// an embedded NATS cluster (-cluster, -routes, a shared secret, three
// replicas), or of the external NATS cluster at cfg.NATS.
func (r *Run) newNodes() ([]*node, error) {
	const n = 3
	ports, err := freePorts(2 * n)
	if err != nil {
		return nil, err
	}
	secret := filepath.Join(r.cfg.Dir, "cluster.secret")
	if r.cfg.NATS == "" {
		if err := os.WriteFile(secret, []byte(rand.Text()+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("nemesis: %w", err)
		}
	}
	common := []string{
		"-log-level", "warn",
		// The run's clients all come from 127.0.0.1, and lanes must stay
		// open and their players seated however long the run lasts.
		"-idle", "24h", "-away-after", "24h",
		"-create-burst", "10000", "-lanes-per-addr", "0", "-conns-per-addr", "0", "-conns-per-lane-addr", "0",
		"-replicas", "3", // every event on the three servers: one of them down or paused loses none
	}
	var nodes []*node
	for i := range n {
		name := fmt.Sprintf("n%d", i+1)
		args := append([]string{"-addr", fmt.Sprintf("127.0.0.1:%d", ports[i]), "-node", name}, common...)
		if r.cfg.NATS != "" {
			args = append(args, "-nats", r.cfg.NATS)
		} else {
			var routes []string
			for j := range n {
				if j != i {
					routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", ports[n+j]))
				}
			}
			args = append(args, "-data", filepath.Join(r.cfg.Dir, name),
				"-cluster", fmt.Sprintf("127.0.0.1:%d", ports[n+i]), "-routes", strings.Join(routes, ","),
				"-cluster-secret-file", secret)
		}
		log, err := os.OpenFile(filepath.Join(r.cfg.Dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("nemesis: %w", err)
		}
		nodes = append(nodes, &node{name: name, args: args, url: fmt.Sprintf("http://127.0.0.1:%d", ports[i]), log: log, run: r, state: "down"})
	}
	return nodes, nil
}

// start starts the node's process and returns once it is started; ready
// says when it printed the URL it serves on (after its store is open,
// which in a cluster waits for the other nodes).
func (n *node) start() (ready <-chan error, err error) {
	cmd := n.run.cfg.Spawn(n.args)
	fmt.Fprintf(n.log, "=== %s nemesis: start %s\n", time.Now().UTC().Format(time.RFC3339Nano), strings.Join(n.args, " "))
	cmd.Stderr = n.log
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("nemesis: %s: %w", n.name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("nemesis: start %s: %w", n.name, err)
	}
	exited := make(chan struct{})
	n.mu.Lock()
	n.cmd, n.exited, n.state = cmd, exited, "up"
	n.mu.Unlock()
	rc := make(chan error, 1)
	go func() {
		br := bufio.NewReader(out)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				rc <- fmt.Errorf("nemesis: %s stopped before it served: %w (see %s)", n.name, err, n.log.Name())
				return
			}
			fmt.Fprint(n.log, line)
			if strings.HasPrefix(line, "tenpin serving on ") {
				rc <- nil
				io.Copy(n.log, br)
				return
			}
		}
	}()
	go func() {
		err := cmd.Wait()
		fmt.Fprintf(n.log, "=== %s nemesis: %s exited: %v\n", time.Now().UTC().Format(time.RFC3339Nano), n.name, err)
		close(exited)
	}()
	return rc, nil
}

// startAll starts the nodes together (each waits for the others to form
// the cluster) and waits until every one serves.
func startAll(ctx context.Context, nodes []*node) error {
	var readies []<-chan error
	for _, n := range nodes {
		ready, err := n.start()
		if err != nil {
			return err
		}
		readies = append(readies, ready)
	}
	for i, ready := range readies {
		select {
		case err := <-ready:
			if err != nil {
				return err
			}
		case <-ctx.Done():
			return fmt.Errorf("nemesis: %s did not serve: %w", nodes[i].name, ctx.Err())
		}
	}
	return nil
}

// signal sends sig to the node's process.
func (n *node) signal(sig os.Signal) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil {
		return fmt.Errorf("nemesis: %s is not running", n.name)
	}
	return n.cmd.Process.Signal(sig)
}

// kill kills the node with SIGKILL and waits for the process to end.
func (n *node) kill() error {
	if err := n.signal(os.Kill); err != nil {
		return err
	}
	n.mu.Lock()
	exited := n.exited
	n.state = "down"
	n.mu.Unlock()
	<-exited
	return nil
}

// stopped reports whether the process has ended (on its own, or killed).
func (n *node) stopped() bool {
	n.mu.Lock()
	exited := n.exited
	n.mu.Unlock()
	if exited == nil {
		return true
	}
	select {
	case <-exited:
		return true
	default:
		return false
	}
}

func (n *node) setState(s string) {
	n.mu.Lock()
	n.state = s
	n.mu.Unlock()
}

// healthy waits until the node's /healthz says ok (its store takes
// writes), or ctx ends.
func (n *node) healthy(ctx context.Context, hc *http.Client) error {
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.url+"/healthz", nil)
		res, err := hc.Do(req)
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
			err = errors.New(res.Status)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("nemesis: %s is not healthy: %v", n.name, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stop ends the node for good at the run's end: SIGCONT in case it is
// paused, then SIGKILL (the run has read what it needs).
func (n *node) stop() {
	n.mu.Lock()
	cmd, exited := n.cmd, n.exited
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	if resumeSignal != nil {
		cmd.Process.Signal(resumeSignal)
	}
	cmd.Process.Kill()
	<-exited
	n.log.Close()
}
