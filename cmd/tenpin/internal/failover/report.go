package failover

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"
)

// Print writes res as text: the figures, then the disconnections grouped
// by node, client and cause, then every lane's figures.
func Print(w io.Writer, res Result) {
	seated := "and 2 watchers on the other nodes"
	if res.Relayed {
		seated = "on another node than the lane's, relayed, and 2 watchers on the nodes other than the player's"
	}
	fmt.Fprintf(w, "failover: 3 tenpin nodes on an %s; %d lanes, each 1 player (a gutter ball every %v) %s\n",
		res.Topology, res.Lanes, res.Every, seated)
	load := ""
	if res.Load != "" {
		load = "; load average " + res.Load
	}
	sig := res.Signal
	if sig == "" {
		sig = "SIGKILL" // a report from before there was a choice
	}
	fmt.Fprintf(w, "killed       %s with %s after %v of play: %s%s; measured for %v after\n", res.Killed, sig, res.Warmup, res.Role, load, res.Measure)
	q := res.NextRoll
	fmt.Fprintf(w, "next roll    p50 %s  p99 %s  max %s  (%d of %d lanes acked a roll sent after the kill)\n",
		secs(q.P50), secs(q.P99), secs(q.Max), q.N, len(res.PerLane))
	fmt.Fprintf(w, "stalled >%v  %d of %d lanes by the next roll, %d by the longest gap between acks (longest %s)\n",
		Stalled, res.StalledNext, len(res.PerLane), res.StalledGap, secs(res.LongestGap))
	fmt.Fprintf(w, "disconnects  %d on survivors after the kill; %d on the killed node; %d before the kill\n",
		len(res.Disconnects), res.DeadNode, res.BeforeKill)
	for _, g := range groupDisconnects(res.Disconnects) {
		when := secs(g.first)
		if last := secs(g.last); last != when {
			when += "–" + last
		}
		fmt.Fprintf(w, "  %3d × %s on %s, %s after the kill: %s\n", g.n, g.client, g.node, when, g.why)
	}
	lg := res.Lobby
	fmt.Fprintf(w, "lobby gap    %s", secs(lg.Longest))
	if lg.Longest > 0 {
		fmt.Fprintf(w, ": lane %d missing from %s's list", lg.Lane, lg.Node)
	}
	fmt.Fprintf(w, " (survivors' lists read %d times after the kill, %d failed)\n", lg.Polls, lg.Failed)
	player := ""
	if res.Relayed {
		player = "  player"
	}
	fmt.Fprintf(w, "lane  node%s  next roll  longest gap  acked before/after  failed after\n", player)
	for _, l := range res.PerLane {
		next := "never"
		if l.Acked {
			next = secs(l.NextRoll)
		}
		node := fmt.Sprintf("%-4s", l.Node)
		if res.Relayed {
			node += fmt.Sprintf("  %-6s", l.Player)
		}
		fmt.Fprintf(w, "%4d  %s  %9s  %11s  %18s  %12d\n", l.N, node, next, secs(l.LongestGap),
			fmt.Sprintf("%d/%d", l.AckedBefore, l.AckedAfter), l.Failed)
	}
}

// secs writes d in seconds to the hundredth.
func secs(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }

// disconnectGroup is the disconnections of one kind of client on one
// node for one cause.
type disconnectGroup struct {
	node, client, why string
	n                 int
	first, last       time.Duration
}

func groupDisconnects(ds []Disconnect) []disconnectGroup {
	var gs []disconnectGroup
	for _, d := range ds {
		i := slices.IndexFunc(gs, func(g disconnectGroup) bool { return g.node == d.Node && g.client == d.Client && g.why == d.Why })
		if i < 0 {
			gs = append(gs, disconnectGroup{node: d.Node, client: d.Client, why: d.Why, first: d.After, last: d.After})
			i = len(gs) - 1
		}
		g := &gs[i]
		g.n++
		g.first, g.last = min(g.first, d.After), max(g.last, d.After)
	}
	slices.SortFunc(gs, func(a, b disconnectGroup) int {
		return cmp.Or(cmp.Compare(a.node, b.node), cmp.Compare(a.client, b.client), cmp.Compare(a.why, b.why))
	})
	return gs
}
