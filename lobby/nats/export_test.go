package nats

// ReportCPU is reportCPU, for the benchmarks of package nats_test.
var ReportCPU = reportCPU

// Unframe reads a message to a connection of another node, and the
// kinds it may be: for tests that watch what crosses between nodes.
var Unframe = unframe

const (
	KindBoard = kindBoard
	KindReply = kindReply
	KindClose = kindClose
)

// LoseBoards has this node's relay of lane id miss every board the lane
// publishes from now on, as if each were lost on its way: core NATS
// delivers at most once.
func (c *Cluster) LoseBoards(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	rl := c.relays[id]
	if rl == nil {
		return false
	}
	rl.boards.Unsubscribe()
	return true
}
