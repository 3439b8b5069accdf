package nemesis

import (
	"errors"
	"testing"

	"github.com/tenpin/tenpin/cmd/tenpin/internal/cluster"
)

// leaderOf picks the bowlers' stream's leader from what a node's
// /debug/streams says, and only once a kill of it leaves two servers
// holding every message: a stream with no leader, or a follower offline
// or behind, is not settled yet.
func TestLeaderOf(t *testing.T) {
	current := func(names ...string) []cluster.Replica {
		var rs []cluster.Replica
		for _, n := range names {
			rs = append(rs, cluster.Replica{Name: n, Current: true})
		}
		return rs
	}
	lanes := cluster.Stream{Name: "TENPIN_LANES", Leader: "n1", Replicas: current("n2", "n3")}
	for _, tc := range []struct {
		name    string
		streams []cluster.Stream
		want    string
		settle  bool // the error is errNotSettled: ask again
	}{
		{"led", []cluster.Stream{lanes, {Name: bowlersStream, Leader: "n2", Replicas: current("n1", "n3")}}, "n2", false},
		{"led by a NATS server", []cluster.Stream{{Name: bowlersStream, Leader: "s3", Replicas: current("s1", "s2")}}, "s3", false},
		{"electing", []cluster.Stream{lanes, {Name: bowlersStream, Replicas: current("n1", "n3")}}, "", true},
		{"a follower behind", []cluster.Stream{{Name: bowlersStream, Leader: "n2", Replicas: []cluster.Replica{{Name: "n1", Current: true}, {Name: "n3"}}}}, "", true},
		{"a follower offline", []cluster.Stream{{Name: bowlersStream, Leader: "n2", Replicas: []cluster.Replica{{Name: "n1", Current: true}, {Name: "n3", Current: true, Offline: true}}}}, "", true},
		{"no such stream", []cluster.Stream{lanes}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := leaderOf(tc.streams, bowlersStream)
			if got != tc.want || (err == nil) != (tc.want != "") || errors.Is(err, errNotSettled) != tc.settle {
				t.Errorf("leaderOf(%v) = %q, %v; want %q (settling %v)", tc.streams, got, err, tc.want, tc.settle)
			}
		})
	}
}
