package lobby

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tenpin/tenpin/protocol"
)

// invite returns the lane's invitation. The server's own addresses come
// from Config.URLs; without them, the address the request came to is the
// best guess.
func (lb *Lobby) invite(r *http.Request, id string) protocol.Invite {
	bases := lb.cfg.URLs
	if len(bases) == 0 {
		bases = []string{lb.baseURL(r)}
	}
	inv := protocol.Invite{QR: "/api/lanes/" + url.PathEscape(id) + "/qr.png"}
	for _, b := range bases {
		inv.URLs = append(inv.URLs, strings.TrimSuffix(b, "/")+"/lanes/"+url.PathEscape(id))
	}
	inv.URL = inv.URLs[0]
	return inv
}

// baseURL returns the server's address friends' phones open: the first
// of Config.URLs, or the address the request came to.
func (lb *Lobby) baseURL(r *http.Request) string {
	if len(lb.cfg.URLs) > 0 {
		return strings.TrimSuffix(lb.cfg.URLs[0], "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (lb *Lobby) getInvite(w http.ResponseWriter, r *http.Request) {
	if l, ok := lb.lane(w, r); ok {
		writeJSON(w, http.StatusOK, lb.invite(r, l.ID()))
	}
}

func (lb *Lobby) getQR(w http.ResponseWriter, r *http.Request) {
	l, ok := lb.lane(w, r)
	if !ok {
		return
	}
	text := lb.invite(r, l.ID()).URL
	data, kept := lb.qrs.Get(text)
	if !kept {
		if ok, wait := lb.admit.qrDraws.allow(lb.clientAddr(r), time.Now()); !ok {
			lb.rateLimited(LimitQRCodes)
			lb.tooMany(w, wait, refuseQRCodesFast)
			return
		}
		var err error
		if data, err = lb.qrs.PNG(text); err != nil {
			lb.failErr(w, err)
			return
		}
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(data)
}
