// Package lobby keeps a server's lanes, and the services beside them
// that serve its clients. It answers no request itself: lobby/api serves
// them over HTTP and WebSocket, asking each for what it needs through a
// small interface of its own (api.Services), and lobby/server wires them
// together, in one place (server.API). The services, each with one job:
//
//   - [Lobby] keeps the lanes: it creates, lists and finds them wherever
//     in the cluster they run, runs each lane's goroutine and restores
//     them after a restart (Run, Restore), compacts their journal, admits
//     the WebSocket connections that reach them (Lobby.Admit), and says
//     whether the store takes writes (Lobby.Health). It is also where the
//     others are found.
//   - [Admission] is its door (Lobby.Admission): which client address a
//     request counts against (Admission.ClientAddr), what each address
//     may open and ask for and how fast, and the refusals counted.
//   - [Leagues] runs the leagues' nights on the lobby's lanes
//     (Lobby.Leagues): their creation and records, the weeks their
//     secretaries open and close, scores, corrections, standings and
//     recaps.
//   - The bowlers who asked to be remembered are a bowler.Service, the
//     store's (Lobby.Bowlers, from Config.Lane.Bowlers).
//   - The nights of lanes that closed are kept in an [Archive]
//     (Config.Archive) by a service of the lobby's own, unexported:
//     Lobby.Find shows a kept night, read-only (see [ClosedAt]).
//
// Each part keeps its own state under its own lock: the registry
// (registry.go) keeps the lanes, in the order they were created, with
// those that closed or failed to restore; the Admission (admission.go,
// limit.go) counts what each client address holds open and how fast it
// asks, and the refusals; the compaction (compact.go) bounds the
// journal. Only a compaction takes one lock inside another: the
// registry's, while creations wait to be seen. None is held while
// talking to a lane: a lane's summary is read from what the lane last
// published, so listing thousands of lanes never waits on any of them.
// No exported type has more than 20 exported methods (services_test.go):
// one with more is several services.
//
// What the lobby tells a client it turns away — an API error, or a
// WebSocket refused before it reaches a lane (told by lobby/api through
// lane/ws's Refuse) — is written once, in protocol's table of refusals
// (protocol.Refusal), by reason; errors.go wraps those its callers tell
// apart in its sentinels; the domain's own refusals are lane.ErrorFor's.
package lobby
