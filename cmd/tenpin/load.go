package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/protocol"
)

// loadConfig is what tenpin load was asked to do.
type loadConfig struct {
	URL        string        `json:"url"`
	Lanes      int           `json:"lanes"`
	Players    int           `json:"players"`
	Spectators int           `json:"spectators"`
	Duration   time.Duration `json:"duration_ns"`
	Games      int           `json:"games"`
	Think      time.Duration `json:"think_ns"`
	Ramp       time.Duration `json:"ramp_ns"`
	Seed       uint64        `json:"seed"`
	Sources    int           `json:"sources"`
	maxP99     time.Duration
	jsonOut    bool
	cpuProfile string
}

// runLoad drives simulated players and spectators against a server: it
// plays real games over the real protocol, checks every board and every
// total as it goes, and reports latencies and rates.
func runLoad(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tenpin load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg loadConfig
	fs.StringVar(&cfg.URL, "url", "ws://localhost:8080", "the server's base `URL`")
	fs.IntVar(&cfg.Lanes, "lanes", 10, "lanes to create")
	fs.IntVar(&cfg.Players, "players", 4, "players per lane")
	fs.IntVar(&cfg.Spectators, "spectators", 6, "spectators per lane")
	fs.DurationVar(&cfg.Duration, "duration", 30*time.Second, "how long to play")
	fs.IntVar(&cfg.Games, "games", 0, "games per lane, then stop playing (0: rematch until the duration ends)")
	fs.DurationVar(&cfg.Think, "think", 200*time.Millisecond, "a player's pause before each roll")
	fs.DurationVar(&cfg.Ramp, "ramp", 5*time.Second, "spread the lanes' starts over this long")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the random pins")
	fs.IntVar(&cfg.Sources, "sources", 0, "loopback source addresses to spread connections over (127.0.0.1, .2, …; 0: one per 25,000 connections)")
	fs.DurationVar(&cfg.maxP99, "max-p99", 0, "fail if the fan-out p99 exceeds this (0: no limit)")
	fs.BoolVar(&cfg.jsonOut, "json", false, "write the final report as JSON")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write the load tool's own CPU profile to this `file` (the generator shares the machine)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tenpin load [flags]\n\nPlays games on a tenpin server with simulated players and spectators, checks every board, and reports latencies.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case cfg.Lanes < 1, cfg.Players < 1, cfg.Players > 8, cfg.Spectators < 0, cfg.Duration <= 0:
		return errors.New("load: need -lanes ≥ 1, -players 1 to 8, -spectators ≥ 0 and a positive -duration")
	case cfg.Games < 0, cfg.Think < 0, cfg.Ramp < 0, cfg.Sources < 0, cfg.maxP99 < 0:
		return errors.New("load: -games, -think, -ramp, -sources and -max-p99 cannot be negative")
	case cfg.Sources > 254:
		return errors.New("load: -sources is at most 254 (127.0.0.1 to 127.0.0.254)")
	}
	base, err := url.Parse(cfg.URL)
	if err != nil || (base.Scheme != "ws" && base.Scheme != "wss") {
		return fmt.Errorf("load: -url %q: want ws://host:port or wss://host:port", cfg.URL)
	}
	conns := cfg.Lanes * (cfg.Players + cfg.Spectators)
	if cfg.Sources <= 0 {
		cfg.Sources = conns/25_000 + 1
	}
	raiseFileLimit(stderr)
	if os.Getenv("GOGC") == "" {
		// The generator's garbage is its own and short-lived: collecting it
		// less often leaves more of the shared cores to the server.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return fmt.Errorf("load: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("load: cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}

	r := newLoadRun(cfg, base)
	report := r.run(ctx, stderr)
	if cfg.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(report)
	} else {
		report.print(stdout)
	}
	switch {
	case report.Errors > 0:
		return exitError{1}
	case cfg.maxP99 > 0 && report.Fanout.P99 > ms(cfg.maxP99):
		fmt.Fprintf(stderr, "tenpin: load: fan-out p99 %.1f ms exceeds -max-p99 %v\n", report.Fanout.P99, cfg.maxP99)
		return exitError{1}
	}
	return nil
}

// raiseFileLimit lifts the open-file limit to its hard maximum: every
// connection is a file.
func raiseFileLimit(stderr io.Writer) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur >= lim.Max {
		return
	}
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fmt.Fprintf(stderr, "tenpin: load: raising the open-file limit: %v\n", err)
	}
}

