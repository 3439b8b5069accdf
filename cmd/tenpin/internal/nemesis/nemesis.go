// Package nemesis runs a three-node tenpin cluster under a reconnecting
// load while it kills (SIGKILL) and pauses (SIGSTOP, then SIGCONT) random
// nodes, records every roll the clients sent and every board they saw,
// and checks at the end that the store holds every acknowledged roll once
// and nothing nobody sent, that no client saw a board's seq go back, and
// that every remembered player's history holds each game they finished,
// once.
// tenpin nemesis and its test (cmd/tenpin) run it.
//
// # The faults
//
// One fault at a time, so that two nodes of three always run (the
// stream's three replicas keep their quorum): a kill, after which the
// node is started again on the same address and data directory after a
// random down time; or a pause, which ends with SIGCONT after a random
// time. The next fault waits until every node's /healthz says its store
// takes writes, then a random gap. The first fault is a kill and the
// second a pause (unless Config leaves a kind out), so that a short run
// has both.
//
// With Config.KillBowlersLeader the first kill, and every third fault
// after it, kills the server that leads the bowlers' bucket (the stream
// KV_TENPIN_BOWLERS, which every game's recording writes to) on purpose,
// rather than whichever node chance picks: on an embedded cluster the
// node whose server it is, found by asking a node's debug listener
// (GET /debug/streams), for the embedded servers take no other client;
// on an external cluster the NATS server itself, which the run must have
// started (Config.NATSCluster) to kill and start again. Such a kill
// waits until the stream has a leader and every follower is current, so
// that the two servers left hold every message and keep a quorum.
//
// # The load
//
// Lane slots play lane after lane, each lane a series of games. Players
// roll for the ball up on the newest board; a roll not answered in time,
// or a connection that shows no board for a while, sends the client to
// the next node, where a player resumes its seat. Every roll is recorded
// with its ball (lane, game of the series, player, frame, ball), its pins
// and its outcome (acked, refused, or unknown), and every board's seq is
// checked as it comes: see [SeqBack].
//
// # The check
//
// Once the load has stopped and every node is up and healthy, each lane's
// games are read through every node (GET /api/lanes/{id}/games), which
// must agree, and [Check] compares them with the record. Every player
// joins asking to be remembered (unless Config.Guests): each is a new
// bowler from their first ball (one who never bowled has none), whose
// history (GET /api/bowlers/me/games) must hold every game
// of its lane's sheet it bowled to the end, once the game is over, once
// and with the sheet's score: see [CheckHistories]. A game's recording is
// retried until it is stored, so the check reads the histories again
// for a while (Config.Settle) before it reports what they lack.
package nemesis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/tenpin/tenpin/cmd/tenpin/internal/cluster"
	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// Config is what a run does.
type Config struct {
	// Spawn returns the command that runs "tenpin serve" with args: the
	// program itself, or a test binary that runs it.
	Spawn func(args []string) *exec.Cmd
	// Dir holds the nodes' data directories and their logs (name.log:
	// what each printed, across its restarts).
	Dir string
	// NATS, if set, is the client URLs of an external NATS cluster with
	// JetStream: the nodes use it (-nats) instead of embedding servers.
	// The run cannot kill its servers.
	NATS string
	// NATSCluster, if set, is the path of the natscluster program
	// (cmd/natscluster, built): the run starts an external NATS cluster
	// of three servers, each a process of its own that it can kill, and
	// the nodes use it.
	NATSCluster string

	Duration   time.Duration // of the load and its faults
	Lanes      int           // lane slots playing at once
	Players    int           // a lane's, 1 to 8
	Spectators int           // a lane's
	Games      int           // a lane's, then its slot moves to a new lane (a lane keeps 100 games)
	Think      time.Duration // a player's pause before a roll: random, up to this
	Seed       uint64

	// Gap is the longest quiet time between two faults (random, from a
	// tenth of it), Down the longest a killed node stays down, and Pause
	// the longest a paused node stays paused (from a second).
	Gap, Down, Pause time.Duration
	// NoKill and NoPause leave out a kind of fault.
	NoKill, NoPause bool
	// KillBowlersLeader makes the first kill, and every third fault
	// after, a kill of the server that leads the bowlers' bucket: the
	// node whose embedded server it is, or with NATSCluster the NATS
	// server. It takes the embedded cluster or NATSCluster, and kills.
	KillBowlersLeader bool
	// Guests has players join as guests: no bowler is remembered, and no
	// history checked.
	Guests bool
	// Settle is how long the check waits for the bowlers' histories to
	// hold every game over (a game's recording is retried until it is
	// stored): 30 s if zero.
	Settle time.Duration

	// Log, if set, gets a line for each fault and each noteworthy event.
	Log io.Writer
}

