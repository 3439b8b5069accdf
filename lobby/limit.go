package lobby

import (
	"sync"
	"time"
)

// Lane creations per client address.
const (
	// CreateRate and CreateBurst bound the lanes one address creates: a
	// burst of 20 for a bowling alley whose groups share one public
	// address at opening time, then one every 6 seconds. One client must
	// not take every lane of the server (10,000 were created in 0.64 s).
	CreateRate  = 10.0 / 60 // a second
	CreateBurst = 20

	// maxTrackedAddrs bounds the addresses whose creations are counted.
	// Past it, everyone's count starts again: under a spray of addresses a
	// bounded memory matters more than perfect fairness, and the lane limit
	// still holds.
	maxTrackedAddrs = 10_000
)

// addrLimiter is a token bucket per client address.
type addrLimiter struct {
	rate, burst float64

	mu      sync.Mutex
	buckets map[string]*addrBucket
}

type addrBucket struct {
	tokens float64
	last   time.Time
}

func newAddrLimiter(rate float64, burst int) *addrLimiter {
	return &addrLimiter{rate: rate, burst: float64(burst), buckets: make(map[string]*addrBucket)}
}

// allow spends one of addr's tokens if it has one; otherwise it says how
// long until it will.
func (a *addrLimiter) allow(addr string, now time.Time) (bool, time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.buckets[addr]
	if b == nil {
		if len(a.buckets) >= maxTrackedAddrs {
			clear(a.buckets)
		}
		b = &addrBucket{tokens: a.burst, last: now}
		a.buckets[addr] = b
	}
	b.tokens = min(a.burst, b.tokens+now.Sub(b.last).Seconds()*a.rate)
	b.last = now
	if b.tokens < 1 {
		return false, time.Duration((1 - b.tokens) / a.rate * float64(time.Second))
	}
	b.tokens--
	return true, 0
}