// loadRun is one load run: its counters, its samples and its errors.
type loadRun struct {
	cfg      loadConfig
	base     *url.URL
	httpBase string
	clients  []*http.Client // one per source address
	stopping atomic.Bool    // the duration is over: no new rolls or games

	connected, connectFailures  atomic.Int64
	rolls, boards, bytes, games atomic.Int64
	skipped, errorCount         atomic.Int64
	ack, fanout, connect        latencies
	errMu                       sync.Mutex
	errSamples                  []string
	wg                          sync.WaitGroup
}

func newLoadRun(cfg loadConfig, base *url.URL) *loadRun {
	r := &loadRun{cfg: cfg, base: base}
	h := *base
	h.Scheme = strings.Replace(base.Scheme, "ws", "http", 1)
	r.httpBase = strings.TrimRight(h.String(), "/")
	for i := range cfg.Sources {
		d := &net.Dialer{Timeout: 10 * time.Second}
		if cfg.Sources > 1 {
			d.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(1+i))}
		}
		r.clients = append(r.clients, &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 64}})
	}
	return r
}

// fail counts a correctness error and keeps the first few messages.
func (r *loadRun) fail(format string, args ...any) {
	r.errorCount.Add(1)
	r.errMu.Lock()
	if len(r.errSamples) < 20 {
		r.errSamples = append(r.errSamples, fmt.Sprintf(format, args...))
	}
	r.errMu.Unlock()
}

func (r *loadRun) run(ctx context.Context, stderr io.Writer) loadReport {
	before := r.serverVars()
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Duration)
	defer cancel()
	start := time.Now()
	rng := rand.New(rand.NewPCG(r.cfg.Seed, 0x7e2))
	for i := range r.cfg.Lanes {
		l := &loadLane{run: r, n: i, seed: rng.Uint64(), fan: map[uint64]*fanEntry{}}
		r.wg.Go(func() { l.play(ctx, start.Add(r.cfg.Ramp*time.Duration(i)/time.Duration(r.cfg.Lanes))) })
	}
	progressDone := make(chan struct{})
	go r.progress(ctx, stderr, start, progressDone)
	// Read the server's figures shortly before the end, while every
	// connection is still open.
	var during map[string]float64
	select {
	case <-time.After(r.cfg.Duration - min(2*time.Second, r.cfg.Duration/10)):
		during = r.serverVars()
	case <-ctx.Done():
	}
	<-ctx.Done()
	r.stopping.Store(true)
	elapsed := time.Since(start)
	r.wg.Wait()
	<-progressDone
	return r.report(elapsed, before, during)
}

// progress prints a line a second on stderr.
func (r *loadRun) progress(ctx context.Context, w io.Writer, start time.Time, done chan struct{}) {
	defer close(done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var lastRolls, lastBoards int64
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			rolls, boards := r.rolls.Load(), r.boards.Load()
			fmt.Fprintf(w, "%4.0fs conns %d rolls/s %d boards/s %d ack p99 %.1fms fan-out p99 %.1fms errors %d\n",
				now.Sub(start).Seconds(), r.connected.Load(), rolls-lastRolls, boards-lastBoards,
				r.ack.summary().P99, r.fanout.summary().P99, r.errorCount.Load()+r.connectFailures.Load())
			lastRolls, lastBoards = rolls, boards
		}
	}
}

// serverVars reads the server's /debug/vars, if it has them.
func (r *loadRun) serverVars() map[string]float64 {
	res, err := r.clients[0].Get(r.httpBase + "/debug/vars")
	if err != nil {
		return nil
	}
	defer res.Body.Close()
	var all map[string]any
	if json.NewDecoder(res.Body).Decode(&all) != nil {
		return nil
	}
	out := map[string]float64{}
	for k, v := range all {
		if f, ok := v.(float64); ok && strings.HasPrefix(k, "tenpin_") {
			out[strings.TrimPrefix(k, "tenpin_")] = f
		}
	}
	return out
}

// fanEntry follows one seq of a lane until every spectator has seen it.
type fanEntry struct {
	seen   int
	doneAt time.Time // when the last spectator saw it
	sentAt time.Time // when the roll that made it was sent, once acked
}

// loadLane is one lane of the run and its simulated clients.
type loadLane struct {
	run  *loadRun
	n    int
	seed uint64
	id   string

	games atomic.Int64 // games finished

	mu  sync.Mutex
	fan map[uint64]*fanEntry // by seq
}

