package lobby

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

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
	// created or closed show at once).
	listMaxAge = time.Second

	// maxCachedPages bounds the pages kept encoded between two builds of
	// the list: the first page, which most requests want, and a few
	// others. Past it a page is encoded for its request alone.
	maxCachedPages = 64

	// maxClosedLanes is how many closed lanes the list remembers the place
	// of, so that a client paging through it with one of them as its
	// cursor (the lane closed between two pages) goes on where it was.
	maxClosedLanes = 10_000
)

// listCache is the lobby's list as last built, in creation order, and the
// pages encoded from it since.
type listCache struct {
	mu    sync.Mutex
	built time.Time
	lanes []listed // nil: to be built
	pages map[pageKey]*encodedPage
}

type listed struct {
	n   uint64 // creation order
	sum protocol.LaneSummary
}

type pageKey struct {
	after uint64 // the creation order of the lane before the page
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
func (lb *Lobby) listLanes(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := ListLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxListLimit {
			lb.fail(w, refuseListLimit, s, MaxListLimit)
			return
		}
		limit = n
	}
	var after uint64
	if id := q.Get("after"); id != "" {
		n, ok := lb.position(id)
		if !ok {
			lb.fail(w, refuseListAfter, id)
			return
		}
		after = n
	}
	p := lb.listPage(time.Now(), pageKey{after: after, limit: limit})
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

// position returns the creation order of the lane id, open or closed
// lately.
func (lb *Lobby) position(id string) (uint64, bool) {
	if lb.cfg.Cluster != nil {
		return idOrder(id)
	}
	return lb.lanes.position(id)
}

// listPage returns a page of the lobby's list, built at most listMaxAge
// ago. The first request after that builds the list while the others wait
// for it.
func (lb *Lobby) listPage(now time.Time, k pageKey) *encodedPage {
	c := &lb.list
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lanes == nil || now.Sub(c.built) > listMaxAge {
		c.lanes, c.built = lb.listed(), now
		clear(c.pages)
	}
	if p, ok := c.pages[k]; ok {
		return p
	}
	i, _ := slices.BinarySearchFunc(c.lanes, k.after+1, func(l listed, n uint64) int { return cmp.Compare(l.n, n) })
	rest := c.lanes[i:]
	page := protocol.Lanes{Lanes: make([]protocol.LaneSummary, 0, min(k.limit, len(rest))), Total: len(c.lanes)}
	for _, l := range rest[:min(k.limit, len(rest))] {
		page.Lanes = append(page.Lanes, l.sum)
	}
	if len(rest) > k.limit {
		page.Next = page.Lanes[k.limit-1].ID
	}
	data, err := json.Marshal(page)
	if err != nil {
		panic(fmt.Sprintf("lobby: encoding the list: %v", err)) // plain values only: cannot fail
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

// listed returns the summaries of the open lanes that are listed (not
// private: see lane.Lane.Private), oldest first.
func (lb *Lobby) listed() []listed {
	lanes := lb.lanes.listed()
	out := make([]listed, 0, len(lanes))
	if lb.cfg.Cluster != nil {
		return lb.listedInCluster(lanes)
	}
	slices.SortFunc(lanes, func(a, b *entry) int { return cmp.Compare(a.n, b.n) })
	for _, e := range lanes {
		out = append(out, listed{n: e.n, sum: e.lane.Summary()})
	}
	return out
}

// clusterListTimeout bounds asking the other nodes of a cluster for their
// lanes: a node that does not answer in time is left out of the list.
const clusterListTimeout = 500 * time.Millisecond

// listedInCluster returns the listed lanes of every node, this one's
// among them, in the order of their ids: no node knows the order in which
// the others' lanes were created, and an id's place never changes, so
// that a page's cursor is good on every node and after its lane closed.
func (lb *Lobby) listedInCluster(local []*entry) []listed {
	ctx, cancel := context.WithTimeout(context.Background(), clusterListTimeout)
	defer cancel()
	remote, err := lb.cfg.Cluster.Lanes(ctx)
	if err != nil {
		lb.log.Warn("the other nodes' lanes are not listed", "err", err)
	}
	out := make([]listed, 0, len(local)+len(remote))
	seen := make(map[string]bool, len(local))
	for _, e := range local {
		n, _ := idOrder(e.lane.ID())
		out = append(out, listed{n: n, sum: e.lane.Summary()})
		seen[e.lane.ID()] = true
	}
	for _, sum := range remote {
		if n, ok := idOrder(sum.ID); ok && !seen[sum.ID] { // a lane moving between nodes may be listed by two
			out = append(out, listed{n: n, sum: sum})
			seen[sum.ID] = true
		}
	}
	slices.SortFunc(out, func(a, b listed) int { return cmp.Compare(a.n, b.n) })
	return out
}

// idOrder returns a lane id's place in the order of ids: the number its
// characters spell in the alphabet of ids (see newID), plus one.
func idOrder(id string) (uint64, bool) {
	if len(id) != idLen {
		return 0, false
	}
	var n uint64
	for i := range len(id) {
		d := strings.IndexByte(idAlphabet, id[i])
		if d < 0 {
			return 0, false
		}
		n = n*uint64(len(idAlphabet)) + uint64(d)
	}
	return n + 1, true
}

// forgetList makes the next request build the list anew: a lane was
// created or closed.
func (lb *Lobby) forgetList() {
	lb.list.mu.Lock()
	lb.list.lanes = nil
	lb.list.mu.Unlock()
}

// closedLanes remembers the creation order of the last lanes that closed,
// up to a bound, the oldest forgotten first.
type closedLanes struct {
	at    map[string]uint64
	order []string // a ring of the ids in at, up to size
	next  int      // where the next id goes in order, once it is full
	size  int
}

func newClosedLanes(size int) closedLanes {
	return closedLanes{at: make(map[string]uint64), size: size}
}

func (c *closedLanes) add(id string, n uint64) {
	if len(c.order) < c.size {
		c.order = append(c.order, id)
	} else {
		delete(c.at, c.order[c.next])
		c.order[c.next] = id
		c.next = (c.next + 1) % len(c.order)
	}
	c.at[id] = n
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
