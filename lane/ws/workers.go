package ws

import "sync/atomic"

// workers runs the short jobs of connections on sockets (a writer draining
// an outbox, a reader taking what a client sent) on goroutines kept
// between jobs, up to a few idle ones.
//
// A goroutine started for each job would start with a small stack and
// grow it at once: the WebSocket library's write goes deeper than the
// runtime's starting size, which follows the average goroutine's and is
// small on a server whose connections at rest hold none. Growing (a copy
// of the stack) and starting a goroutine cost 9% of the server's CPU at
// 5,000 connections; a kept worker has grown its stack already.
//
// Connections that are not sockets (pipes in tests, whose goroutines live
// in a synctest bubble) start their own goroutines.
type workers struct {
	jobs chan func() // unbuffered: a job is taken only by an idle worker
	idle atomic.Int32
	max  int32 // idle workers kept
}

// pool serves every connection of the process.
var pool = &workers{jobs: make(chan func()), max: 64}

// Go runs f on an idle worker, or on a new one if none is idle.
func (w *workers) Go(f func()) {
	select {
	case w.jobs <- f:
	default:
		go w.work(f)
	}
}

func (w *workers) work(f func()) {
	for {
		f()
		if w.idle.Add(1) > w.max {
			w.idle.Add(-1)
			return
		}
		f = <-w.jobs
		w.idle.Add(-1)
	}
}
