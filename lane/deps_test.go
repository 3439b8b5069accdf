package lane_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDependencies: the lane and its domain know nothing of what carries
// a client, nor of the store and the cluster; the domain packages
// (pure: no I/O) not even the network.
func TestDependencies(t *testing.T) {
	transports := []string{"github.com/coder/websocket", "github.com/nats-io/", "github.com/tenpin/tenpin/lane/ws", "github.com/tenpin/tenpin/lane/relay", "github.com/tenpin/tenpin/lobby"}
	network := append([]string{"net"}, transports...)
	for _, tt := range []struct {
		pkg     string
		without []string
	}{
		{"github.com/tenpin/tenpin/lane", transports},
		{"github.com/tenpin/tenpin/lane/bowling", network},
		{"github.com/tenpin/tenpin/lane/game", network},
		{"github.com/tenpin/tenpin/lane/bowler", network},
		{"github.com/tenpin/tenpin/lane/league", network},
	} {
		out, err := exec.Command("go", "list", "-deps", tt.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", tt.pkg, err)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, tt.pkg) {
			t.Fatalf("go list -deps %s does not list the package itself: %q", tt.pkg, out)
		}
		for _, d := range deps {
			for _, w := range tt.without {
				if d == w || strings.HasPrefix(d, strings.TrimSuffix(w, "/")+"/") {
					t.Errorf("%s depends on %s", tt.pkg, d)
				}
			}
		}
	}
}
