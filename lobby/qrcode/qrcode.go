// Package qrcode draws QR codes as PNG images, for a phone's camera to
// open a link: a lane's invitation, a bowler's one-time link code. It is
// apart from the lobby because both the lobby's handlers and its bowlers'
// draw them, and drawing one is all it knows.
package qrcode

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"sync"

	"github.com/boombuler/barcode/qr"
)

// module and quiet size the image: pixels a module, and the margin of
// white modules the standard asks for around the code.
const (
	module = 8
	quiet  = 4
)

// encoder reuses its compressor, a megabyte to make: a black and white
// code compresses well at any level.
var encoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: new(pngPool)}

type pngPool struct{ p sync.Pool }

func (p *pngPool) Get() *png.EncoderBuffer {
	b, _ := p.p.Get().(*png.EncoderBuffer)
	return b
}

func (p *pngPool) Put(b *png.EncoderBuffer) { p.p.Put(b) }

// PNG draws text as a QR code (error correction M: a phone screen or a
// printout may be smudged) in a PNG, with its quiet zone.
func PNG(text string) ([]byte, error) {
	code, err := qr.Encode(text, qr.M, qr.Auto)
	if err != nil {
		return nil, fmt.Errorf("qrcode: a QR code of %q: %w", text, err)
	}
	n := code.Bounds().Dx()
	side := (n + 2*quiet) * module
	img := image.NewGray(image.Rect(0, 0, side, side))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y := range n {
		for x := range n {
			if lum, _, _, _ := code.At(x, y).RGBA(); lum >= 0x8000 {
				continue // a light module
			}
			for py := (y + quiet) * module; py < (y+quiet+1)*module; py++ {
				row := img.Pix[py*img.Stride:]
				clear(row[(x+quiet)*module : (x+quiet+1)*module])
			}
		}
	}
	var buf bytes.Buffer
	if err := encoder.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("qrcode: encoding a QR code: %w", err)
	}
	return buf.Bytes(), nil
}

// Cache keeps the codes drawn, by their text: a code takes about a
// millisecond to draw and encode, and every phone that opens a lane asks
// for its invitation's. It holds at most cacheSize codes (a few KB each),
// and starts afresh when full. The zero value is an empty cache, safe for
// concurrent use.
type Cache struct {
	mu    sync.Mutex
	codes map[string][]byte
}

const cacheSize = 1024

// Get returns the code of text, if it is kept.
func (c *Cache) Get(text string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	data, ok := c.codes[text]
	return data, ok
}

// PNG returns the code of text, drawing it if it is not kept.
func (c *Cache) PNG(text string) ([]byte, error) {
	if data, ok := c.Get(text); ok {
		return data, nil
	}
	data, err := PNG(text)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.codes == nil || len(c.codes) >= cacheSize {
		c.codes = make(map[string][]byte)
	}
	c.codes[text] = data
	c.mu.Unlock()
	return data, nil
}
