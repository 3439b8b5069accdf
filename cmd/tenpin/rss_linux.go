package main

import (
	"bytes"
	"os"
	"strconv"
)

// rss returns the process's resident set size in bytes, from
// /proc/self/statm (0 if it cannot be read).
func rss() int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := bytes.Fields(data)
	if len(fields) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(string(fields[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
