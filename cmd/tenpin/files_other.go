//go:build !unix

package main

import "io"

// openFileLimit reports false: this system has no open-file limit that
// tenpin can read, and it sizes its limits by their defaults.
func openFileLimit() (uint64, bool) { return 0, false }

// raiseFileLimit does nothing: this system has no open-file limit that
// tenpin can raise.
func raiseFileLimit(io.Writer) {}

func diskSize(string) (uint64, bool) { return 0, false }
