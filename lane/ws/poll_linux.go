package ws

import (
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
)

// poller tells connections at rest that the client sent something, so that
// no goroutine has to wait in a read on each of them: one goroutine waits
// on an epoll instance for all of them.
//
// A connection is registered one-shot: it reports once, then not again
// until its reader rests and re-arms it, so at most one reader runs per
// connection. A closed descriptor leaves the epoll set by itself (the
// kernel drops it with its last reference, and Go holds the only one), and
// every call naming a descriptor is made under syscall.RawConn.Control,
// which keeps it open meanwhile: a number reused by a newer connection is
// never re-armed for an older one.
type poller struct {
	epfd int
	ep   syscall.RawConn // epfd, in the runtime's own poller

	mu    sync.Mutex
	conns map[uint64]*Conn
	next  uint64
}

var thePoller = sync.OnceValue(func() *poller {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil // connections fall back on a reader goroutine each
	}
	if err := syscall.SetNonblock(epfd, true); err != nil {
		syscall.Close(epfd)
		return nil
	}
	// The epoll descriptor is itself readable while it has events: the
	// runtime's poller waits for it, so that the goroutine waiting holds
	// no thread in a system call and is woken as any reader is.
	ep, err := os.NewFile(uintptr(epfd), "ws-poller").SyscallConn()
	if err != nil {
		syscall.Close(epfd)
		return nil
	}
	p := &poller{epfd: epfd, ep: ep, conns: make(map[uint64]*Conn)}
	go p.run()
	return p
})

// pollEvents: readable, or the peer hung up, once.
const pollEvents = syscall.EPOLLIN | syscall.EPOLLRDHUP | syscall.EPOLLONESHOT

// add registers a connection's socket, armed, under a key it sets in
// c.pollKey before the first event can name it.
func (p *poller) add(c *Conn) error {
	p.mu.Lock()
	p.next++
	key := p.next
	p.conns[key] = c
	c.pollKey = key
	p.mu.Unlock()
	if err := p.ctl(c.bc.raw, syscall.EPOLL_CTL_ADD, key); err != nil {
		p.mu.Lock()
		delete(p.conns, key)
		c.pollKey = 0
		p.mu.Unlock()
		return err
	}
	return nil
}

// arm re-arms a registered connection: the poller reports it when it has
// anything to read, at once if it has already.
func (p *poller) arm(c *Conn) error {
	return p.ctl(c.bc.raw, syscall.EPOLL_CTL_MOD, c.pollKey)
}

func (p *poller) ctl(rc syscall.RawConn, op int, key uint64) error {
	ev := syscall.EpollEvent{Events: pollEvents, Fd: int32(uint32(key)), Pad: int32(uint32(key >> 32))}
	var err error
	if cerr := rc.Control(func(fd uintptr) {
		err = syscall.EpollCtl(p.epfd, op, int(fd), &ev)
	}); cerr != nil {
		return cerr
	}
	if err != nil {
		return fmt.Errorf("epoll_ctl: %w", err)
	}
	return nil
}

// remove forgets a connection: events still on their way for it are
// dropped.
func (p *poller) remove(key uint64) {
	p.mu.Lock()
	delete(p.conns, key)
	p.mu.Unlock()
}

func (p *poller) run() {
	events := make([]syscall.EpollEvent, 128)
	for {
		var n int
		var err error
		cerr := p.ep.Read(func(fd uintptr) bool {
			n, err = syscall.EpollWait(int(fd), events, 0)
			return n > 0 || (err != nil && err != syscall.EINTR) // else wait until it has events
		})
		if err == nil {
			err = cerr
		}
		if err != nil { // the descriptor is ours and never closed: a bug
			panic(fmt.Sprintf("ws: epoll_wait: %v", err))
		}
		for _, ev := range events[:n] {
			key := uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
			p.mu.Lock()
			c := p.conns[key]
			p.mu.Unlock()
			if c != nil {
				c.wake()
			}
		}
	}
}

// readNow reads what the connection holds, without waiting: (0, nil) when
// it holds nothing.
func readNow(rc syscall.RawConn, b []byte) (n int, err error) {
	r := rawReads.Get().(*rawIO)
	r.p = b
	cerr := rc.Read(r.run)
	n, err = r.done()
	rawReads.Put(r)
	switch {
	case cerr != nil:
		return 0, cerr
	case err == syscall.EAGAIN || err == syscall.EINTR:
		return 0, nil
	case err != nil:
		return 0, err
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// rawReads are readNow's reads (see rawIO).
var rawReads = rawIOs(func(fd uintptr, p []byte) (int, error) { return syscall.Read(int(fd), p) })
