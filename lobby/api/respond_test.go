package api

import (
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// TestAnAnswerThatCannotBeEncoded: an answer that does not encode as JSON
// (a float that is no number) is answered as the server's failure, 500
// internal, not as a success with no body.
func TestAnAnswerThatCannotBeEncoded(t *testing.T) {
	a, _ := newAPI(services(newInMemory(lobby.Config{})), nil)
	for _, v := range []any{math.NaN(), map[string]float64{"points": math.Inf(1)}} {
		w := httptest.NewRecorder()
		a.writeJSON(w, http.StatusOK, v)
		var e protocol.Error
		if err := protocol.Unmarshal(w.Body.Bytes(), &e); w.Code != http.StatusInternalServerError || err != nil || e.Code != protocol.CodeInternal {
			t.Errorf("answering %v: %d %q; want 500 and the error %s", v, w.Code, w.Body, protocol.CodeInternal)
		}
	}
}
