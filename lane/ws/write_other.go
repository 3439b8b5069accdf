//go:build !unix

package ws

// writesNow tells whether tryWrite may write to a socket itself: not
// here, where a writer writes every message.
const writesNow = false

func writeOnce(fd uintptr, p []byte) (int, error) { return 0, nil }
