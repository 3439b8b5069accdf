package web_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/memjournal"
	lobbyserver "github.com/tenpin/tenpin/lobby/server"
	"github.com/tenpin/tenpin/web"
)

// deployed is the app on a fixed address that is stopped and started
// again there, as a deploy or a crash and restart does: the lanes come
// back from the journal, which outlives the process.
type deployed struct {
	t    *testing.T
	addr string
	url  string
	cfg  lobby.Config
	stop func() // stops the running server; nil while it is down
}

func deploy(t *testing.T, cfg lobby.Config) *deployed {
	t.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.Lane.Journal = memjournal.New()
	cfg.Lane.Durable = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &deployed{t: t, addr: ln.Addr().String(), url: "http://" + ln.Addr().String(), cfg: cfg}
	d.serve(ln)
	t.Cleanup(func() {
		if d.stop != nil {
			d.stop()
		}
	})
	return d
}

// start starts the server again on its address, its lanes restored.
func (d *deployed) start() {
	d.t.Helper()
	ln, err := net.Listen("tcp", d.addr)
	if err != nil {
		d.t.Fatalf("listening on %s again: %v", d.addr, err)
	}
	d.serve(ln)
}

func (d *deployed) serve(ln net.Listener) {
	d.t.Helper()
	lb := lobby.New(d.cfg)
	if _, err := lb.Restore(context.Background()); err != nil {
		d.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); lb.Run(ctx) }()
	mux := http.NewServeMux()
	api := lobbyserver.API(lb, d.cfg.Logger)
	mux.Handle("/api/", api)
	mux.Handle("/ws/", api)
	mux.Handle("/healthz", api)
	mux.Handle("/", web.Handler())
	srv := &http.Server{Handler: mux}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	d.stop = func() {
		cancel()
		<-ran // every lane stopped, its sockets closed
		srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			d.t.Errorf("serving: %v", err)
		}
		d.stop = nil
	}
}

// fastTimers makes the page's own timers (those its modules set, not the
// test's polls) run speed times sooner: the page's backoff of 20 s takes
// a twentieth of that, with every try and wait as the page plans it.
func fastTimers(speed int) chromedp.Action[chromedp.Void] {
	script := fmt.Sprintf(`(() => {
	const speed = %d;
	const ours = () => (new Error().stack || "").includes("/static/js/");
	const later = window.setTimeout, every = window.setInterval;
	window.setTimeout = function (f, ms, ...args) { return later.call(this, f, ours() ? (ms || 0) / speed : ms, ...args); };
	window.setInterval = function (f, ms, ...args) { return every.call(this, f, ours() ? (ms || 0) / speed : ms, ...args); };
})();`, speed)
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script})
		return err
	})
}

// A page never strands: its server goes down for 20 s worth of the
// page's retries (its timers sped up), while /api/nodes named another
// address for it that the browser cannot reach. The page stays on its
// own address and keeps trying, saying so and when it tries next (in
// English and in Korean), never navigating to the address it could not
// reach; the server comes back on the same address, and with no touch
// the player is seated again and bowls on. The TV view above the lane
// rides it out too, and shows the ball.
func TestServerDownAndBack(t *testing.T) {
	nowhere, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := "http://" + nowhere.Addr().String() // nothing listens there
	nowhere.Close()
	d := deploy(t, lobby.Config{URLs: []string{elsewhere}})
	open := browser(t)
	p, tv := open(), open()
	do(t, p, "speed up the page's timers", fastTimers(20))
	do(t, tv, "speed up the TV's timers", fastTimers(20))
	id := createLane(t, &server{url: d.url}, "Down and back")
	do(t, p, "open the lane", chromedp.Navigate(invited(t, d.url, id)))
	join(t, p, "AAA", "AAA")
	do(t, p, "start", chromedp.Click(chromedp.CSS("#start")))
	bowl(t, p, "AAA", 3, 10, false)
	until(t, p, "the other address known", `tenpin.nodes().join() === `+js(elsewhere))
	do(t, tv, "open the TV view", chromedp.Navigate(d.url+"/lanes/"+id+"/tv"))
	until(t, tv, "the ball on the TV", tvCell("AAA", 1)+` === "3"`)

	d.stop()
	reconnecting := `/^the server is restarting — reconnecting in \d+ s$/.test(document.querySelector("#conn").textContent)`
	until(t, p, "reconnecting, and when", reconnecting)
	do(t, p, "in Korean", chromedp.Click(chromedp.CSS(`.lang button[data-lang="ko"]`)))
	until(t, p, "reconnecting, and when, in Korean", `/^서버가 다시 시작하는 중 — \d+초 후 다시 연결$/.test(document.querySelector("#conn").textContent)`)
	do(t, p, "in English", chromedp.Click(chromedp.CSS(`.lang button[data-lang="en"]`)))
	// 20 s of the page's backoff, and the other address asked (and found
	// down) on the way.
	until(t, p, "20 s of retries", `tenpin.backoff().waited >= 20000 && tenpin.backoff().unreachable >= 5 && `+reconnecting)
	if got := eval[string](t, p, `location.origin`); got != d.url {
		t.Fatalf("the page went to %s while its server was down", got)
	}
	until(t, tv, "the TV reconnecting", `/ — reconnecting in \d+ s$/.test(document.querySelector(".tv-conn").textContent)`)
	if got := eval[string](t, p, `document.querySelector("#lane-error").textContent`); got != "" {
		t.Errorf("the server down shown as the error %q", got)
	}
	// The backoff is capped at 2 s while the server is down: the page is
	// back within 2 s of it.
	if s := eval[int](t, p, `Number(document.querySelector("#conn").textContent.match(/(\d+) s$/)[1])`); s > 2 {
		t.Errorf("the next try is %d s away, past the cap of 2 s", s)
	}
	// AAA is up, and the pad is off: the banner says so, and "Try now"
	// tries at once.
	until(t, p, "the banner offline", `document.querySelector("#banner").classList.contains("offline") && document.querySelector("#turn").textContent.startsWith("AAA, your turn — offline")`)
	tries := eval[int](t, p, `tenpin.backoff().tries`)
	do(t, p, "try now", chromedp.Click(chromedp.CSS("#retry-now")))
	until(t, p, "a try at once", fmt.Sprintf(`tenpin.backoff().tries > %d`, tries))

	d.start()
	until(t, p, "seated again", `document.querySelector("#conn").textContent === "connected" && document.querySelector("#me").textContent === "You are AAA."`)
	bowl(t, p, "AAA", 4, 7, false)
	until(t, p, "the frame on the board", `document.querySelector('#board tr[data-player="AAA"] td.total').textContent === "7" && location.origin === `+js(d.url))
	until(t, tv, "the frame on the TV", tvCell("AAA", 1)+` === "3|4" && document.querySelector(".tv-conn").textContent === "" && location.href === `+js(d.url+"/lanes/"+id+"/tv"))
}
