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

// static is the page's files at the root: index.html, style.css, and the
// script's ES modules under js/ (main.js imports the others), served as
// text/javascript: a module of another type is refused under nosniff.
var static, _ = fs.Sub(files, "static")

// csp is the Content-Security-Policy of every response of the page: its
// own scripts, styles and sockets only — but for /healthz on any address,
// which the page asks of another node of the cluster before it moves
// there — and never in another site's frame (frame-ancestors 'none': a
// page that cannot be framed cannot be clickjacked into a roll).
const csp = "default-src 'self'; connect-src 'self' http://*:*/healthz https://*:*/healthz; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"

// Handler serves the page: the lobby at "/", a lane at "/lanes/{id}" (the
// same page, which reads the id from its URL), a lane's TV view at
// "/lanes/{id}/tv" and a house screen at "/tv", a bowler's page at "/me"
// (and shared, read-only, at "/b/{share}"), a league's secretary's form at
// "/leagues/new" and a league's page at "/leagues/{id}", and the assets
// under "/static/". Every response, errors included, carries the same security
// headers (see csp).
func Handler() http.Handler {
	mux := http.NewServeMux()
	index := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, static, "index.html")
	}
	mux.HandleFunc("GET /{$}", index)
	mux.HandleFunc("GET /lanes/{id}", index)
	// The TV view: a lane's board for a screen above it, and a house
	// screen of up to four lanes (?lanes=a,b,c).
	tv := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, static, "tv.html")
	}
	// A bowler's page: this device's bowler (/me), or one shared
	// read-only (/b/{share}).
	me := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, static, "me.html")
	}
	mux.HandleFunc("GET /me", me)
	mux.HandleFunc("GET /b/{share}", me)
	// A league: the secretary's form that creates one, and its page for
	// everyone (standings, schedule, history; the secretary's controls
	// for a device holding the key; printed, the weekly recap).
	page := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "no-cache")
			http.ServeFileFS(w, r, static, name)
		}
	}
	mux.HandleFunc("GET /leagues/new", page("league-new.html"))
	mux.HandleFunc("GET /leagues/{id}", page("league.html"))
	mux.HandleFunc("GET /lanes/{id}/tv", tv)
	mux.HandleFunc("GET /tv", tv)
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	return secure(mux)
}

// secure sets the page's security headers on every response of h.
func secure(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", csp)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}
