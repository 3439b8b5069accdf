package api

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// invite returns the lane's invitation. The server's own addresses are
// the lobby's URLs; without them, the address the request came to is the
// best guess.
func (a *API) invite(r *http.Request, id string) protocol.Invite {
	bases := a.urls
	if len(bases) == 0 {
		bases = []string{a.baseURL(r)}
	}
	inv := protocol.Invite{QR: "/api/lanes/" + url.PathEscape(id) + "/qr.png"}
	for _, b := range bases {
		inv.URLs = append(inv.URLs, strings.TrimSuffix(b, "/")+"/lanes/"+url.PathEscape(id))
	}
	inv.URL = inv.URLs[0]
	return inv
}

// baseURL returns the server's address friends' phones open: the first
// of the lobby's URLs, or the address the request came to.
func (a *API) baseURL(r *http.Request) string {
	if urls := a.urls; len(urls) > 0 {
		return strings.TrimSuffix(urls[0], "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (a *API) getInvite(w http.ResponseWriter, r *http.Request) {
	if l, ok := a.lane(w, r); ok {
		a.writeJSON(w, http.StatusOK, a.invite(r, l.ID()))
	}
}

// getQR answers the QR code of the lane's link: with the invitation the
// request's protocol.InviteHeader gives, in the link's fragment, the code
// a phone joins with; without, one it watches with. A code not drawn yet
// costs the address one of its QRRate.
func (a *API) getQR(w http.ResponseWriter, r *http.Request) {
	invite := r.Header.Get(protocol.InviteHeader)
	if invite != "" && !protocol.ValidInvite(invite) {
		a.failErr(w, protocol.RefuseNotInvitation.Error(protocol.InviteHeader))
		return
	}
	l, ok := a.lane(w, r)
	if !ok {
		return
	}
	text := a.invite(r, l.ID()).URL
	if invite != "" {
		text += "#invite=" + invite
	}
	w.Header().Add("Vary", protocol.InviteHeader)
	data, kept := a.qrs.Get(text)
	if !kept {
		if ok, wait := a.qrDraws.Allow(a.admit.ClientAddr(r), time.Now()); !ok {
			a.tooMany(w, wait, lobby.LimitQRCodes, protocol.RefuseQRCodesFast)
			return
		}
		var err error
		if data, err = a.qrs.PNG(text); err != nil {
			a.failErr(w, err)
			return
		}
	}
	w.Header().Set("Content-Type", "image/png")
	if invite != "" {
		// It seats whoever scans it: no cache but the asker's keeps it.
		w.Header().Set("Cache-Control", "private, no-store")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	w.Write(data)
}
