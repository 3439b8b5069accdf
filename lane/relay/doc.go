// Package relay carries a lane to the clients of another node of a
// cluster, over any transport between nodes ([Upstream]; NATS in
// lobby/natspeers). It has two sides:
//
//   - On a client's node, a [Relay] of the lane is the lane.Endpoint its
//     WebSocket is attached to in the lane's stead. It forwards what its
//     connections send to the lane's node, fans out each board the lane
//     publishes once for all of them ([Relay.Board]), and hands each
//     connection what the lane sent it alone ([Relay.Deliver]).
//   - On the lane's node, [Attach] attaches each of a relay's
//     connections to the lane as a client like any other, and [Decode]
//     reads what the relay forwards.
//
// Package lane knows nothing of either: it gives a relayed client every
// board and every reply as it gives its own, and this package decides
// what crosses between the nodes.
//
// # A roll's path across nodes
//
// The relay forwards the roll to the lane's node: published, not asked,
// so nothing answers it but the lane. There it reaches the lane as any
// roll does. The board comes back to each node once (published by the
// [Publication] the lane's relayed connections share, then
// [Relay.Board]) and is handed to each of the relay's connections.
// What the lane sends the roller alone comes back to the roller's node on
// the connection's own way, in order ([Relay.Deliver]): the board first,
// if the connection was not sent it on that way already, then the ack
// (see [Attach]). So the ack never arrives before the board it
// acknowledges, and the relay hands both on as they come, holding
// nothing back. Sent the roller's node on its own way, a board may
// overtake those published for all: the relay hands it to all its
// connections if it is the next they wait for (and drops the published
// one when it comes), to the roller's alone if not.
//
// # Secrets stay on their node
//
// A seat's token and a lane's host key never leave the node of the
// connection that holds them: the relay forwards their SHA-256 in a
// [Request] of its own, and puts the token back into the welcome that
// answers it. Whoever sees the traffic between nodes sees no secret that
// takes a seat or makes a host.
//
// # When the lane's node dies
//
// The relay's node takes the lane over from its log, and the relay hands
// its connections to the lane ([Relay.HandOver], lane.Lane.HandIn); or,
// if another node took it over first, the relay follows the lane there
// ([Relay.Follow]). Either way no connection is closed: each keeps the
// seat its latest welcome gave it (the relay kept the token), is sent the
// board of the lane's new epoch, whose seq is higher than any before, and
// has the messages the dead node never answered read again, in order: a
// roll the dead node stored is acknowledged as the ball bowled already,
// one it never read is stored and acknowledged. So a roll in flight is
// answered, never lost, and never told "nothing changed" when it did.
package relay
