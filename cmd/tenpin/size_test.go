package main

import (
	"io"
	"testing"

	"github.com/tenpin/tenpin/lobby/natsstore"
)

func TestSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		text string
	}{
		{"0", 0, "0"},
		{"1048576", 1 << 20, "1MiB"},
		{"512MiB", 512 << 20, "512MiB"},
		{"2GiB", 2 << 30, "2GiB"},
		{"64KiB", 64 << 10, "64KiB"},
		{"3GB", 3 << 30, "3GiB"},
		{"10M", 10 << 20, "10MiB"},
		{"1000", 1000, "1000"},
		{"1536KiB", 1536 << 10, "1536KiB"},
	} {
		var s size
		if err := s.Set(tt.in); err != nil || int64(s) != tt.want {
			t.Errorf("Set(%q) = %d, %v; want %d", tt.in, int64(s), err, tt.want)
			continue
		}
		if got := s.String(); got != tt.text {
			t.Errorf("size(%d).String() = %q, want %q", tt.want, got, tt.text)
		}
	}
	for _, bad := range []string{"", "-1", "lots", "1.5GiB", "GiB", "9999999999GiB", "1TiB"} {
		var s size
		if err := s.Set(bad); err == nil {
			t.Errorf("Set(%q) = %d, want an error", bad, int64(s))
		}
	}
}

func TestBudgetFlags(t *testing.T) {
	f, err := parseServe([]string{"-memory"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := natsstore.Budgets{Lanes: DefaultMaxLanesBytes, Kept: DefaultMaxKeptBytes, Bowlers: DefaultMaxBowlersBytes, Leagues: DefaultMaxLeaguesBytes}
	if f.budgets != want {
		t.Errorf("default budgets = %+v, want %+v", f.budgets, want)
	}
	f, err = parseServe([]string{"-max-lanes-bytes", "2GiB", "-max-kept-bytes", "0", "-max-bowlers-bytes", "64MiB", "-max-leagues-bytes", "1048576"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want = natsstore.Budgets{Lanes: 2 << 30, Kept: 0, Bowlers: 64 << 20, Leagues: 1 << 20}
	if f.budgets != want {
		t.Errorf("budgets from flags = %+v, want %+v", f.budgets, want)
	}
	if got, wantText := describeBudgets(want, false), "lanes 2GiB (-max-lanes-bytes), kept nights no bound (-max-kept-bytes), bowlers 64MiB (-max-bowlers-bytes), leagues 1MiB (-max-leagues-bytes)"; got != wantText {
		t.Errorf("describeBudgets = %q, want %q", got, wantText)
	}
}

func TestOverDisk(t *testing.T) {
	defaults := natsstore.Budgets{Lanes: DefaultMaxLanesBytes, Kept: DefaultMaxKeptBytes, Bowlers: DefaultMaxBowlersBytes, Leagues: DefaultMaxLeaguesBytes}
	unbounded := defaults
	unbounded.Kept = 0
	for _, tt := range []struct {
		b    natsstore.Budgets
		disk uint64
		want bool
	}{
		{defaults, 24 << 20, true},  // the 24 MiB disk
		{defaults, 10 << 30, false}, // a small server's 10 GB
		{defaults, 3 << 30, true},   // 2.75 GiB is more than nine tenths of 3 GiB
		{unbounded, 24 << 20, false},
	} {
		if got := overDisk(tt.b, tt.disk); got != tt.want {
			t.Errorf("overDisk(%+v, %d) = %v, want %v", tt.b, tt.disk, got, tt.want)
		}
	}
}
