//go:build !unix

package cluster

import "os"

// PauseSignal and ResumeSignal are nil where a process cannot be stopped
// and continued by a signal: a run there only kills.
var PauseSignal, ResumeSignal os.Signal
