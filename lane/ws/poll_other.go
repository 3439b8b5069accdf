//go:build !linux

package ws

import (
	"syscall"
)

// epoll is Linux's alone (poll_linux.go): elsewhere a [Poller] keeps its
// workers only, and each connection keeps a reader goroutine waiting in a
// read, as Serve's callers expect of most Go servers.
type epoll struct{}

func newEpoll() (*epoll, error) { return nil, nil }

type epollEvent struct{}

func eventKey(*epollEvent) uint64 { return 0 }

const (
	epollAdd = iota
	epollMod
)

func (*epoll) close()                                 {}
func (*epoll) ctl(syscall.RawConn, int, uint64) error { return errNoEpoll }
func (*epoll) waitEvents([]epollEvent) (int, error)   { return 0, errNoEpoll }
func readNow(syscall.RawConn, []byte) (int, error)    { return 0, errNoEpoll }
