package api

import (
	"io"
	"net/http"
	"strings"

	"github.com/tenpin/tenpin/protocol"
)

// health answers ok while the server runs and its store takes writes,
// followed by a line naming the kinds of data whose budget is full, if
// any (the server refuses those alone).
// It answers pages of any origin (and only it does): a page served by
// another node of the cluster probes this one before it moves here, and
// "ok" tells it nothing it could not learn by moving.
func (a *API) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	full, err := a.lanes.Health(r.Context())
	if err != nil {
		a.log.Warn("health check failed", "err", err)
		a.failErr(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
	if len(full) > 0 {
		io.WriteString(w, "full: "+strings.Join(full, ", ")+"\n")
	}
}

// getNodes answers GET /api/nodes: the nodes of the cluster, each with
// the addresses friends can open it at.
func (a *API) getNodes(w http.ResponseWriter, r *http.Request) {
	a.writeJSON(w, http.StatusOK, protocol.Nodes{Nodes: a.lanes.Nodes()})
}
