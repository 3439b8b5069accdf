package polltest_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tenpin/tenpin/lane/polltest"
)

// TestWait: a condition that comes to hold is waited for, and no longer;
// one that never does ends the wait when the context does, with an error
// that names what was awaited, the time waited and the last state seen.
// In a synctest bubble, so that the times are exact.
func TestWait(t *testing.T) {
	for _, tt := range []struct {
		name    string
		holdsAt int // the check at which the condition holds; 0: never
		timeout time.Duration
		took    time.Duration
		err     string // "" for none
	}{
		{"holds at once", 1, time.Second, 0, ""},
		{"holds at the third check", 3, time.Second, 2 * polltest.Every, ""},
		{"never holds", 0, time.Second, time.Second, "waited 1s for the count to reach 0: context deadline exceeded; last seen: 101 checks"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), tt.timeout)
				defer cancel()
				var checks atomic.Int32
				start := time.Now()
				err := polltest.Wait(ctx, "the count to reach 0", func() (any, bool) {
					n := checks.Add(1)
					return fmt.Sprint(n, " checks"), int(n) == tt.holdsAt
				})
				if took := time.Since(start); took != tt.took {
					t.Errorf("Wait took %v, want %v", took, tt.took)
				}
				switch {
				case tt.err == "" && err != nil:
					t.Errorf("Wait = %v, want nil", err)
				case tt.err != "" && (err == nil || err.Error() != tt.err):
					t.Errorf("Wait = %v, want %q", err, tt.err)
				}
				if tt.err != "" && !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Wait = %v, want it to wrap %v", err, context.DeadlineExceeded)
				}
			})
		})
	}
}

// fatalTB records what Until fails a test with, and ends the goroutine
// as t.Fatal does.
type fatalTB struct {
	testing.TB
	failed string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatal(args ...any) {
	f.failed = fmt.Sprint(args...)
	runtime.Goexit()
}

// TestUntil: a condition that holds fails nothing; one that does not
// within the timeout fails the test with what was awaited, for how long,
// and the state last seen.
func TestUntil(t *testing.T) {
	for _, tt := range []struct {
		name   string
		holds  bool
		failed string // "" for not failed
	}{
		{"holds", true, ""},
		{"never holds", false, "waited 50ms for lane l1 to be listed on n2: context deadline exceeded; last seen: [l2 l3]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fatalTB{TB: t}
				done := make(chan struct{})
				go func() {
					defer close(done)
					polltest.Until(f, 50*time.Millisecond, "lane l1 to be listed on n2", func() (any, bool) {
						return []string{"l2", "l3"}, tt.holds
					})
				}()
				<-done
				if f.failed != tt.failed {
					t.Errorf("Until failed the test with %q, want %q", f.failed, tt.failed)
				}
			})
		})
	}
}
