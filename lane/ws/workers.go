package ws

import (
	"sync"
	"sync/atomic"
)

// workers runs the short jobs of a poller's connections (a writer draining
// an outbox, a reader taking what a client sent) on goroutines kept
// between jobs, up to idleWorkers idle ones.
//
// A goroutine started for each job would start with a small stack and
// grow it at once: the WebSocket library's write goes deeper than the
// runtime's starting size, which follows the average goroutine's and is
// small on a server whose connections at rest hold none. Growing (a copy
// of the stack) and starting a goroutine cost 9% of the server's CPU at
// 5,000 connections; a kept worker has grown its stack already.
//
// The workers are their poller's: stop ends them and waits for them,
// and for the jobs their jobs give meanwhile (a writer closing a
// connection starts its reader, which ends it). A job given once they
// have all ended runs on a goroutine of its own, the connection's (its
// writers are waited for by its end, its reader ends it). Connections
// with no poller (pipes in tests, whose goroutines live in a synctest
// bubble) start their own goroutines too.
type workers struct {
	jobs chan func()   // unbuffered: a job is taken only by an idle worker
	quit chan struct{} // closed by stop: idle workers exit
	idle atomic.Int32
	max  int32 // idle workers kept

	mu      sync.Mutex
	stopped bool
	running int            // workers started and not ended, under mu
	wg      sync.WaitGroup // the workers
}

// idleWorkers is how many idle workers a poller keeps: enough that a
// burst of boards finds workers whose stacks have grown, few enough that
// their stacks weigh little beside thousands of connections'.
const idleWorkers = 64

// Go runs f on an idle worker, or on a new one if none is idle.
func (w *workers) Go(f func()) {
	select {
	case w.jobs <- f:
		return
	default:
	}
	w.mu.Lock()
	if w.stopped && w.running == 0 {
		w.mu.Unlock()
		go f()
		return
	}
	w.running++
	w.wg.Add(1) // while stop waits, only with running > 0: the count is not 0
	w.mu.Unlock()
	go w.work(f)
}

func (w *workers) work(f func()) {
	defer func() {
		w.mu.Lock()
		w.running--
		w.mu.Unlock()
		w.wg.Done()
	}()
	for {
		f()
		if w.idle.Add(1) > w.max {
			w.idle.Add(-1)
			return
		}
		select {
		case f = <-w.jobs:
			w.idle.Add(-1)
		case <-w.quit:
			w.idle.Add(-1)
			return
		}
	}
}

// stop ends the workers once their jobs are done, and waits for them.
func (w *workers) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	close(w.quit)
	w.wg.Wait()
}
