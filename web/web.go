// Package web is tenpin's page: plain HTML, CSS and JavaScript embedded in
// the binary, with no build step. One page serves the lobby ("/") and every
// lane ("/lanes/{id}"); it talks to the server through the HTTP API and the
// lane's WebSocket.
package web

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var files embed.FS

// static is the page's files at the root: index.html, app.js, style.css.
var static, _ = fs.Sub(files, "static")

// Handler serves the page: the lobby at "/", a lane at "/lanes/{id}" (the
// same page, which reads the id from its URL), and the assets under
// "/static/".
func Handler() http.Handler {
	mux := http.NewServeMux()
	index := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		http.ServeFileFS(w, r, static, "index.html")
	}
	mux.HandleFunc("GET /{$}", index)
	mux.HandleFunc("GET /lanes/{id}", index)
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	return mux
}
