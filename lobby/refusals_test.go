package lobby

import (
	"errors"
	"testing"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/protocol"
)

// TestRefusalSentinels checks that each refusal the lobby's callers tell
// apart comes, wrapped as an error, as its sentinel, and that the client
// is told the same words through lane.ErrorFor. (protocol's
// TestRefusalTexts pins the words, with their arguments; here they go
// without, the same on both sides.)
func TestRefusalSentinels(t *testing.T) {
	for r, s := range sentinels {
		e := r.Error()
		err := refused(r)
		if !errors.Is(err, s) {
			t.Errorf("refusal %d: %v is not %v", r, err, s)
		}
		if pe, known := lane.ErrorFor(err); !known || *pe != *e {
			t.Errorf("refusal %d: lane.ErrorFor(%v) = %+v, %v; want %+v", r, err, pe, known, e)
		}
	}
	if pe, known := lane.ErrorFor(refused(protocol.RefuseJoins, 2)); !known || *pe != *protocol.RefuseJoins.Error(2) {
		t.Errorf("a refusal with no sentinel: lane.ErrorFor = %+v, %v; want %+v", pe, known, protocol.RefuseJoins.Error(2))
	}
}
