// Package cluster runs a three-node tenpin cluster on this machine for the
// programs that break it and measure it (tenpin nemesis, tenpin failover):
// three tenpin serve processes on an embedded NATS cluster or an external
// one, and, for a run that kills NATS servers too, the three servers of
// that external cluster, each a natscluster -only process of its own.
//
// Every process keeps its ports and data directory for the whole run, so
// that one killed (SIGKILL) or paused (SIGSTOP) can be started again as
// it was, and every one can route to the others from the first. What
// each process prints goes to a log of its own in the run's directory
// (name.log), across its restarts.
package cluster

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Size is how many tenpin nodes, and NATS servers, a cluster has: the
// fewest in which one can die and the others keep a quorum.
const Size = 3

// servingPrefix starts the line tenpin serve prints once it serves, its
// store open (which in a cluster waits for the other nodes).
const servingPrefix = "tenpin serving on "

// natsReadyPrefix starts the line natscluster prints once its server
// takes connections.
const natsReadyPrefix = "natscluster: server "

// Process is one process of the cluster: a tenpin node or a NATS server,
// started again on the same arguments after each kill.
type Process struct {
	// Name is the node's -node (n1, n2, n3) or the NATS server's name
	// (s1, s2, s3: the names JetStream gives its leaders).
	Name string
	// URL is where clients reach it: http://127.0.0.1:port for a node,
	// nats://127.0.0.1:port for a NATS server.
	URL string

	spawn func(args []string) *exec.Cmd
	args  []string
	ready string // the prefix of the line it prints once it serves
	// debug: a node with a debug listener, which serves once it has
	// printed where that listens too.
	debug bool
	log   *os.File

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has been waited for
	// debugURL is where the node's debug listener took a port
	// (http://127.0.0.1:port), in this run of the process: a port picked
	// ahead, as the others are, could be taken before the node listens
	// on it, by its own NATS server's client port among others.
	debugURL string
}

// debugPrefix starts the line tenpin serve prints after servingPrefix
// when it has a debug listener: the URL of its /metrics follows.
const debugPrefix = "tenpin debug on "

// freePorts returns n TCP ports on 127.0.0.1 that were free a moment ago:
// a process keeps its ports across restarts, so they are chosen once,
// before any starts.
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
			return nil, fmt.Errorf("cluster: pick a free port: %w", err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func newProcess(dir, name, url, ready string, spawn func([]string) *exec.Cmd, args []string) (*Process, error) {
	log, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return &Process{Name: name, URL: url, spawn: spawn, args: args, ready: ready, log: log}, nil
}

// Nodes makes the cluster's three tenpin nodes, not started, their data
// and logs in dir: nodes of an embedded NATS cluster (-cluster, -routes, a
// shared secret, three replicas), or, if natsURLs is set, of the external
// NATS cluster at those (comma-separated) URLs. spawn returns the command
// that runs "tenpin serve" with args.
func Nodes(spawn func(args []string) *exec.Cmd, dir, natsURLs string) ([]*Process, error) {
	ports, err := freePorts(2 * Size)
	if err != nil {
		return nil, err
	}
	secret := filepath.Join(dir, "cluster.secret")
	if natsURLs == "" {
		if err := os.WriteFile(secret, []byte(rand.Text()+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("cluster: %w", err)
		}
	}
	common := []string{
		"-log-level", "warn",
		// A run's clients all come from 127.0.0.1, and lanes must stay
		// open and their players seated however long the run lasts.
		"-idle", "24h", "-away-after", "24h",
		"-create-burst", "10000", "-lanes-per-addr", "0", "-conns-per-addr", "0", "-conns-per-lane-addr", "0",
		"-joins-per-addr", "0", "-bowlers-per-addr", "0",
		"-replicas", "3", // every event on the three servers: one of them down or paused loses none
	}
	var nodes []*Process
	for i := range Size {
		name := fmt.Sprintf("n%d", i+1)
		args := append([]string{"-addr", fmt.Sprintf("127.0.0.1:%d", ports[i]), "-node", name, "-debug-addr", "127.0.0.1:0"}, common...)
		if natsURLs != "" {
			args = append(args, "-nats", natsURLs)
		} else {
			var routes []string
			for j := range Size {
				if j != i {
					routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", ports[Size+j]))
				}
			}
			args = append(args, "-data", filepath.Join(dir, name),
				"-cluster", fmt.Sprintf("127.0.0.1:%d", ports[Size+i]), "-routes", strings.Join(routes, ","),
				"-cluster-secret-file", secret)
		}
		n, err := newProcess(dir, name, fmt.Sprintf("http://127.0.0.1:%d", ports[i]), servingPrefix, spawn, args)
		if err != nil {
			return nil, err
		}
		n.debug = true
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// NATSServers makes the three servers of an external NATS cluster, not
// started, each the program natscluster (cmd/natscluster, built) running
// one server of the layout alone (-only), so that one can be killed on
// its own. Their stores and logs are in dir. It returns them and their
// client URLs, comma-separated, for Nodes.
func NATSServers(natscluster, dir string) ([]*Process, string, error) {
	ports, err := freePorts(2 * Size)
	if err != nil {
		return nil, "", err
	}
	var clientPorts, routePorts, urls []string
	for i := range Size {
		clientPorts = append(clientPorts, strconv.Itoa(ports[i]))
		routePorts = append(routePorts, strconv.Itoa(ports[Size+i]))
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
	}
	spawn := func(args []string) *exec.Cmd { return exec.Command(natscluster, args...) }
	var servers []*Process
	for i := range Size {
		args := []string{"-only", strconv.Itoa(i + 1), "-ports", strings.Join(clientPorts, ","),
			"-cluster-ports", strings.Join(routePorts, ","), "-dir", filepath.Join(dir, "nats")}
		s, err := newProcess(dir, fmt.Sprintf("s%d", i+1), urls[i], natsReadyPrefix, spawn, args)
		if err != nil {
			return nil, "", err
		}
		servers = append(servers, s)
	}
	return servers, strings.Join(urls, ","), nil
}

// Start starts the process and returns once it is started; ready says
// when it printed that it serves.
func (p *Process) Start() (ready <-chan error, err error) {
	cmd := p.spawn(p.args)
	fmt.Fprintf(p.log, "=== %s cluster: start %s\n", time.Now().UTC().Format(time.RFC3339Nano), strings.Join(p.args, " "))
	cmd.Stderr = p.log
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("cluster: %s: %w", p.Name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cluster: start %s: %w", p.Name, err)
	}
	exited := make(chan struct{})
	p.mu.Lock()
	p.cmd, p.exited = cmd, exited
	p.mu.Unlock()
	rc := make(chan error, 1)
	go func() {
		br := bufio.NewReader(out)
		serving, debug := false, !p.debug
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				rc <- fmt.Errorf("cluster: %s stopped before it served: %w (see %s)", p.Name, err, p.log.Name())
				return
			}
			fmt.Fprint(p.log, line)
			serving = serving || strings.HasPrefix(line, p.ready)
			if u, ok := strings.CutPrefix(line, debugPrefix); ok && serving {
				p.mu.Lock()
				p.debugURL = strings.TrimSuffix(strings.TrimSpace(u), "/metrics")
				p.mu.Unlock()
				debug = true
			}
			if serving && debug {
				rc <- nil
				io.Copy(p.log, br)
				return
			}
		}
	}()
	go func() {
		err := cmd.Wait()
		fmt.Fprintf(p.log, "=== %s cluster: %s exited: %v\n", time.Now().UTC().Format(time.RFC3339Nano), p.Name, err)
		close(exited)
	}()
	return rc, nil
}

// StartAll starts the processes together (a node of a cluster waits for
// the others to form it) and waits until every one serves.
func StartAll(ctx context.Context, procs []*Process) error {
	var readies []<-chan error
	for _, p := range procs {
		ready, err := p.Start()
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
			return fmt.Errorf("cluster: %s did not serve: %w", procs[i].Name, ctx.Err())
		}
	}
	return nil
}

// Signal sends sig to the process.
func (p *Process) Signal(sig os.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return fmt.Errorf("cluster: %s is not running", p.Name)
	}
	return p.cmd.Process.Signal(sig)
}

