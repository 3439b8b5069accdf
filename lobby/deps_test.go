package lobby_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAdapterDependencies: an adapter (a store, a renderer) imports the
// domain's ports and protocol, never the service layer that uses it, nor
// what carries a client: so a store is read, tested and built without a
// WebSocket in it.
func TestAdapterDependencies(t *testing.T) {
	const mod = "github.com/tenpin/tenpin/"
	never := map[string]bool{mod + "lobby": true, mod + "lobby/api": true, mod + "lobby/server": true, mod + "lane/ws": true, mod + "lane/relay": true, mod + "lane": true}
	for _, pkg := range []string{"lobby/natsstore", "lobby/natsconn", "lobby/memjournal", "lobby/qrcode", "lobby/sheet"} {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) == 0 || deps[len(deps)-1] != mod+pkg {
			t.Fatalf("go list -deps %s does not end with the package itself: %q", pkg, out)
		}
		for _, d := range deps {
			if never[d] || strings.HasPrefix(d, "github.com/coder/websocket") {
				t.Errorf("%s depends on %s", pkg, d)
			}
		}
	}
}
