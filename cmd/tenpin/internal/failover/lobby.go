package failover

import (
	"context"
	"time"

	"github.com/tenpin/tenpin/protocol/client"
)

// poll is one reading of a node's lobby list.
type poll struct {
	at    time.Time
	ok    bool
	lanes map[string]bool
}

// pollLobby reads node i's lobby list every pollEvery until ctx ends.
func (r *run) pollLobby(ctx context.Context, i int) {
	c := &client.Client{URL: r.nodes[i].URL, HTTPClient: r.http}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
		p := poll{at: time.Now()}
		cctx, cancel := context.WithTimeout(ctx, pollTimeout)
		list, err := c.Lanes(cctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			p.ok, p.lanes = true, make(map[string]bool, len(list))
			for _, l := range list {
				p.lanes[l.ID] = true
			}
		}
		r.mu.Lock()
		r.polls[i] = append(r.polls[i], p)
		r.mu.Unlock()
	}
}

// lobbyGap returns the longest time lane id was missing from a node's
// list in polls (oldest first), counting the absences that end after
// kill: from the first reading without it to the next with it, or end.
// Readings that failed say nothing.
func lobbyGap(polls []poll, id string, kill, end time.Time) time.Duration {
	var longest time.Duration
	var missing time.Time // since when, while it is
	for _, p := range polls {
		switch {
		case !p.ok:
		case !p.lanes[id]:
			if missing.IsZero() {
				missing = p.at
			}
		case !missing.IsZero():
			if p.at.After(kill) {
				longest = max(longest, p.at.Sub(missing))
			}
			missing = time.Time{}
		}
	}
	if !missing.IsZero() {
		longest = max(longest, end.Sub(missing))
	}
	return longest
}
