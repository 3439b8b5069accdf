// Package wstest carries HTTP and WebSockets over in-memory pipes, for
// tests in a synctest bubble, where time is fake and the network may not
// be used: a server's timers (pings, pong timeouts, refusals) are then
// tested to the nanosecond. It imports nothing of tenpin, so that the
// tests of any package may use it.
package wstest

import (
	"context"
	"io"
	"net"
	"sync"
)

// Listener is a net.Listener whose connections are net.Pipes, made by
// its Dial: HTTP and WebSockets inside a synctest bubble, with no network.
// Serve HTTP on it with an http.Server, and dial it with an http.Transport
// whose DialContext is Dial.
type Listener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

// NewListener returns a listener with no connection yet.
func NewListener() *Listener {
	return &Listener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// Accept waits for the next connection Dial makes.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close makes Accept and Dial fail from now on; it closes no connection.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr names the listener "pipe".
func (l *Listener) Addr() net.Addr { return pipeAddr{} }

// Dial makes a connection to the listener, whatever network and address
// it is given, and returns the client's end: one with a receive buffer,
// as a TCP socket has (see buffered).
func (l *Listener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return newBuffered(client), nil
	case <-l.closed:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// buffered is the client's end of a pipe with a receive buffer, as a
// TCP socket has: what the server writes is taken at once, whether the
// client reads it or not. (A bare pipe's writes wait for a reader.)
type buffered struct {
	net.Conn
	in   chan []byte // what was received, closed once the pipe ends
	rest []byte      // of the last chunk Read took
}

func newBuffered(c net.Conn) *buffered {
	b := &buffered{Conn: c, in: make(chan []byte, 1024)}
	go func() {
		defer close(b.in)
		for {
			buf := make([]byte, 4096)
			n, err := c.Read(buf)
			if n > 0 {
				b.in <- buf[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	return b
}

func (b *buffered) Read(p []byte) (int, error) {
	if len(b.rest) == 0 {
		chunk, ok := <-b.in
		if !ok {
			return 0, io.EOF
		}
		b.rest = chunk
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