func playerName(i int) string {
	return string([]byte{'A' + byte(i/676%26), 'A' + byte(i/26%26), 'A' + byte(i%26)})
}

func (l *loadLane) play(ctx context.Context, at time.Time) {
	select {
	case <-time.After(time.Until(at)):
	case <-ctx.Done():
		return
	}
	r := l.run
	body := fmt.Sprintf(`{"name":"load %d"}`, l.n)
	res, err := r.clients[l.n%len(r.clients)].Post(r.httpBase+"/api/lanes", "application/json", strings.NewReader(body))
	if err != nil {
		r.connectFailures.Add(1)
		r.fail("lane %d: create: %v", l.n, err)
		return
	}
	var sum protocol.Lane
	err = json.NewDecoder(res.Body).Decode(&sum)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusCreated {
		r.connectFailures.Add(1)
		r.fail("lane %d: create: %s %v", l.n, res.Status, err)
		return
	}
	l.id = sum.ID

	var wg sync.WaitGroup
	var players []*loadConn
	for i := range r.cfg.Spectators + r.cfg.Players {
		c := &loadConn{lane: l, seat: -1, rng: rand.New(rand.NewPCG(l.seed, uint64(i)))}
		if i >= r.cfg.Spectators {
			c.name = playerName(i - r.cfg.Spectators)
			c.welcomed = make(chan struct{})
			players = append(players, c)
		}
		if !c.dial(ctx, (l.n+i)%len(r.clients)) {
			continue
		}
		wg.Go(func() { c.read(ctx) })
	}
	defer wg.Wait()
	for _, p := range players {
		if p.ws == nil {
			return
		}
		p.send(ctx, fmt.Sprintf(`{"type":"join","name":%q,"id":"join"}`, p.name))
		select {
		case <-p.welcomed:
		case <-ctx.Done():
			return
		}
	}
	if len(players) > 0 {
		players[0].send(ctx, `{"type":"start","id":"start"}`)
	}
	<-ctx.Done()
}

// spectatorSaw records that one spectator has seen every seq up to seq.
func (l *loadLane) spectatorSaw(from, to uint64, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for s := from + 1; s <= to; s++ {
		e := l.fan[s]
		if e == nil {
			e = &fanEntry{}
			l.fan[s] = e
		}
		e.seen++
		if e.seen == l.run.cfg.Spectators {
			e.doneAt = now
			if !e.sentAt.IsZero() {
				l.run.fanout.add(e.doneAt.Sub(e.sentAt))
				delete(l.fan, s)
			}
		}
	}
	for s := range l.fan { // forget seqs no roll will claim: joins, starts, other lanes' noise
		if s+256 < to {
			delete(l.fan, s)
		}
	}
}

// rollAcked records the seq of the board that carries a roll sent at sentAt.
func (l *loadLane) rollAcked(seq uint64, sentAt time.Time) {
	if l.run.cfg.Spectators == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.fan[seq]
	if e == nil {
		e = &fanEntry{}
		l.fan[seq] = e
	}
	e.sentAt = sentAt
	if e.seen == l.run.cfg.Spectators {
		l.run.fanout.add(e.doneAt.Sub(sentAt))
		delete(l.fan, seq)
	}
}

// loadConn is one simulated client: a spectator, or a player if it has a
// name. Its reader goroutine drives it; rolls are sent from timers.
type loadConn struct {
	lane *loadLane
	name string
	ws   *websocket.Conn
	rng  *rand.Rand

	welcomed chan struct{}
	head     []byte // a board's head, for decodeBoardHead; the reader's own

	mu       sync.Mutex // guards what the reader and the roll timers share
	seat     int
	rolls    []int // this player's rolls in the current game
	inflight bool  // a roll sent and not yet acknowledged
	sentAt   time.Time
	last     *seen
	checked  bool // the current game's end has been checked
	lastSeq  uint64
	closing  bool
}

func (c *loadConn) dial(ctx context.Context, source int) bool {
	r := c.lane.run
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	start := time.Now()
	ws, _, err := websocket.Dial(dctx, r.base.String()+"/ws/lanes/"+c.lane.id, &websocket.DialOptions{HTTPClient: r.clients[source]})
	if err != nil {
		if ctx.Err() == nil {
			r.connectFailures.Add(1)
			r.fail("lane %d: connect: %v", c.lane.n, err)
		}
		return false
	}
	ws.SetReadLimit(1 << 20)
	r.connect.add(time.Since(start))
	r.connected.Add(1)
	c.ws = ws
	return true
}

