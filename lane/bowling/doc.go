// Package bowling holds the rules of ten-pin bowling as tenpin plays them:
// one player's [Game] (rolls in, frames out), a [Match] of several players
// taking turns on one lane, player [Name]s (the console's three letters,
// [ParseName], and a lane's names of any script, [ParseLaneName]), the pins
// standing ([Deck]), and the text scoreboard.
//
// The package is pure: it does no I/O, keeps no clocks and imports nothing
// but the standard library and Unicode's tables (golang.org/x/text for
// normal forms and case folding, rivo/uniseg for characters as a reader
// counts them and their width on a screen), so the lane server, the console
// game and the tests all share the same rules. Every refused input returns an
// error that [errors.Is] matches against one of the sentinel errors below and
// leaves the state exactly as it was.
//
// A ball is a count of pins, or a [Ball] that also names the [Deck] of pins
// it left standing (from which a split is told, [Deck.Split]) or is a foul.
// A game is fully determined by its ordered balls: [ReplayBalls] rebuilds
// one ([Replay] from counts alone), and a match is rebuilt by adding the
// same players and replaying the same balls in order.
package bowling
