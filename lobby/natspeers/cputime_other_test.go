//go:build !unix

package natspeers

import "time"

// cpuTime is 0 where getrusage is missing: no CPU time is reported.
func cpuTime() time.Duration { return 0 }
