// Package natstest runs NATS servers for tests, as an operator would run
// them outside tenpin: a tenpin node reaches them with -nats URL. It
// belongs with lobby/natsconn, which opens NATS for the store and the
// cluster.
package natstest

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	natsd "github.com/nats-io/nats-server/v2/server"
)

// StartServer starts a NATS server with JetStream on a port the OS
// assigns, storing in a temporary directory, and returns its client URL.
// It is shut down when the test ends.
func StartServer(t testing.TB) string {
	t.Helper()
	s, err := natsd.NewServer(&natsd.Options{
		JetStream: true, StoreDir: t.TempDir(),
		Host: "127.0.0.1", Port: natsd.RANDOM_PORT,
		NoSigs: true, NoLog: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("natstest: the NATS server did not start in 10 s")
	}
	return s.ClientURL()
}

// Cluster is NATS servers with JetStream routed to each other, each
// listening for clients on a port of its own: the external cluster a
// tenpin node reaches with -nats URL,URL,URL. Its ports are reserved when
// it is made, so that every server lists every other's route from the
// start (a seed-only layout was seen not to form), and the servers are
// started one by one ([Cluster.Start]), as an operator's come up.
type Cluster struct {
	t       testing.TB
	opts    []*natsd.Options
	servers []*natsd.Server
}

// NewCluster returns a cluster of n servers, none of them started yet.
// The started ones are shut down when the test ends.
func NewCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	ports := freePorts(t, 2*n)
	routes := make([]string, n)
	for i := range n {
		routes[i] = fmt.Sprintf("nats://127.0.0.1:%d", ports[n+i])
	}
	c := &Cluster{t: t, servers: make([]*natsd.Server, n)}
	for i := range n {
		c.opts = append(c.opts, &natsd.Options{
			ServerName: fmt.Sprint("s", i+1),
			JetStream:  true, StoreDir: t.TempDir(),
			Host: "127.0.0.1", Port: ports[i],
			MaxPayload: 8 << 20, // a lane's largest snapshot, as tenpin asks of an external NATS
			Cluster:    natsd.ClusterOpts{Name: "natstest", Host: "127.0.0.1", Port: ports[n+i]},
			Routes:     natsd.RoutesFromStr(strings.Join(routes, ",")),
			NoSigs:     true, NoLog: true,
		})
	}
	t.Cleanup(func() {
		for _, s := range c.servers {
			if s != nil {
				s.Shutdown()
			}
		}
	})
	return c
}

// StartCluster starts a cluster of n servers and returns their client
// URLs, comma-separated. JetStream takes a stream some seconds later,
// once the servers have met and elected their meta leader.
func StartCluster(t testing.TB, n int) string {
	t.Helper()
	c := NewCluster(t, n)
	for i := range n {
		c.Start(i)
	}
	return c.URLs()
}

// Start starts the cluster's server i (from 0), and returns once it takes
// connections.
func (c *Cluster) Start(i int) {
	c.t.Helper()
	s, err := natsd.NewServer(c.opts[i])
	if err != nil {
		c.t.Fatal(err)
	}
	s.Start()
	c.servers[i] = s
	if !s.ReadyForConnections(10 * time.Second) {
		c.t.Fatalf("natstest: NATS server %d did not start in 10 s", i+1)
	}
}

// Server returns the cluster's server i, nil if it was not started.
func (c *Cluster) Server(i int) *natsd.Server { return c.servers[i] }

// URLs returns every server's client URL, comma-separated, whether it was
// started or not.
func (c *Cluster) URLs() string {
	urls := make([]string, len(c.opts))
	for i, o := range c.opts {
		urls[i] = fmt.Sprintf("nats://127.0.0.1:%d", o.Port)
	}
	return strings.Join(urls, ",")
}

// freePorts returns n loopback ports free a moment ago: listened on, then
// closed, for the servers to listen on next.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close() // all at the end: n different ports
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}
