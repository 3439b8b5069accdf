package ws

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// epoll is a [Poller]'s epoll instance: the connections at rest are
// registered on it, so that no goroutine has to wait in a read on each of
// them, and the poller's Run waits on it for all of them.
//
// A connection is registered one-shot: it reports once, then not again
// until its reader rests and re-arms it, so at most one reader runs per
// connection. A closed descriptor leaves the epoll set by itself (the
// kernel drops it with its last reference, and Go holds the only one), and
// every call naming a descriptor is made under syscall.RawConn.Control,
// which keeps it open meanwhile: a number reused by a newer connection is
// never re-armed for an older one. The epoll descriptor is held the same
// way, so that closing it (to stop the poller) never races a call on it.
type epoll struct {
	f  *os.File        // epfd, in the runtime's own poller
	rc syscall.RawConn // f's

	// wait is epoll_wait without waiting: syscall.EpollWait with a
	// timeout of 0. Tests replace it to make epoll fail.
	wait func(epfd int, events []syscall.EpollEvent) (n int, err error)
}

func newEpoll() (*epoll, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("ws: epoll_create1: %w", err)
	}
	if err := syscall.SetNonblock(epfd, true); err != nil {
		syscall.Close(epfd)
		return nil, fmt.Errorf("ws: epoll descriptor: %w", err)
	}
	// The epoll descriptor is itself readable while it has events: the
	// runtime's poller waits for it, so that the goroutine waiting holds
	// no thread in a system call and is woken as any reader is.
	f := os.NewFile(uintptr(epfd), "ws-poller")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("ws: epoll descriptor: %w", err)
	}
	return &epoll{f: f, rc: rc, wait: epollWaitNow}, nil
}

func epollWaitNow(epfd int, events []syscall.EpollEvent) (int, error) {
	return syscall.EpollWait(epfd, events, 0)
}

// close closes the epoll descriptor: a wait on it returns, and every
// later ctl fails.
func (e *epoll) close() { e.f.Close() }

// pollEvents: readable, or the peer hung up, once.
const pollEvents = syscall.EPOLLIN | syscall.EPOLLRDHUP | syscall.EPOLLONESHOT

const (
	epollAdd = syscall.EPOLL_CTL_ADD
	epollMod = syscall.EPOLL_CTL_MOD
)

// epollEvent is an event, keyed by the connection it names.
type epollEvent = syscall.EpollEvent

func eventKey(ev *epollEvent) uint64 { return uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32 }

// ctl registers (epollAdd) or re-arms (epollMod) a socket under key.
func (e *epoll) ctl(rc syscall.RawConn, op int, key uint64) error {
	ev := syscall.EpollEvent{Events: pollEvents, Fd: int32(uint32(key)), Pad: int32(uint32(key >> 32))}
	var err error
	var cerr error
	if eerr := e.rc.Control(func(epfd uintptr) {
		cerr = rc.Control(func(fd uintptr) {
			err = syscall.EpollCtl(int(epfd), op, int(fd), &ev)
		})
	}); eerr != nil {
		return eerr // the poller has stopped
	}
	if cerr != nil {
		return cerr
	}
	if err != nil {
		return fmt.Errorf("epoll_ctl: %w", err)
	}
	return nil
}

// waitEvents waits until epoll has events, and puts them in events. It
// fails once the descriptor is closed, or if epoll_wait fails but for
// EINTR.
func (e *epoll) waitEvents(events []epollEvent) (n int, err error) {
	cerr := e.rc.Read(func(fd uintptr) bool {
		n, err = e.wait(int(fd), events)
		return n > 0 || (err != nil && err != syscall.EINTR) // else wait until it has events
	})
	if cerr != nil {
		return 0, cerr
	}
	if err != nil {
		return 0, fmt.Errorf("epoll_wait: %w", err)
	}
	return n, nil
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
