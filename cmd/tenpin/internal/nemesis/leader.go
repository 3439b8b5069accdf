package nemesis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tenpin/tenpin/cmd/tenpin/internal/cluster"
	"github.com/tenpin/tenpin/lobby/natsstore"
)

// bowlersStream is the stream behind the bowlers' key-value bucket: one
// raft group, whose leader's death holds up every game's recording
// until the two other servers elect another.
const bowlersStream = "KV_" + natsstore.BowlersBucket

// leaderEvery: the first kill and every leaderEvery-th fault after it
// kill the bowlers' bucket leader (Config.KillBowlersLeader); the faults
// between are random, as ever, and may hit it too.
const leaderEvery = 3

// leaderWait bounds the wait for the bowlers' stream to have a leader
// and every follower current: longer than an election (4–9 s) and than a
// restarted server's catching up under load.
const leaderWait = time.Minute

// errNotSettled is a stream not ready to lose its leader: none elected,
// or a follower behind or lost, whose quorum a kill would break.
var errNotSettled = errors.New("nemesis: stream not settled")

// leaderOf returns the server leading stream among streams, as a node's
// /debug/streams tells them, once the stream may lose it: it has a
// leader and every follower is online and current, so that the two
// servers left keep a quorum holding every message.
func leaderOf(streams []cluster.Stream, stream string) (string, error) {
	for _, s := range streams {
		if s.Name != stream {
			continue
		}
		if s.Leader == "" {
			return "", fmt.Errorf("%w: %s has no leader", errNotSettled, stream)
		}
		for _, p := range s.Replicas {
			if p.Offline || !p.Current {
				return "", fmt.Errorf("%w: %s's follower %s is offline (%v) or behind (current %v)", errNotSettled, stream, p.Name, p.Offline, p.Current)
			}
		}
		return s.Leader, nil
	}
	return "", fmt.Errorf("nemesis: no stream %s among the store's %d", stream, len(streams))
}

// bowlersLeader returns the process whose server leads the bowlers'
// bucket: a node, whose embedded server is named as it is, or one of
// Config.NATSCluster's servers. It asks the nodes in turn until the
// stream is settled (leaderOf), for up to leaderWait.
func (r *Run) bowlersLeader(ctx context.Context) (*cluster.Process, error) {
	procs := r.nodes
	if r.servers != nil {
		procs = r.servers
	}
	deadline := time.Now().Add(leaderWait)
	var last error
	for try := 0; ; try++ {
		n := r.nodes[try%len(r.nodes)]
		cctx, cancel := context.WithTimeout(ctx, commandTimeout)
		streams, err := n.Streams(cctx, r.http)
		cancel()
		if err == nil {
			var name string
			if name, err = leaderOf(streams, bowlersStream); err == nil {
				if p := cluster.Find(procs, name); p != nil {
					return p, nil
				}
				return nil, fmt.Errorf("nemesis: %s says %s leads %s, which is none of the run's processes", n.Name, name, bowlersStream)
			}
		}
		last = err
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("nemesis: the leader of %s to kill, for %v: %w", bowlersStream, leaderWait, last)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
