package main

import (
	"container/list"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
)

// budgetListener holds the connections the server accepted within one
// budget of file descriptors: every TCP connection counts — WebSockets,
// HTTP requests and keep-alive connections waiting for the next one, and
// connections that never send a request. At the budget, accepting a
// connection first closes the connection idle the longest (one between
// requests, or one that has not sent its first); with none idle, the new
// connection is closed at once. So a flood of plain connections cannot
// take the descriptors the store needs (-max-conns counts WebSockets
// only), and the budget leaves fileReserve of the open-file limit to the
// process and its store.
type budgetListener struct {
	net.Listener
	max     int
	refused atomic.Int64 // connections closed as soon as accepted

	mu   sync.Mutex
	open int
	idle list.List // of *budgetConn, idle the longest first
}

func newBudgetListener(ln net.Listener, max int) *budgetListener {
	return &budgetListener{Listener: ln, max: max}
}

func (l *budgetListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		var victim *budgetConn
		if l.open >= l.max {
			if e := l.idle.Front(); e != nil {
				victim = e.Value.(*budgetConn)
				l.idle.Remove(e)
				victim.elem = nil
			}
		}
		if l.open >= l.max && victim == nil {
			l.mu.Unlock()
			c.Close()
			l.refused.Add(1)
			continue
		}
		l.open++ // the victim's Close takes its count back
		bc := &budgetConn{Conn: c, l: l}
		bc.elem = l.idle.PushBack(bc) // idle until it sends a request
		l.mu.Unlock()
		if victim != nil {
			victim.Close()
		}
		return bc, nil
	}
}

// connState follows the HTTP server's connections: those between
// requests, or before their first, may be closed for a new one.
func (l *budgetListener) connState(c net.Conn, s http.ConnState) {
	bc, ok := c.(*budgetConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateIdle:
		if bc.elem == nil && !bc.closed {
			bc.elem = l.idle.PushBack(bc)
		}
	case http.StateActive, http.StateHijacked, http.StateClosed:
		if bc.elem != nil {
			l.idle.Remove(bc.elem)
			bc.elem = nil
		}
	}
}

// budgetConn is an accepted connection, counted until it closes (a
// WebSocket's too: the HTTP server hands it over hijacked, this very
// connection).
type budgetConn struct {
	net.Conn
	l      *budgetListener
	elem   *list.Element // in l.idle, or nil; guarded by l.mu
	closed bool          // guarded by l.mu
}

// CloseWrite and ReadFrom are the TCP connection's: net/http half-closes
// a connection before closing it after an error reply (so the client reads
// it rather than a reset), and sends files with sendfile, only through
// them.
func (c *budgetConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *budgetConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// SyscallConn hands over the socket's descriptor, so that the WebSocket
// transport can poll a connection at rest instead of parking a reader
// goroutine on it (see lane/ws).
func (c *budgetConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("not a socket")
	}
	return sc.SyscallConn()
}

func (c *budgetConn) Close() error {
	c.l.mu.Lock()
	if !c.closed {
		c.closed = true
		c.l.open--
		if c.elem != nil {
			c.l.idle.Remove(c.elem)
			c.elem = nil
		}
	}
	c.l.mu.Unlock()
	return c.Conn.Close()
}
