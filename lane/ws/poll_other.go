//go:build !linux

package ws

import (
	"errors"
	"syscall"
)

// poller is Linux's alone (poll_linux.go): elsewhere each connection keeps
// a reader goroutine waiting in a read, as Serve's callers expect of most
// Go servers.
type poller struct{}

var thePoller = func() *poller { return nil }

var errNoPoller = errors.New("ws: no poller on this system")

func (*poller) add(*Conn) error { return errNoPoller }
func (*poller) arm(*Conn) error { return errNoPoller }
func (*poller) remove(uint64)   {}

func readNow(syscall.RawConn, []byte) (int, error) { return 0, errNoPoller }
