package lobby_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestAdapterDependencies: an adapter (a store, a renderer, the cluster)
// imports the domain's ports and protocol, never the service layer that
// uses it, nor what carries a client: so a store is read, tested and
// built without a WebSocket in it. The cluster carries lanes between
// nodes, so it alone imports the lane and its relay.
func TestAdapterDependencies(t *testing.T) {
	const mod = "github.com/tenpin/tenpin/"
	service := []string{mod + "lobby", mod + "lobby/api", mod + "lobby/server", mod + "lane/ws"}
	lanes := []string{mod + "lane", mod + "lane/relay"}
	for pkg, never := range map[string][]string{
		"lobby/natsstore":  slices.Concat(service, lanes),
		"lobby/natsconn":   slices.Concat(service, lanes),
		"lobby/memjournal": slices.Concat(service, lanes),
		"lobby/qrcode":     slices.Concat(service, lanes),
		"lobby/sheet":      slices.Concat(service, lanes),
		"lobby/peers":      service,
		"lobby/natspeers":  service,
	} {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) == 0 || deps[len(deps)-1] != mod+pkg {
			t.Fatalf("go list -deps %s does not end with the package itself: %q", pkg, out)
		}
		for _, d := range deps {
			if slices.Contains(never, d) || strings.HasPrefix(d, "github.com/coder/websocket") {
				t.Errorf("%s depends on %s", pkg, d)
			}
		}
	}
}
