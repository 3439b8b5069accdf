package ws

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrPollerStopped ends the connections a [Poller] still served when it
// stopped: [Start]'s done is called with it, wrapping the poller's error
// if it failed.
var ErrPollerStopped = errors.New("ws: poller stopped")

// errNoEpoll is add's and arm's where there is no epoll: the connection's
// reader waits in a read.
var errNoEpoll = errors.New("ws: no epoll on this system")

// Poller serves the connections of one server at rest, and runs their
// readers and writers on workers it keeps. Connections given one (in
// [Config].Poller) hold no goroutine at rest on Linux: one goroutine, the
// poller's [Poller.Run], waits on epoll for all of them and starts a
// reader when a client sends something, or hangs up. Elsewhere it keeps
// the workers alone, and each connection's reader waits in a read.
//
// Whoever serves the connections makes the poller, runs it, and stops it
// once they are over: a poller that stops closes every connection it
// still serves, and its Run returns only when its workers have ended.
// Connections started after it stopped are served without it, a reader
// goroutine waiting in a read for each, as they are with no poller at all.
type Poller struct {
	ep      *epoll // nil where there is none (not Linux)
	workers workers

	quit     chan struct{} // closed by interrupt: Run stops
	quitOnce sync.Once
	stopOnce sync.Once

	mu     sync.Mutex
	conns  map[uint64]*Conn // every connection the poller serves, by key
	next   uint64
	closed bool // stopped: it serves no more connections
}

// NewPoller returns a poller, to run with [Poller.Run]; on Linux it opens
// an epoll instance, and reports the error if it cannot.
func NewPoller() (*Poller, error) {
	ep, err := newEpoll()
	if err != nil {
		return nil, err
	}
	return &Poller{
		ep:      ep,
		workers: workers{jobs: make(chan func()), quit: make(chan struct{}), max: idleWorkers},
		quit:    make(chan struct{}),
		conns:   make(map[uint64]*Conn),
	}, nil
}

// Run waits for the clients of the poller's connections until ctx ends,
// [Poller.Close] is called or epoll fails. Then it closes the connections
// it still serves (their [Start]'s done is called with [ErrPollerStopped])
// and returns once its workers have ended: nil if ctx ended or Close was
// called, otherwise epoll's error. A server stops its poller after its
// connections have closed, so that none is cut short. Run it once.
func (p *Poller) Run(ctx context.Context) error {
	unwatch := context.AfterFunc(ctx, p.interrupt)
	err := p.poll()
	unwatch()
	cause := ErrPollerStopped
	if err != nil {
		err = fmt.Errorf("ws: poller: %w", err)
		cause = fmt.Errorf("%w: %w", ErrPollerStopped, err)
	}
	p.stop(cause)
	return err
}

// Close stops the poller as the end of Run's context does, and returns
// once it has stopped: it closes the connections it still serves, and
// releases the epoll instance of a poller that never ran.
func (p *Poller) Close() {
	p.interrupt()
	p.stop(ErrPollerStopped)
}

// interrupt makes Run return: the wait on epoll ends.
func (p *Poller) interrupt() {
	p.quitOnce.Do(func() {
		close(p.quit)
		if p.ep != nil {
			p.ep.close()
		}
	})
}

// interrupted tells whether interrupt was called.
func (p *Poller) interrupted() bool {
	select {
	case <-p.quit:
		return true
	default:
		return false
	}
}

// stop closes the connections the poller serves, with cause, and waits for
// its workers. The first call stops; any other waits for it.
func (p *Poller) stop(cause error) {
	p.stopOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		conns := make([]*Conn, 0, len(p.conns))
		for _, c := range p.conns {
			conns = append(conns, c)
		}
		p.mu.Unlock()
		p.interrupt() // epoll is closed: re-arming a connection fails
		for _, c := range conns {
			c.fail(cause) // its reader starts, off the workers, and ends it
		}
		p.workers.stop()
	})
}

// track makes c one of the poller's connections, unless it has stopped:
// c's jobs then run on the poller's workers, and it is closed when the
// poller stops. It sets c.poller and c.pollKey, before c is served.
func (p *Poller) track(c *Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.next++
	p.conns[p.next] = c
	c.poller, c.pollKey = p, p.next
}

// add registers a tracked connection's socket with epoll, armed: the
// poller reports it when the client sends something.
func (p *Poller) add(c *Conn) error {
	if p.ep == nil {
		return errNoEpoll
	}
	return p.ep.ctl(c.bc.raw, epollAdd, c.pollKey)
}

// arm re-arms a registered connection: the poller reports it when it has
// anything to read, at once if it has already.
func (p *Poller) arm(c *Conn) error {
	if p.ep == nil {
		return errNoEpoll
	}
	return p.ep.ctl(c.bc.raw, epollMod, c.pollKey)
}

// remove forgets a connection that is over: events still on their way for
// it are dropped.
func (p *Poller) remove(key uint64) {
	p.mu.Lock()
	delete(p.conns, key)
	p.mu.Unlock()
}

// wake starts the reader of the connection an event names, if the poller
// still serves it.
func (p *Poller) wake(key uint64) {
	p.mu.Lock()
	c := p.conns[key]
	p.mu.Unlock()
	if c != nil {
		c.wake()
	}
}

// poll waits on epoll and wakes the connections it reports, until
// interrupted (it returns nil) or epoll fails (it returns why).
func (p *Poller) poll() error {
	if p.ep == nil {
		<-p.quit
		return nil
	}
	events := make([]epollEvent, 128)
	for {
		n, err := p.ep.waitEvents(events)
		if err != nil {
			if p.interrupted() {
				return nil // epoll was closed for Run to return
			}
			return err
		}
		for i := range events[:n] {
			p.wake(eventKey(&events[i]))
		}
	}
}
