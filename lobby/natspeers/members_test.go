package natspeers

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestMemberTransitions moves one node, n2, from each state by each
// event, as seen by n1 (node timeout 1 s), and checks where it lands and
// what the event reports.
func TestMemberTransitions(t *testing.T) {
	const timeout = time.Second
	t0 := time.Date(2026, 1, 1, 20, 0, 0, 0, time.UTC)
	now := t0.Add(timeout + timeout/2) // n2, last heard at t0, has been silent a timeout and a half
	// The events, each at now; out is what it reports about n2.
	events := map[string]func(ms members) (out any){
		"heartbeat":   func(ms members) any { return ms.heard("n2", []string{"u"}, now) },
		"met":         func(ms members) any { ms.met("n2", now); return nil },
		"ask":         func(ms members) any { return slices.Contains(ms.toAsk(now), "n2") },
		"answer":      func(ms members) any { ms.answered("n2", true, false, now); return nil },
		"no answer":   func(ms members) any { ms.answered("n2", false, false, now); return nil },
		"excused":     func(ms members) any { ms.answered("n2", false, true, now); return nil },
		"pause":       func(ms members) any { ms.excuse(now); return nil },
		"sweep":       func(ms members) any { return slices.Contains(ms.sweep(now), "n2") },
		"days' sweep": func(ms members) any { return slices.Contains(ms.sweep(t0.Add(72*time.Hour)), "n2") },
		"long sweep": func(ms members) any {
			return slices.Contains(ms.sweep(t0.Add(forgetAfter*timeout+time.Second)), "n2")
		},
	}
	const unknown memberState = -1 // n2 not in the view
	for _, tc := range []struct {
		from  memberState
		event string
		to    memberState
		out   any  // what the event reports: back, asked, died
		alive bool // n2 alive at now, after
	}{
		{unknown, "heartbeat", heard, false, true},
		{unknown, "met", heard, nil, true},
		{unknown, "ask", unknown, false, false},
		{unknown, "answer", unknown, nil, false},
		{unknown, "sweep", unknown, false, false},

		{heard, "heartbeat", heard, false, true},
		{heard, "met", heard, nil, false}, // met does not refresh a node known
		{heard, "ask", asking, true, true},
		{heard, "answer", heard, nil, false}, // not asked: an answer is no news
		{heard, "pause", heard, nil, true},
		{heard, "sweep", dead, true, false}, // silent, never asked (the caller asks first: see sweep)
		{heard, "long sweep", unknown, false, false},

		{asking, "heartbeat", heard, false, true},
		{asking, "ask", asking, false, true},
		{asking, "answer", heard, nil, true},
		{asking, "no answer", unanswered, nil, false},
		{asking, "excused", heard, nil, false},
		{asking, "pause", asking, nil, true},
		{asking, "sweep", asking, false, true},

		{unanswered, "heartbeat", heard, false, true},
		{unanswered, "ask", unanswered, false, false},
		{unanswered, "answer", unanswered, nil, false},
		{unanswered, "pause", heard, nil, true},
		{unanswered, "sweep", dead, true, false},

		{dead, "heartbeat", heard, true, true}, // back
		{dead, "met", dead, nil, false},
		{dead, "ask", dead, false, false},
		{dead, "pause", dead, nil, false},
		{dead, "sweep", dead, false, false}, // dies once
		{dead, "long sweep", dead, false, false},
		{dead, "days' sweep", dead, false, false}, // kept: heard again, it is back
	} {
		from := tc.from.String()
		if tc.from == unknown {
			from = "unknown"
		}
		t.Run(from+"/"+tc.event, func(t *testing.T) {
			ms := newMembers("n1", timeout)
			if tc.from != unknown {
				ms.nodes["n2"] = &member{state: tc.from, seen: t0}
			}
			out := events[tc.event](ms)
			if out != tc.out {
				t.Errorf("%s reports %v, want %v", tc.event, out, tc.out)
			}
			to, ok := ms.state("n2")
			if !ok {
				to = unknown
			}
			if to != tc.to {
				t.Errorf("%s: n2 is %v, want %v", tc.event, to, tc.to)
			}
			if got := ms.alive("n2", now); got != tc.alive {
				t.Errorf("after %s: alive(n2) = %v, want %v", tc.event, got, tc.alive)
			}
		})
	}
}

// TestMembersSelf: this node is alive however long since it heard
// itself, is never asked nor taken for dead, and is not among the others.
func TestMembersSelf(t *testing.T) {
	now := time.Date(2026, 1, 1, 20, 0, 0, 0, time.UTC)
	ms := newMembers("n1", time.Second)
	ms.heard("n1", nil, now)
	ms.heard("n2", nil, now)
	later := now.Add(5 * time.Second)
	if !ms.alive("n1", later) {
		t.Error("n1 is not alive to itself")
	}
	if asked := ms.toAsk(later); !slices.Equal(asked, []string{"n2"}) {
		t.Errorf("toAsk = %v, want [n2]", asked)
	}
	ms.answered("n2", false, false, later)
	if died := ms.sweep(later); !slices.Equal(died, []string{"n2"}) {
		t.Errorf("sweep = %v, want [n2]", died)
	}
	if others := ms.others(later); len(others) != 0 {
		t.Errorf("others after n2 died = %v, want none", others)
	}
}

// TestDeadNodesAreBounded: the dead are kept, however long silent, up to
// maxDead; past it those silent longest are forgotten, and the newest
// dead, heard again, is back.
func TestDeadNodesAreBounded(t *testing.T) {
	const timeout = time.Second
	t0 := time.Date(2026, 1, 1, 20, 0, 0, 0, time.UTC)
	ms := newMembers("n1", timeout)
	for i := range maxDead + 10 {
		ms.nodes[fmt.Sprint("gone", i)] = &member{state: dead, seen: t0.Add(time.Duration(i) * time.Minute)}
	}
	ms.sweep(t0.Add(48 * time.Hour))
	if n := len(ms.nodes); n != maxDead {
		t.Errorf("%d dead nodes kept, want %d", n, maxDead)
	}
	for i := range 10 {
		if _, known := ms.state(fmt.Sprint("gone", i)); known {
			t.Errorf("gone%d, silent longest, is still kept", i)
		}
	}
	if !ms.heard(fmt.Sprint("gone", maxDead+9), nil, t0.Add(49*time.Hour)) {
		t.Error("the newest dead, heard again, is not back")
	}
}
