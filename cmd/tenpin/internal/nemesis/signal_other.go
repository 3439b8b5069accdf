//go:build !unix

package nemesis

import "os"

// pauseSignal and resumeSignal are nil where a process cannot be stopped
// and continued by a signal: a run there only kills (Config.NoPause).
var pauseSignal, resumeSignal os.Signal