// Kill kills the process with SIGKILL and waits for it to end.
func (p *Process) Kill() error { return p.End(os.Kill) }

// End sends the process sig (os.Kill, or syscall.SIGTERM for a planned
// stop) and waits for it to end.
func (p *Process) End(sig os.Signal) error {
	if err := p.Signal(sig); err != nil {
		return err
	}
	p.mu.Lock()
	exited := p.exited
	p.mu.Unlock()
	<-exited
	return nil
}

// Stopped reports whether the process has ended (on its own, or killed).
func (p *Process) Stopped() bool {
	p.mu.Lock()
	exited := p.exited
	p.mu.Unlock()
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

// LogName is the file the process's output goes to.
func (p *Process) LogName() string { return p.log.Name() }

// Healthy waits until a node's /healthz says ok (its store takes
// writes), or ctx ends.
func (p *Process) Healthy(ctx context.Context, hc *http.Client) error {
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/healthz", nil)
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
			return fmt.Errorf("cluster: %s is not healthy: %v", p.Name, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Stop ends the process for good at the run's end: SIGCONT in case it is
// paused, then SIGKILL (the run has read what it needs).
func (p *Process) Stop() {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()
	if cmd != nil {
		if ResumeSignal != nil {
			cmd.Process.Signal(ResumeSignal)
		}
		cmd.Process.Kill()
		<-exited
	}
	p.log.Close()
}

// Stream is one JetStream stream as a node's GET /debug/streams tells it.
type Stream struct {
	Name string `json:"name"`
	// Leader is the name of the server that leads it (a node's name on an
	// embedded cluster, s1 to s3 on natscluster's): "" while it elects one.
	Leader string `json:"leader"`
	// Replicas are its followers.
	Replicas []Replica `json:"replicas,omitempty"`
}

// Replica is a follower of a stream.
type Replica struct {
	Name string `json:"name"`
	// Current says whether it holds every message the leader does, and
	// Offline whether the leader has lost it.
	Current bool `json:"current"`
	Offline bool `json:"offline"`
}

// Streams asks a node which server leads each stream of the store, and
// which follow (GET /debug/streams on its -debug-addr).
func (p *Process) Streams(ctx context.Context, hc *http.Client) ([]Stream, error) {
	p.mu.Lock()
	debug := p.debugURL
	p.mu.Unlock()
	if debug == "" {
		return nil, fmt.Errorf("cluster: %s has no debug listener to tell the streams", p.Name)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, debug+"/debug/streams", nil)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cluster: the streams through %s: %w", p.Name, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("cluster: the streams through %s: %w", p.Name, err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("cluster: the streams through %s: %s: %s", p.Name, res.Status, strings.TrimSpace(string(body)))
	}
	var streams []Stream
	if err := json.Unmarshal(body, &streams); err != nil {
		return nil, fmt.Errorf("cluster: the streams through %s: %w", p.Name, err)
	}
	return streams, nil
}

// Find returns the process of procs named name, or nil.
func Find(procs []*Process, name string) *Process {
	i := slices.IndexFunc(procs, func(p *Process) bool { return p.Name == name })
	if i < 0 {
		return nil
	}
	return procs[i]
}
