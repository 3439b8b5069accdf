package api

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/natsconn"
	"github.com/tenpin/tenpin/lobby/natsstore"
)

// BenchmarkBowlerAPI fills the embedded JetStream store with bowlers and
// their games — TENPIN_BENCH_BOWLERS bowlers (default 200) of
// TENPIN_BENCH_GAMES games each (default 100), every game a random one
// with its marks, numbers and leaves, added as a lane adds a game's end —
// then asks GET /api/bowlers/me and a page of 20 games of
// /api/bowlers/me/games for random bowlers over HTTP, each op one of
// each. It reports the latencies' p50 and p99 (me-p99-ms, page-p99-ms),
// the store's bytes on disk a game and a bowler, and how fast the fill
// went (fill-games/s). The scale is
//
//	TENPIN_BENCH_BOWLERS=20000 go test ./lobby/api -run XXX -bench BowlerAPI -benchtime 2000x
func BenchmarkBowlerAPI(b *testing.B) {
	bowlers, games := envInt(b, "TENPIN_BENCH_BOWLERS", 200), envInt(b, "TENPIN_BENCH_GAMES", 100)
	dir := b.TempDir()
	conn, err := natsconn.Open(context.Background(), natsconn.Config{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	j, err := natsstore.Open(context.Background(), conn, natsstore.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	svc, err := j.Bowlers(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]string, bowlers)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for i := w; i < bowlers; i += 8 {
				keys[i] = bowler.NewKey()
				rec, err := svc.Create(context.Background(), bowler.NewID(), bowler.HashKey(keys[i]), "Bowler", time.Now())
				if err != nil {
					errs <- err
					return
				}
				for n := range games {
					g := randomGame(r)
					lane := fmt.Sprintf("lane%06d", i*games/10+n/10)
					if _, _, err := svc.Add(context.Background(), rec.ID, bowler.FromGame(lane, "Friday night", n%10+1, time.Now(), "Bowler", &g)); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	fill := time.Since(start)
	size := dirSize(b, dir)
	lb := lobby.New(lobby.Config{Lane: lane.Config{Journal: j, Bowlers: svc}})
	srv := httptest.NewServer(New(services(lb), nil))
	defer srv.Close()
	ask := func(path, key string) time.Duration {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", "Bowler "+key)
		t0 := time.Now()
		res, err := srv.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: %s", path, res.Status)
		}
		return time.Since(t0)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var me, page []time.Duration
	for b.Loop() {
		key := keys[r.IntN(bowlers)]
		me = append(me, ask("/api/bowlers/me", key))
		page = append(page, ask("/api/bowlers/me/games?limit=20&before="+strconv.Itoa(1+r.IntN(games)), key))
	}
	b.ReportMetric(quantile(me, 0.50), "me-p50-ms")
	b.ReportMetric(quantile(me, 0.99), "me-p99-ms")
	b.ReportMetric(quantile(page, 0.50), "page-p50-ms")
	b.ReportMetric(quantile(page, 0.99), "page-p99-ms")
	b.ReportMetric(float64(size)/float64(bowlers*games), "disk-B/game")
	b.ReportMetric(float64(size)/float64(bowlers), "disk-B/bowler")
	b.ReportMetric(float64(bowlers*games)/fill.Seconds(), "fill-games/s")
}

// dirSize returns the bytes of the files under dir.
func dirSize(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}
