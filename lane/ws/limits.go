package ws

import (
	"time"
)

// Limits, each with the reason for its value. Those operators may want to
// change are defaults of [Config].
const (
	// WriteTimeout bounds every write to a client: a write gets between half
	// of it and all of it (see batchConn.arm). A client that cannot take a
	// board in that time has stopped reading and is dropped.
	WriteTimeout = 10 * time.Second

	// PingInterval is how often an idle connection is pinged, and
	// PongTimeout how long the pong may take before the connection is
	// considered dead: phones on flaky networks get a generous allowance.
	PingInterval = 30 * time.Second
	PongTimeout  = 15 * time.Second

	// MessagesPerSecond and MessageBurst are each connection's token
	// bucket: a person sends a message or two a second, a load-test client
	// a few; a burst absorbs a page's reconnect (resume, then a roll).
	// Pings and pongs count too (but for the pong that answers the
	// server's ping): answering a ping costs the server a write, and
	// browsers seldom send pings of their own. A ping over the rate is not
	// answered.
	MessagesPerSecond = 20
	MessageBurst      = 40

	// FloodLimit is how many frames in a row a connection may send over its
	// rate before it is disconnected with StatusPolicyViolation: a client
	// that keeps sending regardless is not a client we can serve. At the
	// default rate it takes over 2,000 frames a second, and a ping flood is
	// closed after about 140 pings.
	FloodLimit = 100

	// maxQueuedBoards is how many boards may wait for a slow client before
	// the older ones are dropped: boards are full snapshots, so only the
	// newest matters. The boards' bytes are shared by every client, so a
	// queue costs a slice header a board; 64 lets a client whose writer was
	// not scheduled for a moment on a busy machine catch up without a gap.
	maxQueuedBoards = 64

	// maxQueuedReplies bounds the answers (errors, acks, welcomes) waiting
	// for a client. A client that sends faster than it reads its answers is
	// dropped when they reach this.
	maxQueuedReplies = 64
)

// Connection buffers. Clients send small messages (a roll is under 60
// bytes; the largest allowed is protocol.MaxMessageSize): what they send
// is read into a pooled buffer held only while bytes wait (see read.go),
// and what the server writes is gathered in a pooled buffer only while a
// batch is written (see batchConn). net/http's 4 KiB reader and writer
// would sit idle most of a connection's life, once for each of many
// connections.
const (
	readBufferSize  = 16  // the library's reader, bufio's least: it reads frame headers from batchConn's buffer, payloads past it
	writeBufferSize = 256 // frames pass through it on their way to batchConn

	// maxPooledBatch is the largest batch buffer kept for reuse: a batch of
	// boards for a client that fell behind may be larger, and is rare.
	maxPooledBatch = 64 << 10
)

// Config holds a connection's settings. The zero value gives the
// defaults.
type Config struct {
	WriteTimeout time.Duration // per write to a client; default WriteTimeout
	PingInterval time.Duration // heartbeat; default PingInterval
	PongTimeout  time.Duration // how long a pong may take; default PongTimeout
	MessageRate  float64       // messages per second per connection; default MessagesPerSecond
	MessageBurst int           // default MessageBurst

	// The limits per client address a lane's socket spends on joins, as
	// the HTTP API spends its own (see [AddrLimit]); each is nil for none.
	// Addr is the connection's client address they count against, set
	// for each connection.
	//
	// Joins bounds the joins an address makes: each stores a seat in its
	// lane's log. KeyGuesses bounds the bowler keys it tries, and
	// NewBowlers the joins it asks to be remembered (each may make a
	// bowler).
	Joins      AddrLimit
	KeyGuesses AddrLimit
	NewBowlers AddrLimit
	Addr       string

	// Poller, if not nil, serves the connections at rest and runs their
	// readers and writers (see [Poller]); it is its server's, which runs
	// it. With none, each connection's reader waits in a read for as long
	// as the connection lasts, and its writers start goroutines of their
	// own.
	Poller *Poller
}

// AddrLimit is a bound on what a client address may do: a count of
// tokens it spends. A join spends its address's tokens before the lane
// reads it, and is refused with Spend's error when one is missing; each
// is given back (Refund) once the join is answered if it cost nothing in
// the end:
//
//   - Joins: a join the lane refused (it stored nothing);
//   - KeyGuesses: a join with a bowler key the lane knew (a phone joining
//     with its own key costs nothing; an address guessing keys is held
//     to the same rate on a lane's socket as on the HTTP API);
//   - NewBowlers: a join asking to be remembered whose welcome carries
//     no new bowler key (refused, or seated as a guest).
type AddrLimit interface {
	// Spend spends one of addr's tokens, or returns the refusal (a
	// *protocol.Error, rate_limited) if it has none left.
	Spend(addr string, now time.Time) error
	// Refund gives back a token Spend spent.
	Refund(addr string)
}

func (c Config) withDefaults() Config {
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = WriteTimeout
	}
	if c.PingInterval <= 0 {
		c.PingInterval = PingInterval
	}
	if c.PongTimeout <= 0 {
		c.PongTimeout = PongTimeout
	}
	if c.MessageRate <= 0 {
		c.MessageRate = MessagesPerSecond
	}
	if c.MessageBurst <= 0 {
		c.MessageBurst = MessageBurst
	}
	return c
}
