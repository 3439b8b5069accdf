package failover

import (
	"math"
	"slices"
	"time"
)

// summarize fills res from what the run recorded, the kill at r.kill and
// the run's end at end.
func (r *run) summarize(res *Result, end time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var next []time.Duration
	for _, l := range r.lanes {
		l.mu.Lock()
		f := laneFigures(l.rolls, r.kill, end)
		l.mu.Unlock()
		f.N, f.ID, f.Node, f.Player = l.n, l.id, l.node, l.player
		res.PerLane = append(res.PerLane, f)
		if f.Acked {
			next = append(next, f.NextRoll)
		}
		if !f.Acked || f.NextRoll > Stalled {
			res.StalledNext++
		}
		if f.LongestGap > Stalled {
			res.StalledGap++
		}
		res.LongestGap = max(res.LongestGap, f.LongestGap)
	}
	res.NextRoll = quantiles(next)

	for _, d := range r.disconnects {
		switch {
		case d.at.Before(r.kill):
			res.BeforeKill++
		case d.node == r.killed || r.stopping(d.node, d.at):
			res.DeadNode++
		default:
			res.Disconnects = append(res.Disconnects, Disconnect{Node: d.node, Lane: d.lane, Client: d.client, After: d.at.Sub(r.kill), Why: d.why})
		}
	}

	for i, polls := range r.polls {
		node := r.nodes[i].Name
		if node == r.killed {
			continue
		}
		for _, p := range polls {
			if p.at.Before(r.kill) {
				continue
			}
			res.Lobby.Polls++
			if !p.ok {
				res.Lobby.Failed++
			}
		}
		for _, l := range r.lanes {
			if g := lobbyGap(polls, l.id, r.kill, end); g > res.Lobby.Longest {
				res.Lobby.Longest, res.Lobby.Lane, res.Lobby.Node = g, l.n, node
			}
		}
	}
}

// laneFigures measures one lane's rolls (in the order they were sent)
// against the kill at kill and the run's end at end: see Lane.
func laneFigures(rolls []roll, kill, end time.Time) Lane {
	var f Lane
	var acks []time.Time
	for _, r := range rolls {
		if r.acked {
			acks = append(acks, r.answered)
		}
		switch {
		case r.sent.Before(kill):
			if r.acked && r.answered.Before(kill) {
				f.AckedBefore++
			}
		case !r.acked:
			f.Failed++
		case !f.Acked || r.answered.Sub(kill) < f.NextRoll:
			f.Acked, f.NextRoll = true, r.answered.Sub(kill)
		}
		if r.acked && !r.answered.Before(kill) {
			f.AckedAfter++
		}
	}
	slices.SortFunc(acks, func(a, b time.Time) int { return a.Compare(b) })
	last := kill // with no ack before the kill, the gap starts at it
	for _, a := range acks {
		if a.After(kill) {
			f.LongestGap = max(f.LongestGap, a.Sub(last))
		}
		last = a
	}
	f.LongestGap = max(f.LongestGap, end.Sub(last))
	return f
}

// quantiles returns the p50, p99 and max of ds, nearest rank.
func quantiles(ds []time.Duration) Quantiles {
	if len(ds) == 0 {
		return Quantiles{}
	}
	s := slices.Sorted(slices.Values(ds))
	rank := func(p float64) time.Duration { return s[int(math.Ceil(p*float64(len(s))))-1] }
	return Quantiles{N: len(s), P50: rank(0.50), P99: rank(0.99), Max: s[len(s)-1]}
}
