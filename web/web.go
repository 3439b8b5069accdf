// Package web is tenpin's page: plain HTML, CSS and JavaScript embedded in
// the binary, with no build step. One page serves the lobby ("/") and every
// lane ("/lanes/{id}"); it talks to the server through the HTTP API and the
// lane's WebSocket.
package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed static
var files embed.FS

// static is the page's files at the root: index.html, style.css, and the
// script's ES modules under js/ (main.js imports the others), served as
// text/javascript: a module of another type is refused under nosniff.
var static, _ = fs.Sub(files, "static")

// worker is the service worker's script (see serveWorker).
//
//go:embed sw.js
var worker []byte

// version names the page's files as this binary embeds them: a hash of
// every file, so that a release that changes any of them is a new
// version of the service worker, which offers the open pages a reload
// rather than mixing its files with the old ones.
var version = func() string {
	h := sha256.New()
	fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		h.Write([]byte(p + "\x00"))
		h.Write(b)
		return err
	})
	h.Write(worker)
	return hex.EncodeToString(h.Sum(nil))[:12]
}()

// Version is the version of the page's files the service worker caches.
func Version() string { return version }

// shell is what the service worker keeps for a lane's page to open with
// no network: every asset under /static/ but the other pages' HTML
// (index.html is kept as "/", the page of the lobby and of every lane).
var shell = func() []string {
	var out []string
	fs.WalkDir(static, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path.Ext(p) != ".html" {
			out = append(out, "/static/"+p)
		}
		return err
	})
	return out
}()

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
func Handler() http.Handler { return HandlerVersion(version) }

// HandlerVersion is [Handler] with its service worker stamped v rather
// than the files' own version: how a test plays a new release without
// building one.
func HandlerVersion(v string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sw.js", serveWorker(v))
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

// serveWorker serves the service worker at the root, so that its scope
// covers the lobby and every lane. It is the script in sw.js after two
// constants: the version, which names its cache, and the shell it keeps.
// The browser asks for it again on every visit (no-cache): a new version
// is a new script, which installs beside the old one and waits for the
// page to take it.
func serveWorker(v string) http.HandlerFunc {
	list, _ := json.Marshal(shell)
	ver, _ := json.Marshal(v)
	var b strings.Builder
	b.WriteString("const version = " + string(ver) + ";\n")
	b.WriteString("const shell = " + string(list) + ";\n")
	b.Write(worker)
	body := b.String()
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		strings.NewReader(body).WriteTo(w)
	}
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
