package api

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// The lobby's list, GET /api/lanes, a page at a time.
const (
	// ListLimit is the lanes a page of the list holds unless the request
	// says otherwise: a lobby screen's worth, a few times over. The list of
	// 10,000 lanes at once was megabytes, polled every few seconds by
	// every visitor's page.
	ListLimit = 50

	// MaxListLimit is the most lanes a request may ask for at once.
	MaxListLimit = 200

	// listMaxAge is how long the list, and the pages encoded from it, are
	// served again before the list is built anew. At 10,000 lanes building
	// it reads every lane's summary and every visitor's page polls it:
	// built once a second, not once a request, at the cost of a lane's
	// players and phase showing up to a second late in the lobby (lanes
	// created or closed show at once: see lobby.ListVersion).
	listMaxAge = time.Second

	// maxCachedPages bounds the pages kept encoded between two builds of
	// the list: the first page, which most requests want, and a few
	// others. Past it a page is encoded for its request alone.
	maxCachedPages = 64
)

// listCache is the lobby's list as last built, in its order, and the
// pages encoded from it since.
type listCache struct {
	mu      sync.Mutex
	built   time.Time
	version uint64         // the lobby's ListVersion it was built at
	lanes   []lobby.Listed // nil: to be built
	pages   map[pageKey]*encodedPage
}

type pageKey struct {
	after uint64 // the place in the list of the lane before the page
	limit int
}

// encodedPage is one page of the list, encoded.
type encodedPage struct {
	plain []byte
	etag  string // weak: the gzipped bytes carry the same one

	gzOnce sync.Once
	gz     []byte
}

func (p *encodedPage) gzipped() []byte {
	p.gzOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(p.plain)
		zw.Close()
		p.gz = buf.Bytes()
	})
	return p.gz
}

// listLanes serves GET /api/lanes?limit=&after=: ListLimit lanes, or limit
// (1 to MaxListLimit), oldest first, after the lane with the id after (the
// "next" of the previous page). The answer carries a weak ETag; a request
// whose If-None-Match holds it is answered 304. Clients that take gzip
// get it gzipped.
func (a *API) listLanes(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := ListLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxListLimit {
			a.fail(w, protocol.RefuseListLimit.Error(s, MaxListLimit))
			return
		}
		limit = n
	}
	var after uint64
	if id := q.Get("after"); id != "" {
		n, ok := a.lanes.Position(id)
		if !ok {
			a.fail(w, protocol.RefuseListAfter.Error(id))
			return
		}
		after = n
	}
	p := a.listPage(time.Now(), pageKey{after: after, limit: limit})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-cache") // keep it, but ask again each time: the ETag makes that cheap
	h.Set("ETag", p.etag)
	h.Add("Vary", "Accept-Encoding")
	if etagMatch(r.Header.Get("If-None-Match"), p.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		w.Write(p.gzipped())
		return
	}
	w.Write(p.plain)
}

// listPage returns a page of the lobby's list, built at most listMaxAge
// ago, and since the last lane opened or closed. The first request after
// that builds the list while the others wait for it.
func (a *API) listPage(now time.Time, k pageKey) *encodedPage {
	c := &a.list
	c.mu.Lock()
	defer c.mu.Unlock()
	// The version is read before the list: a lane that opens while it is
	// built changes it again, and the next request builds anew.
	if v := a.lanes.ListVersion(); c.lanes == nil || v != c.version || now.Sub(c.built) > listMaxAge {
		c.lanes, c.built, c.version = a.lanes.Listed(), now, v
		clear(c.pages)
	}
	if p, ok := c.pages[k]; ok {
		return p
	}
	i, _ := slices.BinarySearchFunc(c.lanes, k.after+1, func(l lobby.Listed, n uint64) int { return cmp.Compare(l.Order, n) })
	rest := c.lanes[i:]
	page := protocol.Lanes{Lanes: make([]protocol.LaneSummary, 0, min(k.limit, len(rest))), Total: len(c.lanes)}
	for _, l := range rest[:min(k.limit, len(rest))] {
		page.Lanes = append(page.Lanes, l.Summary)
	}
	if len(rest) > k.limit {
		page.Next = page.Lanes[k.limit-1].ID
	}
	data, err := json.Marshal(page)
	if err != nil {
		panic(fmt.Sprintf("api: encoding the list: %v", err)) // plain values only: cannot fail
	}
	data = append(data, '\n')
	h := fnv.New64a()
	h.Write(data)
	p := &encodedPage{plain: data, etag: fmt.Sprintf(`W/"%016x"`, h.Sum64())}
	if c.pages == nil {
		c.pages = make(map[pageKey]*encodedPage)
	}
	if len(c.pages) < maxCachedPages {
		c.pages[k] = p
	}
	return p
}

// etagMatch reports whether an If-None-Match header holds etag, compared
// weakly (RFC 9110, 13.1.2): W/"x" matches "x".
func etagMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	etag = strings.TrimPrefix(etag, "W/")
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || strings.TrimPrefix(part, "W/") == etag {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip.
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