// Fault is one fault the run injected.
type Fault struct {
	Kind string `json:"kind"` // kill, pause
	Node string `json:"node"` // n1 to n3, or a NATS server, s1 to s3
	// Leads is the stream the process led when it was picked for it:
	// that of the bowlers' bucket, for a kill of its leader.
	Leads string        `json:"leads,omitempty"`
	At    time.Duration `json:"at_ns"`  // since the run's start
	For   time.Duration `json:"for_ns"` // down or paused
	// Back is how long after the fault's end every node said it was
	// healthy again.
	Back time.Duration `json:"back_ns"`
}

// Result is what a run did and found.
type Result struct {
	Elapsed time.Duration `json:"elapsed_ns"`
	Counts  Counts        `json:"counts"`
	Stored  int           `json:"stored"` // rolls stored in the lanes checked
	// Remembered is how many players were remembered, and HistoryGames
	// how many games their histories held, checked against the sheets.
	Remembered   int         `json:"remembered"`
	HistoryGames int         `json:"history_games"`
	Faults       []Fault     `json:"faults"`
	Kills        int         `json:"kills"`
	LeaderKills  int         `json:"bowlers_leader_kills"` // of the kills
	Pauses       int         `json:"pauses"`
	Violations   []Violation `json:"violations"`
	// Rolls is every roll sent, for a run whose violations need them.
	Rolls []Roll `json:"-"`
}

// Run is one run of the nemesis.
type Run struct {
	cfg   Config
	nodes []*cluster.Process
	// servers are the NATS servers of Config.NATSCluster, nil otherwise.
	servers []*cluster.Process
	http    *http.Client
	rec     recorder
	start   time.Time

	logMu sync.Mutex
}

func (r *Run) logf(format string, args ...any) {
	if r.cfg.Log == nil {
		return
	}
	r.logMu.Lock()
	defer r.logMu.Unlock()
	fmt.Fprintf(r.cfg.Log, "%6.1fs %s\n", time.Since(r.start).Seconds(), fmt.Sprintf(format, args...))
}

// Check says what is wrong with the run cfg asks for, if anything, but
// for Spawn and Dir: a command checks it before it makes the run's
// directory.
func (cfg Config) Check() error {
	switch {
	case cfg.Lanes < 1, cfg.Players < 1, cfg.Players > 8, cfg.Spectators < 0, cfg.Games < 1, cfg.Games > 90:
		return errors.New("nemesis: need 1 lane or more, 1 to 8 players, 0 spectators or more, 1 to 90 games a lane")
	case cfg.Duration <= 0, cfg.Gap <= 0, cfg.Down <= 0, cfg.Pause < time.Second:
		return errors.New("nemesis: need a positive duration, gap and down time, and a pause of 1s or more")
	case cluster.PauseSignal == nil && !cfg.NoPause:
		return errors.New("nemesis: pausing a node takes SIGSTOP and SIGCONT, which this system lacks: leave pauses out (-no-pause)")
	case cfg.NATS != "" && cfg.NATSCluster != "":
		return errors.New("nemesis: the nodes use the operator's NATS (-nats) or the run's own (-natscluster), not both")
	case cfg.KillBowlersLeader && cfg.NATS != "":
		return errors.New("nemesis: killing the bowlers' bucket leader kills a NATS server, which must be a process of the run's own: give -natscluster the path of natscluster (go build -o /tmp/natscluster ./cmd/natscluster), or leave the fault out (-kill-bowlers-leader=false)")
	case cfg.KillBowlersLeader && cfg.NoKill:
		return errors.New("nemesis: no kills (-no-kill), so no kill of the bowlers' bucket leader: leave it out (-kill-bowlers-leader=false)")
	}
	return nil
}

