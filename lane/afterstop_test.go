package lane_test

import (
	"context"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/protocol"
)

// TestAfterStop: a callback registered on a lane runs once the lane has
// stopped, and on a relay once it has closed; not before.
func TestAfterStop(t *testing.T) {
	for _, tt := range []struct {
		name  string
		start func(t *testing.T, f func()) (end func())
	}{
		{"lane", func(t *testing.T, f func()) func() {
			l := lane.New("stops", "stops", lane.Config{})
			ctx, cancel := context.WithCancel(context.Background())
			go l.Run(ctx)
			l.AfterStop(f)
			return cancel
		}},
		{"relay", func(t *testing.T, f func()) func() {
			r := relay.New("closes", nil, lane.Config{})
			r.AfterClose(f)
			return func() { r.Close(protocol.CodeUnavailable, "the test is over") }
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			called := make(chan struct{}, 2)
			end := tt.start(t, func() { called <- struct{}{} })
			select {
			case <-called:
				t.Fatal("called before the end")
			case <-time.After(50 * time.Millisecond): // a callback called early would have run by now
			}
			end()
			select {
			case <-called:
			case <-time.After(10 * time.Second):
				t.Fatal("not called after the end")
			}
		})
	}
}
