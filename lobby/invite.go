package lobby

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/boombuler/barcode/qr"

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
	text := lb.invite(r, l.ID()).URL
	data, kept := lb.qrs.get(text)
	if !kept {
		if ok, wait := lb.admit.qrDraws.allow(lb.clientAddr(r), time.Now()); !ok {
			lb.rateLimited(LimitQRCodes)
			lb.tooMany(w, wait, refuseQRCodesFast)
			return
		}
		var err error
		if data, err = lb.qrs.png(text); err != nil {
			lb.failErr(w, err)
			return
		}
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(data)
}

// qrCache keeps the QR codes drawn, by their text: a code takes about a
// millisecond to draw and encode, and every phone that opens a lane asks
// for it. It holds at most qrCacheSize codes (a few KB each), and starts
// afresh when full.
type qrCache struct {
	mu    sync.Mutex
	codes map[string][]byte
}

const qrCacheSize = 1024

// get returns the code of text, if it is kept.
func (c *qrCache) get(text string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	data, ok := c.codes[text]
	return data, ok
}

// png returns the code of text, drawing it if it is not kept.
func (c *qrCache) png(text string) ([]byte, error) {
	if data, ok := c.get(text); ok {
		return data, nil
	}
	data, err := qrPNG(text)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.codes == nil || len(c.codes) >= qrCacheSize {
		c.codes = make(map[string][]byte)
	}
	c.codes[text] = data
	c.mu.Unlock()
	return data, nil
}

// qrEncoder reuses its compressor, a megabyte to make: a black and white
// code compresses well at any level.
var qrEncoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: new(pngPool)}

type pngPool struct{ p sync.Pool }

func (p *pngPool) Get() *png.EncoderBuffer {
	b, _ := p.p.Get().(*png.EncoderBuffer)
	return b
}

func (p *pngPool) Put(b *png.EncoderBuffer) { p.p.Put(b) }

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
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y := range n {
		for x := range n {
			if lum, _, _, _ := code.At(x, y).RGBA(); lum >= 0x8000 {
				continue // a light module
			}
			for py := (y + qrQuiet) * qrModule; py < (y+qrQuiet+1)*qrModule; py++ {
				row := img.Pix[py*img.Stride:]
				clear(row[(x+qrQuiet)*qrModule : (x+qrQuiet+1)*qrModule])
			}
		}
	}
	var buf bytes.Buffer
	if err := qrEncoder.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("lobby: encoding a QR code: %w", err)
	}
	return buf.Bytes(), nil
}
