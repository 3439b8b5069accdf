// Package peers is what a node of a cluster and the others agree on: the
// port the lobby uses to reach the lanes its peers run ([Cluster]), a
// node's claim on a lane ([Claim]), what a node shows of a lane to the
// others ([LaneView]) and the errors of a lane no node runs. Its
// implementation over NATS is lobby/natspeers; the lobby uses it. Both
// import this package, and neither the other: the adapter knows nothing
// of the lobby's service, nor the lobby of NATS.
package peers

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/relay"
	"github.com/tenpin/tenpin/protocol"
)

// Cluster joins a lobby to the other nodes of a cluster (an adapter:
// lobby/natspeers), which share its journal (lobby/natsstore). Each
// lane runs on one node at a time, its owner: a lobby runs the lanes it
// created or took over, and reaches the others through the cluster.
// Which node may write a lane's log is decided by the log's fence alone
// (a claim appended after the log's last event, see lane.Restore); the
// cluster only says where a lane runs now.
type Cluster interface {
	// Claim announces that this node is taking lane id: nodes that look
	// for it meanwhile are told to wait ([ErrClaiming]), and, once the
	// lane is bound, are served by it. Release withdraws the claim.
	Claim(id string) (Claim, error)
	// Relay returns a relay of lane id, which another node runs, for this
	// node's connections to it. It fails with [ErrNoOwner] when no node
	// runs the lane, and [ErrClaiming] while one is taking it.
	Relay(ctx context.Context, id string) (*relay.Relay, error)
	// Lane returns what the node that runs lane id shows of it, failing as
	// Relay does.
	Lane(ctx context.Context, id string) (*LaneView, error)
	// Secretary hands lane id, which another node runs, a command of its
	// league's secretary, whom this node has checked (see
	// lane.Lane.Secretary), and returns the lane's board once the lane
	// has stored it; the lane's refusal as a *protocol.Error. It fails as
	// Relay does when no node runs the lane.
	Secretary(ctx context.Context, id string, m protocol.Request) ([]byte, error)
	// Lanes returns the listed lanes of the other nodes.
	Lanes(ctx context.Context) ([]protocol.LaneSummary, error)
	// Peers returns the nodes alive now, this one first, with the
	// addresses at which clients open them.
	Peers() []protocol.Node
	// Leader reports whether this node compacts the shared journal: one
	// node alive does.
	Leader() bool
	// SnapshotAll has every node alive store a snapshot of each lane it
	// runs (this one's with its [Lanes]' SnapshotLanes) and returns the ids of
	// those lanes, and the first position a compaction must keep for the
	// lanes among them that did not store their snapshot (0: none). It
	// fails if a node does not answer.
	SnapshotAll(ctx context.Context) (ids []string, keep uint64, err error)
}

// Claim is a node's claim on a lane (see [Cluster.Claim]).
type Claim interface {
	// Bind makes l, running on this node, the lane other nodes reach.
	Bind(l *lane.Lane)
	// Release withdraws the claim: l has stopped, or was never opened.
	Release()
}

// Errors of a [Cluster].
var (
	ErrNoOwner  = errors.New("peers: no node runs the lane")
	ErrClaiming = errors.New("peers: a node is taking the lane over")
	// ErrUnavailable: the store did not answer (a lane's log not read
	// back, a lane's opening not stored): trying again may do. A node
	// taking a lane over tells its relays so, which try again.
	ErrUnavailable = errors.New("lobby: store unavailable")
)

// LaneView is what the node that runs a lane shows of it to others: its
// HTTP API's answers.
type LaneView struct {
	Summary protocol.LaneSummary `json:"summary"`
	Private bool                 `json:"private"`
	Board   json.RawMessage      `json:"board"`
	Text    string               `json:"text"`
	Games   protocol.Games       `json:"games"`
	Stats   protocol.Stats       `json:"stats"`
	// Unsure: the lane may be behind its log (see lane.Lane.Unsure), and
	// the rest of the view with it: the asking node answers nothing from
	// it, as the lane's own node does not.
	Unsure bool `json:"unsure,omitempty"`
}

// Describe returns what l shows of itself to other nodes.
func Describe(l *lane.Lane) *LaneView {
	return &LaneView{Summary: l.Summary(), Private: l.Private(), Board: l.BoardJSON(), Text: l.BoardText(), Games: l.Games(), Stats: l.Stats(), Unsure: l.Unsure()}
}

// ID returns the lane's id.
func (r *LaneView) ID() string { return r.Summary.ID }

// Name returns the lane's name.
func (r *LaneView) Name() string { return r.Summary.Name }

// BoardJSON returns the lane's board message.
func (r *LaneView) BoardJSON() []byte { return r.Board }

// BoardText returns the lane's text scoreboard.
func (r *LaneView) BoardText() string { return r.Text }

// Lanes is what a cluster asks of its node's lanes: the lobby's
// (Lobby.PeerLanes), given to the cluster once the lobby exists (it needs
// the cluster to be made).
type Lanes interface {
	// Adopt takes over the lanes no node runs: at start, once the routes
	// have told this node which lanes the others run, and when a node that
	// was alive falls silent, for the lanes it ran.
	Adopt(ctx context.Context) (int, error)
	// Wake has every lane read its log back before its next decision:
	// this node was paused long enough for the others to think it dead,
	// or cut off from them, and may have lost lanes to them.
	Wake(ctx context.Context)
	// TakeOver takes lane id over on this node, from its log, for the
	// connections a relay of it here serves: the lane's node is gone. It
	// fails if another node runs the lane, or takes it first
	// (peers.ErrClaiming, game.ErrConflict), and with an error wrapping
	// peers.ErrUnavailable while the store does not answer.
	TakeOver(ctx context.Context, id string) (*lane.Lane, error)
	// SnapshotLanes has each of this node's lanes store a snapshot and
	// returns their ids, and the first position of the journal those that
	// failed to store one still need (0: none): the node's part of a
	// compaction of the shared journal.
	SnapshotLanes(ctx context.Context) (ids []string, keep uint64, err error)
}
