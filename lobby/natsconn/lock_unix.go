//go:build unix

package natsconn

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockDir takes the exclusive lock of a data directory, without waiting.
// The lock belongs to the open file: closing it, or the process ending,
// releases it.
func lockDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("natsconn: lock the data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is held: another tenpin process is using the data directory", ErrLocked, path)
		}
		return nil, fmt.Errorf("natsconn: lock %s: %w", path, err)
	}
	return f, nil
}
