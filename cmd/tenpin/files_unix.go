//go:build unix

package main

import (
	"fmt"
	"io"
	"syscall"
)

// openFileLimit returns the process's open-file limit (its soft limit),
// and false if it cannot be read.
func openFileLimit() (uint64, bool) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, false
	}
	return uint64(lim.Cur), true
}

// raiseFileLimit lifts the open-file limit to its hard maximum: every
// connection is a file.
func raiseFileLimit(stderr io.Writer) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur >= lim.Max {
		return
	}
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fmt.Fprintf(stderr, "tenpin: load: raising the open-file limit: %v\n", err)
	}
}

// diskSize returns the size in bytes of the file system dir is on, and
// false if it cannot be read.
func diskSize(dir string) (uint64, bool) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return 0, false
	}
	return fs.Blocks * uint64(fs.Bsize), true
}
