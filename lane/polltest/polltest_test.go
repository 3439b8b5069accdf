package polltest_test

import (
	"context"
	"errors"
	"fmt"
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