func (c *loadConn) send(ctx context.Context, msg string) {
	if ctx.Err() != nil {
		return // the run is over; a write under a done context would close the socket
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.ws.Write(wctx, websocket.MessageText, []byte(msg)); err != nil && ctx.Err() == nil {
		c.lane.run.fail("lane %d %s: write: %v", c.lane.n, c.who(), err)
	}
}

func (c *loadConn) who() string {
	if c.name == "" {
		return "spectator"
	}
	return c.name
}

// read handles the server's messages until the run ends, then closes.
func (c *loadConn) read(ctx context.Context) {
	r := c.lane.run
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.closing = true
		c.mu.Unlock()
		c.ws.Close(websocket.StatusNormalClosure, "load run over")
	})
	defer stop()
	defer r.connected.Add(-1)
	var buf bytes.Buffer
	for {
		if err := readMessage(c.ws, &buf); err != nil {
			c.mu.Lock()
			closing := c.closing
			c.mu.Unlock()
			if !closing && ctx.Err() == nil {
				r.fail("lane %d %s: connection closed: %v", c.lane.n, c.who(), err)
			}
			return
		}
		r.bytes.Add(int64(buf.Len()))
		c.handle(ctx, buf.Bytes())
	}
}

// readMessage reads the next message into buf, reusing its space: a
// connection reads all its messages into one buffer.
func readMessage(ws *websocket.Conn, buf *bytes.Buffer) error {
	_, r, err := ws.Reader(context.Background())
	if err != nil {
		return err
	}
	buf.Reset()
	_, err = buf.ReadFrom(r)
	return err
}

// message is any server message. A board's players stay undecoded: a
// player decodes its own only (see seen).
type message struct {
	Type    protocol.Type     `json:"type"`
	Seq     uint64            `json:"seq"`
	Phase   protocol.Phase    `json:"phase"`
	Up      *protocol.Up      `json:"up"`
	Players []json.RawMessage `json:"players"`
	Ref     string            `json:"ref"`
	Code    protocol.Code     `json:"code"`
	Message string            `json:"message"`
	Seat    int               `json:"seat"`
}

// decodeBoardHead decodes a board's head into m (see
// protocol.DecodeBoardHead), using buf.
func decodeBoardHead(data []byte, buf *[]byte, m *message) bool {
	var h protocol.BoardHead
	if !protocol.DecodeBoardHead(data, buf, &h) {
		return false
	}
	m.Type, m.Seq, m.Phase, m.Up = protocol.TypeBoard, h.Seq, h.Phase, h.Up
	return true
}

// seen is what a player takes from a board: the phase, who is up, and its
// own line (nil if the board has no player in its seat).
type seen struct {
	phase protocol.Phase
	up    *protocol.Up
	me    *protocol.Player
}

