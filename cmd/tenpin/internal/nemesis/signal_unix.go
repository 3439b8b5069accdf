//go:build unix

package nemesis

import (
	"os"
	"syscall"
)

// pauseSignal stops a node's process where it stands, and resumeSignal
// lets it go on: a pause, as a frozen machine makes one.
var pauseSignal, resumeSignal os.Signal = syscall.SIGSTOP, syscall.SIGCONT
