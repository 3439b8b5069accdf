package ws

import (
	"sync"
	"time"

	"github.com/coder/websocket"
)

// limiter is a connection's rate limit. Every frame the client sends
// counts: its messages, and the pings and pongs the WebSocket library
// handles inside Read (see Accept). Those may be read by a close handshake
// on the writer's goroutine while the reader checks a message, hence the
// mutex.
type limiter struct {
	mu       sync.Mutex
	bucket   tokenBucket
	refused  int   // frames over the rate in a row
	flooding bool  // more than FloodLimit of them: conn was dropped
	conn     *Conn // whose rate it is
}

// setRate sets the limit: rate frames a second, in bursts of up to burst.
func (lim *limiter) setRate(rate float64, burst int, now time.Time) {
	lim.mu.Lock()
	lim.bucket = newTokenBucket(rate, burst, now)
	lim.mu.Unlock()
}

// allow reports whether a frame read now is within the rate. A client that
// sends more than FloodLimit frames in a row over it is flooding, and is
// dropped with StatusPolicyViolation.
func (lim *limiter) allow(now time.Time) bool {
	lim.mu.Lock()
	ok, flood := lim.bucket.take(now), false
	switch {
	case ok:
		lim.refused = 0
	case !lim.flooding:
		lim.refused++
		flood = lim.refused > FloodLimit
		lim.flooding = flood
	}
	lim.mu.Unlock()
	if flood {
		lim.conn.closeWith(websocket.StatusPolicyViolation, "flooding")
	}
	return ok
}

// flooded reports whether the client was dropped for flooding.
func (lim *limiter) flooded() bool {
	lim.mu.Lock()
	defer lim.mu.Unlock()
	return lim.flooding
}

// tokenBucket allows rate events a second on average, and bursts of up to
// burst.
type tokenBucket struct {
	rate, tokens, burst float64
	last                time.Time
}

func newTokenBucket(rate float64, burst int, now time.Time) tokenBucket {
	return tokenBucket{rate: rate, tokens: float64(burst), burst: float64(burst), last: now}
}

// take spends a token if there is one.
func (b *tokenBucket) take(now time.Time) bool {
	b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