func (c *loadConn) handle(ctx context.Context, data []byte) {
	r := c.lane.run
	now := time.Now()
	var m message
	if seq, ok := protocol.BoardSeq(data); ok && c.name == "" {
		m.Type, m.Seq = protocol.TypeBoard, seq // a spectator needs no more
	} else if c.name != "" && decodeBoardHead(data, &c.head, &m) {
		// A player decodes the rest only when it needs its own line.
	} else if err := json.Unmarshal(data, &m); err != nil {
		r.fail("lane %d %s: undecodable message: %v", c.lane.n, c.who(), err)
		return
	}
	switch m.Type {
	case protocol.TypeBoard:
		r.boards.Add(1)
		c.mu.Lock()
		last := c.lastSeq
		if m.Seq < last || (m.Seq == last && last != 0) {
			c.mu.Unlock()
			r.fail("lane %d %s: board seq %d after %d", c.lane.n, c.who(), m.Seq, last)
			return
		}
		if last != 0 && m.Seq > last+1 {
			r.skipped.Add(int64(m.Seq - last - 1))
		}
		c.lastSeq = m.Seq
		c.mu.Unlock()
		if c.name == "" {
			if r.cfg.Spectators > 0 {
				from := last // a board stands for the seqs skipped before it too
				if from == 0 {
					from = m.Seq - 1
				}
				c.lane.spectatorSaw(from, m.Seq, now)
			}
			return
		}
		b := &seen{phase: m.Phase, up: m.Up}
		c.mu.Lock()
		seat, checked := c.seat, c.checked
		c.mu.Unlock()
		// Its own line matters to a player when it is up, and when a game
		// it has not checked yet is over.
		mine := (m.Phase == protocol.PhasePlaying && m.Up != nil && m.Up.Seat == seat) ||
			(m.Phase == protocol.PhaseFinished && !checked)
		if mine && m.Players == nil { // only the board's head was decoded
			if err := json.Unmarshal(data, &m); err != nil {
				r.fail("lane %d %s: undecodable message: %v", c.lane.n, c.who(), err)
				return
			}
		}
		if mine && seat >= 0 && seat < len(m.Players) {
			b.me = new(protocol.Player)
			if err := json.Unmarshal(m.Players[seat], b.me); err != nil {
				r.fail("lane %d %s: undecodable player: %v", c.lane.n, c.who(), err)
				return
			}
		}
		c.onBoard(ctx, b)
	case protocol.TypeWelcome:
		c.mu.Lock()
		c.seat = m.Seat
		c.mu.Unlock()
		close(c.welcomed)
	case protocol.TypeAck:
		if !strings.HasPrefix(m.Ref, "roll") {
			return
		}
		c.mu.Lock()
		sentAt := c.sentAt
		c.inflight = false
		board := c.last
		c.mu.Unlock()
		r.ack.add(now.Sub(sentAt))
		c.lane.rollAcked(m.Seq, sentAt)
		if board != nil {
			c.onBoard(ctx, board)
		}
	case protocol.TypeError:
		if c.lane.run.stopping.Load() && m.Code == protocol.CodeLaneClosed {
			return
		}
		r.fail("lane %d %s: error %s: %s", c.lane.n, c.who(), m.Code, m.Message)
	default:
		r.fail("lane %d %s: unknown message type %q", c.lane.n, c.who(), m.Type)
	}
}

// onBoard is a player's reaction to a board: check a finished game, ask
// for a rematch, or roll when it is up.
func (c *loadConn) onBoard(ctx context.Context, b *seen) {
	r := c.lane.run
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = b
	if b.me == nil {
		return
	}
	me := b.me
	bowled := 0
	for _, f := range me.Frames {
		bowled += len(f.Rolls)
	}
	if bowled == 0 && b.phase == protocol.PhasePlaying {
		c.rolls, c.checked = c.rolls[:0], false // a new game
	}
	switch b.phase {
	case protocol.PhaseFinished:
		if c.checked {
			return // later boards of the same finished game: spectators coming and going
		}
		c.checked = true
		g, err := bowling.Replay(c.rolls)
		if err != nil || g.Total() != me.Total || bowled != len(c.rolls) {
			r.fail("lane %d %s: finished with total %d from %d rolls; the %d rolls sent give %d (%v)", c.lane.n, c.name, me.Total, bowled, len(c.rolls), g.Total(), err)
		}
		if c.seat == 0 {
			r.games.Add(1)
			n := c.lane.games.Add(1)
			if !r.stopping.Load() && (r.cfg.Games == 0 || int(n) < r.cfg.Games) {
				go c.send(ctx, `{"type":"rematch","id":"rematch"}`)
			}
		}
	case protocol.PhasePlaying:
		if b.up == nil || b.up.Seat != c.seat || c.inflight || bowled != len(c.rolls) || r.stopping.Load() {
			return
		}
		pins := c.rng.IntN(b.up.Standing + 1)
		if c.rng.IntN(4) == 0 {
			pins = b.up.Standing // strikes and spares, often
		}
		frame, ball := b.up.Frame, b.up.Ball
		c.inflight = true
		c.rolls = append(c.rolls, pins)
		ref := fmt.Sprintf("roll-%d", len(c.rolls))
		time.AfterFunc(r.cfg.Think, func() {
			c.mu.Lock()
			c.sentAt = time.Now()
			c.mu.Unlock()
			r.rolls.Add(1)
			c.send(ctx, fmt.Sprintf(`{"type":"roll","pins":%d,"frame":%d,"ball":%d,"id":%q}`, pins, frame, ball, ref))
		})
	}
}

