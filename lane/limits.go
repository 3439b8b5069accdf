package lane

import "time"

// Limits, each with the reason for its value. Those operators may want to
// change are defaults of [Config] fields and flags of tenpin serve.
const (
	// MaxPlayers is the seats on a lane: the text board and a phone screen
	// hold eight players comfortably, and real lanes seat fewer.
	MaxPlayers = 8

	// MaxSpectators is the watchers a lane takes by default. Every change is
	// fanned out to all of them, so the limit bounds one lane's share of
	// the server's work.
	MaxSpectators = 200

	// ResumeGrace is how long a connection that arrives while the lane has
	// all its watchers may take to resume a seat before it is turned away
	// (see Lane.attach). The page sends resume as soon as its socket
	// opens, so this covers one trip over a slow phone network with room
	// to spare; a squatter's connection is let go after it.
	ResumeGrace = 5 * time.Second

	// IdleTimeout is how long a lane with nobody connected and no game in
	// play stays open by default: long enough to reload a page or share
	// the link, short enough that abandoned lanes do not pile up.
	IdleTimeout = 5 * time.Minute

	// AbandonTimeout is how long a lane with a game in play (a ball bowled) but nobody
	// connected waits for its players to come back.
	AbandonTimeout = time.Hour

	// AppendTimeout bounds one append to the journal. An in-process store
	// answers in well under a millisecond; one that takes seconds is down,
	// and the player is better told to try again than left waiting while
	// the lane's other messages queue behind the append.
	AppendTimeout = 2 * time.Second

	// storeRetryPause is how long a lane whose store failed refuses
	// commands at once, without asking the store, before it tries again:
	// long enough that an outage does not make every message wait for a
	// read that fails, short enough that players barely notice the store
	// coming back.
	storeRetryPause = time.Second

	// inboxSize is the buffer of a lane's command channel: it absorbs
	// bursts so that readers rarely wait on a busy lane. Every lane pays
	// for it (96 bytes a slot: keep a request small), so it is sized for
	// a lane's dozen connections sending at once, not for thousands (64
	// slots were 4.6 KB a lane, 0.5 KiB of every connection's share at 500
	// lanes of ten).
	inboxSize = 16

	// fanOutYield is how many clients a lane queues a board for before it
	// yields the processor (see changed): a burst of runnable writers as
	// large as a crowded lane's watchers would hold every other lane back.
	fanOutYield = 128

	// DirectBoards is how many clients a lane, or a relay of it, writes a
	// board to itself (see BoardWriter), before it queues the board for the others'
	// writers (and the roller, whose board comes first, besides). A lane
	// of a dozen writes to all of them; a crowded lane would make one
	// goroutine of the writes of thousands, at the back of the run queue
	// after each yield: with 10,000 watchers beside 200 lanes it fell
	// behind by seconds and its watchers skipped boards.
	DirectBoards = fanOutYield
)