// Do runs the nemesis as cfg says: it starts the nodes, plays and injects
// faults for cfg.Duration, brings every node back, reads the lanes and
// checks them. An error is a run that could not be made or read (a node
// that would not start again, a lane no node would show); violations are
// in the Result.
func Do(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Spawn == nil || cfg.Dir == "" {
		return Result{}, errors.New("nemesis: Config needs Spawn and Dir")
	}
	if err := cfg.Check(); err != nil {
		return Result{}, err
	}
	r := &Run{cfg: cfg, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}, start: time.Now()}
	defer r.http.CloseIdleConnections()
	natsURLs := cfg.NATS
	if cfg.NATSCluster != "" {
		servers, urls, err := cluster.NATSServers(cfg.NATSCluster, cfg.Dir)
		if err != nil {
			return Result{}, err
		}
		r.servers, natsURLs = servers, urls
		defer func() { // after the nodes'
			for _, s := range servers {
				s.Stop()
			}
		}()
	}
	nodes, err := cluster.Nodes(cfg.Spawn, cfg.Dir, natsURLs)
	if err != nil {
		return Result{}, err
	}
	r.nodes = nodes
	defer func() {
		for _, n := range nodes {
			n.Stop()
		}
	}()
	startCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = cluster.StartAll(startCtx, r.servers)
	if err == nil {
		err = cluster.StartAll(startCtx, nodes)
	}
	if err == nil {
		err = r.allHealthy(startCtx)
	}
	cancel()
	if err != nil {
		return Result{}, err
	}
	r.logf("cluster up: %s, %s, %s", nodes[0].URL, nodes[1].URL, nodes[2].URL)

	r.start = time.Now()
	loadCtx, stopLoad := context.WithTimeout(ctx, cfg.Duration)
	defer stopLoad()
	var load sync.WaitGroup
	for i := range cfg.Lanes {
		load.Go(func() { r.playLane(loadCtx, i) })
	}
	faults, faultErr := r.faults(loadCtx)
	stopLoad()
	load.Wait()
	elapsed := time.Since(r.start)
	res := Result{Elapsed: elapsed, Faults: faults}
	for _, f := range faults {
		switch f.Kind {
		case "kill":
			res.Kills++
			if f.Leads != "" {
				res.LeaderKills++
			}
		case "pause":
			res.Pauses++
		}
	}
	if faultErr != nil {
		return res, faultErr
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}

	// Every node up and healthy, then the lanes as stored.
	checkCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := r.allHealthy(checkCtx); err != nil {
		return res, err
	}
	r.rec.mu.Lock()
	lanes, rolls, seqs, early := slices.Clone(r.rec.lanes), slices.Clone(r.rec.rolls), slices.Clone(r.rec.seqBacks), slices.Clone(r.rec.earlyAcks)
	remembered := slices.Clone(r.rec.remembered)
	res.Counts = r.rec.counts
	r.rec.mu.Unlock()
	stored := Stored{}
	sheets := map[string]*protocol.Games{}
	var disagree []Violation
	for _, id := range lanes {
		g, v, err := r.readGames(checkCtx, id)
		if err != nil {
			return res, err
		}
		disagree = append(disagree, v...)
		stored.AddGames(id, g)
		sheets[id] = g
		for _, game := range g.Games {
			if game.Finished {
				res.Counts.Games++
			}
		}
	}
	res.Stored = len(stored)
	res.Rolls = rolls
	res.Violations = append(disagree, Check(rolls, stored, seqs)...)
	res.Violations = append(res.Violations, early...)
	histories, v, err := r.checkHistories(checkCtx, sheets, remembered)
	if err != nil {
		return res, err
	}
	res.Remembered = len(histories)
	for _, h := range histories {
		res.HistoryGames += len(h.Games)
	}
	res.Violations = append(res.Violations, v...)
	return res, nil
}