// loadReport is the final report.
type loadReport struct {
	Config          loadConfig         `json:"config"`
	Seconds         float64            `json:"seconds"`
	Connections     int                `json:"connections"`
	ConnectFailures int64              `json:"connect_failures"`
	Connect         summary            `json:"connect"`
	Rolls           int64              `json:"rolls"`
	RollsPerSec     float64            `json:"rolls_per_sec"`
	Boards          int64              `json:"boards"`
	BoardsPerSec    float64            `json:"boards_per_sec"`
	BytesPerSec     float64            `json:"bytes_per_sec"`
	Games           int64              `json:"games"`
	SkippedSeqs     int64              `json:"skipped_seqs"`
	Ack             summary            `json:"ack"`
	Fanout          summary            `json:"fanout"`
	Errors          int64              `json:"errors"`
	ErrorSamples    []string           `json:"error_samples,omitempty"`
	ServerBefore    map[string]float64 `json:"server_before,omitempty"`
	ServerDuring    map[string]float64 `json:"server_during,omitempty"`
	RSSPerConnKiB   float64            `json:"rss_per_connection_kib,omitempty"`
}

func (r *loadRun) report(elapsed time.Duration, before, during map[string]float64) loadReport {
	secs := elapsed.Seconds()
	rep := loadReport{
		Config:          r.cfg,
		Seconds:         secs,
		Connections:     len(r.connect.samples),
		ConnectFailures: r.connectFailures.Load(),
		Connect:         r.connect.summary(),
		Rolls:           r.rolls.Load(),
		RollsPerSec:     float64(r.rolls.Load()) / secs,
		Boards:          r.boards.Load(),
		BoardsPerSec:    float64(r.boards.Load()) / secs,
		BytesPerSec:     float64(r.bytes.Load()) / secs,
		Games:           r.games.Load(),
		SkippedSeqs:     r.skipped.Load(),
		Ack:             r.ack.summary(),
		Fanout:          r.fanout.summary(),
		Errors:          r.errorCount.Load(),
		ErrorSamples:    r.errSamples,
		ServerBefore:    before,
		ServerDuring:    during,
	}
	if before != nil && during != nil && during["connections"] > before["connections"] {
		rep.RSSPerConnKiB = (during["rss_bytes"] - before["rss_bytes"]) / (during["connections"] - before["connections"]) / 1024
	}
	return rep
}

func (rep loadReport) print(w io.Writer) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "load: %d lanes × (%d players + %d spectators) against %s for %.1fs\n",
		rep.Config.Lanes, rep.Config.Players, rep.Config.Spectators, rep.Config.URL, rep.Seconds)
	fmt.Fprintf(&b, "connections  %d (%d failed), connect p50 %.1fms p99 %.1fms max %.1fms\n",
		rep.Connections, rep.ConnectFailures, rep.Connect.P50, rep.Connect.P99, rep.Connect.Max)
	fmt.Fprintf(&b, "rolls        %d (%.0f/s), games %d\n", rep.Rolls, rep.RollsPerSec, rep.Games)
	fmt.Fprintf(&b, "boards       %d (%.0f/s, %.1f MB/s), seqs skipped for slow readers %d\n", rep.Boards, rep.BoardsPerSec, rep.BytesPerSec/1e6, rep.SkippedSeqs)
	fmt.Fprintf(&b, "ack          p50 %.2fms p90 %.2fms p99 %.2fms max %.2fms (%d)\n", rep.Ack.P50, rep.Ack.P90, rep.Ack.P99, rep.Ack.Max, rep.Ack.Count)
	fmt.Fprintf(&b, "fan-out      p50 %.2fms p90 %.2fms p99 %.2fms max %.2fms (%d)\n", rep.Fanout.P50, rep.Fanout.P90, rep.Fanout.P99, rep.Fanout.Max, rep.Fanout.Count)
	if rep.ServerDuring != nil {
		fmt.Fprintf(&b, "server       %.0f connections, %.0f goroutines, heap %.1f MiB, RSS %.1f MiB",
			rep.ServerDuring["connections"], rep.ServerDuring["goroutines"], rep.ServerDuring["heap_bytes"]/(1<<20), rep.ServerDuring["rss_bytes"]/(1<<20))
		if rep.RSSPerConnKiB > 0 {
			fmt.Fprintf(&b, ", %.1f KiB RSS per connection", rep.RSSPerConnKiB)
		}
		fmt.Fprintln(&b)
	}
	fmt.Fprintf(&b, "errors       %d\n", rep.Errors)
	for _, e := range rep.ErrorSamples {
		fmt.Fprintf(&b, "  %s\n", e)
	}
	w.Write(b.Bytes())
}
