//go:build unix

package cluster

import (
	"os"
	"syscall"
)

// PauseSignal stops a process where it stands, and ResumeSignal lets it
// go on: a pause, as a frozen machine makes one.
var PauseSignal, ResumeSignal os.Signal = syscall.SIGSTOP, syscall.SIGCONT