// checkHistories reads every remembered player's history, through the
// nodes in turn, and checks it against the lanes' sheets (CheckHistories)
// until it holds or cfg.Settle has passed: a game's recording may still
// be retried, a store's leader elected, as the load stops. It returns
// the histories last read and what they broke then.
func (r *Run) checkHistories(ctx context.Context, sheets map[string]*protocol.Games, remembered []Remembered) ([]History, []Violation, error) {
	settle := r.cfg.Settle
	if settle == 0 {
		settle = 30 * time.Second
	}
	deadline := time.Now().Add(settle)
	for {
		histories := make([]History, len(remembered))
		for i, p := range remembered {
			histories[i].Remembered = p
			for try := 0; ; try++ {
				n := r.nodes[(i+try)%len(r.nodes)]
				cctx, cancel := context.WithTimeout(ctx, commandTimeout)
				games, err := (&client.Client{URL: n.URL, HTTPClient: r.http}).MyGames(cctx, p.Key)
				cancel()
				if err == nil {
					histories[i].Games = games
					break
				}
				if pe := (*protocol.Error)(nil); errors.As(err, &pe) && pe.Code == protocol.CodeUnknownBowler {
					// No bowler: one is made at the player's first ball,
					// and a player whose lane they never bowled on (their
					// connection lost to a fault) has none. A history
					// missing games they finished is CheckHistories'
					// to tell, and read again until it settles.
					break
				}
				if ctx.Err() != nil {
					return nil, nil, fmt.Errorf("nemesis: the history of %s of lane %s through %s: %w", p.Player, p.Lane, n.Name, err)
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		v := CheckHistories(sheets, histories)
		if v == nil || time.Now().After(deadline) {
			return histories, v, nil
		}
		r.logf("%d histories do not hold their lanes' games yet (%v): reading them again", len(v), v[0])
		time.Sleep(time.Second)
	}
}

// faults injects faults until ctx ends, one at a time, and returns them.
// It returns an error if a node would not come back.
func (r *Run) faults(ctx context.Context) ([]Fault, error) {
	rng := rand.New(rand.NewPCG(r.cfg.Seed, 0xfa17))
	var out []Fault
	for i := 0; ; i++ {
		gap := r.cfg.Gap/10 + time.Duration(rng.Int64N(int64(r.cfg.Gap-r.cfg.Gap/10)+1))
		select {
		case <-time.After(gap):
		case <-ctx.Done():
			return out, nil
		}
		kill := rng.IntN(2) == 0
		if i < 2 {
			kill = i == 0 // the first a kill, the second a pause
		}
		if r.cfg.NoKill {
			kill = false
		} else if r.cfg.NoPause {
			kill = true
		}
		n := r.nodes[rng.IntN(len(r.nodes))]
		leads := ""
		if r.cfg.KillBowlersLeader && (i == 0 || i%leaderEvery == 0) {
			var err error
			if n, err = r.bowlersLeader(ctx); err != nil {
				if ctx.Err() != nil { // the run's end, not the store's fault
					return out, nil
				}
				return out, err
			}
			kill, leads = true, bowlersStream
		}
		f := Fault{Node: n.Name, Leads: leads, At: time.Since(r.start)}
		if kill {
			f.Kind = "kill"
			f.For = r.cfg.Down/10 + time.Duration(rng.Int64N(int64(r.cfg.Down-r.cfg.Down/10)+1))
			what := ""
			if leads != "" {
				what = ", the leader of " + leads
			}
			r.logf("kill %s (SIGKILL%s), down for %v", n.Name, what, f.For.Round(time.Millisecond))
			if err := n.Kill(); err != nil {
				return out, err
			}
			time.Sleep(f.For) // not cut short: the node comes back whatever happens
			ready, err := n.Start()
			if err != nil {
				return out, err
			}
			select {
			case err = <-ready:
			case <-time.After(2 * time.Minute):
				err = fmt.Errorf("nemesis: %s did not serve again within 2 minutes of its restart", n.Name)
			}
			if err != nil {
				return out, err
			}
			r.logf("%s restarted", n.Name)
		} else {
			f.Kind = "pause"
			f.For = time.Second + time.Duration(rng.Int64N(int64(r.cfg.Pause-time.Second)+1))
			r.logf("pause %s (SIGSTOP) for %v", n.Name, f.For.Round(time.Millisecond))
			if err := n.Signal(cluster.PauseSignal); err != nil {
				return out, err
			}
			time.Sleep(f.For)
			if err := n.Signal(cluster.ResumeSignal); err != nil {
				return out, err
			}
			r.logf("%s continued (SIGCONT)", n.Name)
		}
		ended := time.Now()
		hctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		err := r.allHealthy(hctx)
		cancel()
		f.Back = time.Since(ended)
		out = append(out, f)
		if err != nil {
			return out, err
		}
		r.logf("every node healthy %v after", f.Back.Round(time.Millisecond))
	}
}

// allHealthy waits until every node is running and healthy.
func (r *Run) allHealthy(ctx context.Context) error {
	for _, n := range r.nodes {
		if n.Stopped() {
			return fmt.Errorf("nemesis: %s has exited (see %s)", n.Name, n.LogName())
		}
		if err := n.Healthy(ctx, r.http); err != nil {
			return err
		}
	}
	return nil
}

// readGames reads a lane's games through every node. They must agree;
// a node that shows other games than the others is a violation, once
// they have had 10 seconds to settle. It returns the first node's.
func (r *Run) readGames(ctx context.Context, id string) (*protocol.Games, []Violation, error) {
	settle := time.Now().Add(10 * time.Second)
	for {
		all := make([]*protocol.Games, len(r.nodes))
		for i, n := range r.nodes {
			var err error
			for try := 0; ; try++ {
				cctx, cancel := context.WithTimeout(ctx, commandTimeout)
				all[i], err = (&client.Client{URL: n.URL, HTTPClient: r.http}).Games(cctx, id)
				cancel()
				if err == nil {
					break
				}
				if ctx.Err() != nil {
					return nil, nil, fmt.Errorf("nemesis: lane %s's games through %s: %w", id, n.Name, err)
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		var v []Violation
		for i := 1; i < len(all); i++ {
			if !reflect.DeepEqual(all[0], all[i]) {
				v = append(v, Violation{"nodes disagree", fmt.Sprintf("lane %s: %s shows %s, %s shows %s", id, r.nodes[0].Name, summary(all[0]), r.nodes[i].Name, summary(all[i]))})
			}
		}
		if v == nil || time.Now().After(settle) {
			return all[0], v, nil
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// summary says what a series holds, for a violation's message.
func summary(g *protocol.Games) string {
	s := fmt.Sprintf("%d games", len(g.Games))
	if n := len(g.Games); n > 0 {
		last := g.Games[n-1]
		s += fmt.Sprintf(", the last (finished %v):", last.Finished)
		for _, p := range last.Players {
			var rolls []int
			for _, f := range p.Frames {
				rolls = append(rolls, f.Rolls...)
			}
			s += fmt.Sprintf(" %s %v", p.Name, rolls)
		}
	}
	return s
}
