// Package polltest waits, in tests, for a condition that other goroutines
// bring about without saying when: a lane listed on another node, a count
// of goroutines come back down, a log line written. It checks the
// condition every few milliseconds until it holds or the time allowed
// runs out, and then says what was awaited and the last state it saw,
// rather than a bare "timed out".
//
// Where there is a message or a channel to wait on, wait on it instead;
// polling is for state that only can be looked at. Inside a synctest
// bubble the time is the bubble's, as for any timer.
//
// It imports nothing of tenpin, so that the tests of any package may use
// it, internal tests of the packages it would otherwise sit above
// included: it sits under lane, the lowest of the packages that tests
// poll (lane/ws, lobby, lobby/natspeers, cmd/tenpin).
package polltest

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Every is how often the condition is checked: often enough that a test
// waits a few milliseconds past the moment it holds, seldom enough that
// checking costs little beside the goroutines it waits for.
const Every = 10 * time.Millisecond

// Until checks cond until it reports ok, and fails the test if it has not
// within timeout, saying what was awaited and the state cond last
// reported (seen: whatever helps read a failure, an error or a count).
// It must be called from the test's goroutine, as t.Fatal must.
func Until(t testing.TB, timeout time.Duration, what string, cond func() (seen any, ok bool)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	if err := Wait(ctx, what, cond); err != nil {
		t.Fatal(err)
	}
}

// Wait checks cond until it reports ok, or until ctx ends: then it
// returns an error that says what was awaited, for how long, and the
// state cond last reported. For helpers that return errors rather than
// fail a test.
func Wait(ctx context.Context, what string, cond func() (seen any, ok bool)) error {
	start := time.Now()
	tick := time.NewTicker(Every)
	defer tick.Stop()
	for {
		seen, ok := cond()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waited %v for %s: %w; last seen: %+v", time.Since(start).Round(time.Millisecond), what, context.Cause(ctx), seen)
		case <-tick.C:
		}
	}
}
