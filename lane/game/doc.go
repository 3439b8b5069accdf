// Package game is a lane's game as a log of events, and the journal that
// keeps that log.
//
// # Decide, then apply
//
// A lane's [State] changes only by events. Deciding and applying are
// separate steps:
//
//   - A decision ([State.Join], [State.Start], [State.Roll], [State.Leave],
//     [State.NewGame], [State.Claim], [State.Close]) checks a command
//     against the rules and the lane's settings and returns the one [Event]
//     it produces, or an error that says why it is refused. It changes
//     nothing. On a league night's lane, which has no host among its
//     bowlers, the league's secretary's commands are decisions too: a
//     [Throw] or a [Correction] with Secretary set, [State.SecretarySkip]
//     and [State.SecretaryRemove].
//   - [State.Apply] applies an event. It cannot fail: an event was decided
//     once, against the rules of its day, and a log that was valid when it
//     was written replays whatever the rules and limits are now.
//
// A lane stores each event in its [Journal] before applying it, so the
// stored log alone rebuilds the lane: [Replay] it.
//
// # What an event holds
//
// Events are complete: the lane's opening (id, name, settings), each seat
// taken (the name and a SHA-256 of its resume token, never the token), the
// game started, each roll (who, and who entered it when another player or
// the league's secretary did; frame, ball, pins, and the pins it left
// standing or a foul when the ball said so), a player leaving, a new
// game of the series, a server taking the lane up ([Claimed]: its epoch),
// and the lane closing. A [Snapshot] holds a whole lane: replayed, it
// gives the lane as it was, whatever came before it, so a journal may drop
// a lane's events before its last snapshot ([Journal.Compact]).
//
// # Encoding
//
// [Marshal] and [Unmarshal] give every event a stable, versioned JSON
// form with a string kind: {"v":1,"kind":"rolled",…}. A version this
// package does not know is refused, never guessed at. Fields are only
// ever added, and written only when set: a roll's "standing" (the pins
// left, [7,10]; [] for none) and "foul" appear only on balls that have
// them, so a log without them is byte for byte what version 1 wrote. The encoding is
// pinned by golden files, and a log written by an earlier version is
// replayed by the tests (testdata/), so a change that cannot read
// yesterday's logs fails CI.
//
// The package is pure: no I/O, no clocks, no randomness. The lane draws
// tokens and timestamps and hands the decisions what they need.
package game
