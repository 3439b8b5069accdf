package lobby

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"net/http"
	"net/url"
	"strings"

	"github.com/boombuler/barcode/qr"

	"github.com/tenpin/tenpin/protocol"
)

// Invite is the answer of GET /api/lanes/{id}/invite: the lane's link at
// an address a phone on the same network can open, even when the browser
// asking is on localhost, every such link, and a QR code of the first.
type Invite struct {
	URL  string   `json:"url"`
	URLs []string `json:"urls"`
	QR   string   `json:"qr"` // the path of a PNG of URL
}

// invite returns the lane's invitation. The server's own addresses come
// from Config.URLs; without them, the address the request came to is the
// best guess.
func (lb *Lobby) invite(r *http.Request, id string) Invite {
	bases := lb.cfg.URLs
	if len(bases) == 0 {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		bases = []string{scheme + "://" + r.Host}
	}
	inv := Invite{QR: "/api/lanes/" + url.PathEscape(id) + "/qr.png"}
	for _, b := range bases {
		inv.URLs = append(inv.URLs, strings.TrimSuffix(b, "/")+"/lanes/"+url.PathEscape(id))
	}
	inv.URL = inv.URLs[0]
	return inv
}

func (lb *Lobby) getInvite(w http.ResponseWriter, r *http.Request) {
	if l, ok := lb.lane(w, r); ok {
		writeJSON(w, http.StatusOK, lb.invite(r, l.ID()))
	}
}

// qrModule and qrQuiet size the QR image: pixels a module, and the
// margin of white modules the standard asks for around the code.
const (
	qrModule = 8
	qrQuiet  = 4
)

func (lb *Lobby) getQR(w http.ResponseWriter, r *http.Request) {
	l, ok := lb.lane(w, r)
	if !ok {
		return
	}
	data, err := qrPNG(lb.invite(r, l.ID()).URL)
	if err != nil {
		lb.fail(w, protocol.CodeInternal, err.Error())
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(data)
}

// qrPNG draws text as a QR code (error correction M: a phone screen or
// a printout may be smudged) in a PNG, with its quiet zone.
func qrPNG(text string) ([]byte, error) {
	code, err := qr.Encode(text, qr.M, qr.Auto)
	if err != nil {
		return nil, fmt.Errorf("lobby: a QR code of %q: %w", text, err)
	}
	n := code.Bounds().Dx()
	side := (n + 2*qrQuiet) * qrModule
	img := image.NewGray(image.Rect(0, 0, side, side))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for y := range n {
		for x := range n {
			if c := color.GrayModel.Convert(code.At(x, y)).(color.Gray); c.Y < 128 {
				px := image.Rect((x+qrQuiet)*qrModule, (y+qrQuiet)*qrModule, (x+qrQuiet+1)*qrModule, (y+qrQuiet+1)*qrModule)
				draw.Draw(img, px, image.Black, image.Point{}, draw.Src)
			}
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("lobby: encoding a QR code: %w", err)
	}
	return buf.Bytes(), nil
}
