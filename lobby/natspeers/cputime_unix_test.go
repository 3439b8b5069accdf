//go:build unix

package natspeers

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, user and system: in
// a benchmark of the embedded server, the client's and the server's.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
