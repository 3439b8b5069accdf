package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tenpin/tenpin/lobby/natsstore"
)

// The default budgets of tenpin serve (natsstore.Budgets), 2.75 GiB in
// all: they fit the disk of a small server (a 10 GB virtual machine, a
// Raspberry Pi's card) beside the system. What each holds, from the
// sizes measured for issue 44: lanes' logs are compacted to a snapshot
// a lane (a few KiB each for lanes open now); a kept night is 0.6–51 KB
// gzipped, so 1 GiB keeps 20,000 of the longest to 1.8 million of the
// shortest; a bowler is some 800 bytes, so 512 MiB leaves room for the
// games of hundreds of thousands; a league's score records are a name
// and a score each.
const (
	DefaultMaxLanesBytes   = 1 << 30
	DefaultMaxKeptBytes    = 1 << 30
	DefaultMaxBowlersBytes = 512 << 20
	DefaultMaxLeaguesBytes = 256 << 20
)

// size is a flag.Value for a count of bytes, whole or with a unit: 1GiB,
// 512MiB, 64KiB (or GB, MB, KB, taken as the same powers of two, which is
// how disks are sized in these flags' help), or 0 for no bound.
type size int64

var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"GB", 30}, {"MB", 20}, {"KB", 10}, {"G", 30}, {"M", 20}, {"K", 10}, {"B", 0}}

func (s size) String() string {
	n := int64(s)
	for _, u := range sizeUnits[:3] {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func (s *size) Set(text string) error {
	n, shift := strings.TrimSpace(text), uint(0)
	for _, u := range sizeUnits {
		if v, ok := strings.CutSuffix(n, u.suffix); ok {
			n, shift = strings.TrimSpace(v), u.shift
			break
		}
	}
	v, err := strconv.ParseInt(n, 10, 64)
	if err != nil || v < 0 || v > (1<<62)>>shift {
		return fmt.Errorf("%q: want a count of bytes such as 512MiB, 2GiB or 1048576, or 0 for no bound", text)
	}
	*s = size(v << shift)
	return nil
}

// describeBudgets says what the store keeps of each kind at most.
func describeBudgets(b natsstore.Budgets, memory bool) string {
	if memory {
		return "none: lanes kept in memory only (-memory)"
	}
	say := func(n int64) string {
		if n == 0 {
			return "no bound"
		}
		s := size(n)
		return s.String()
	}
	return fmt.Sprintf("lanes %s (-max-lanes-bytes), kept nights %s (-max-kept-bytes), bowlers %s (-max-bowlers-bytes), leagues %s (-max-leagues-bytes)",
		say(b.Lanes), say(b.Kept), say(b.Bowlers), say(b.Leagues))
}

// overDisk reports whether budgets b, all bounded, take more than nine
// tenths of a disk of disk bytes (the rest is for JetStream's own files
// and the system): the disk would then fill before a budget does, and a
// full disk stops JetStream, every kind at once. A budget of 0 is the
// operator's choice of the disk as its bound.
func overDisk(b natsstore.Budgets, disk uint64) bool {
	if b.Lanes <= 0 || b.Kept <= 0 || b.Bowlers <= 0 || b.Leagues <= 0 {
		return false
	}
	return uint64(b.Lanes)+uint64(b.Kept)+uint64(b.Bowlers)+uint64(b.Leagues) > disk/10*9
}
