package api

import (
	"io"
	"net/http"
)

// getBoard answers a lane's board, as its players see it.
func (a *API) getBoard(w http.ResponseWriter, r *http.Request) {
	if l, ok := a.lane(w, r); ok {
		writeJSONBytes(w, http.StatusOK, l.BoardJSON())
	}
}

// getBoardText answers a lane's scoreboard as text.
func (a *API) getBoardText(w http.ResponseWriter, r *http.Request) {
	if l, ok := a.lane(w, r); ok {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, l.BoardText())
	}
}
