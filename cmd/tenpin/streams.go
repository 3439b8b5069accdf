package main

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tenpin/tenpin/cmd/tenpin/internal/cluster"
)

// streamsTimeout bounds the listing of the streams: a cluster electing its
// meta leader answers nothing for some seconds, and the operator (or the
// nemesis, which asks the next node) had better hear so.
const streamsTimeout = 5 * time.Second

// streamsHandler serves GET /debug/streams: every JetStream stream of the
// store, the server that leads it and its followers, as the node's
// connection sees them. It tells an operator which server's death stalls
// what, and tells tenpin nemesis which process leads the bowlers' bucket,
// on an embedded cluster (whose servers take no client but their own
// node's) as on an external one.
func streamsHandler(js jetstream.JetStream) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), streamsTimeout)
		defer cancel()
		out := []cluster.Stream{}
		list := js.ListStreams(ctx)
		for info := range list.Info() {
			s := cluster.Stream{Name: info.Config.Name}
			if c := info.Cluster; c != nil {
				s.Leader = c.Leader
				for _, p := range c.Replicas {
					s.Replicas = append(s.Replicas, cluster.Replica{Name: p.Name, Current: p.Current, Offline: p.Offline})
				}
			}
			out = append(out, s)
		}
		if err := list.Err(); err != nil {
			http.Error(w, "the store's streams: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		slices.SortFunc(out, func(a, b cluster.Stream) int { return strings.Compare(a.Name, b.Name) })
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}
}
