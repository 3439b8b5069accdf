//go:build unix

package ws

import "syscall"

// writesNow tells whether tryWrite may write to a socket itself.
const writesNow = true

// writeOnce writes p to a socket's descriptor once, without waiting (the
// runtime keeps its sockets non-blocking): it reports how much the socket
// took, with no error if it would take more only by waiting.
func writeOnce(fd uintptr, p []byte) (int, error) {
	n, err := syscall.Write(int(fd), p)
	if err == syscall.EAGAIN || err == syscall.EINTR {
		err = nil
	}
	return max(n, 0), err
}
