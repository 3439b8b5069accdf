// Package league is a ten-pin league's season: its [Settings] (teams and
// their rosters, handicap, points, absent and vacancy scores), its
// [Schedule] (a round robin by the circle method), its nights and their
// score sheets ([League.Sheet]), and the [Standings] of teams and
// bowlers. The rules are those of the rule book,
// lane/bowling/DOMAIN.md ("League").
//
// # Decide, then apply
//
// A [League] changes only by events, as a lane's game does (lane/game):
// a decision ([League.Open], [League.Score], [League.Close]) checks a
// command and returns the one [Event] it makes, or an error saying why it
// is refused, and changes nothing; [League.Apply] applies an event and
// cannot fail. A league is its settings and its events: [Replay] rebuilds
// it, and whoever stores a league stores those. The events hold names as
// the league spells them, never an index that a later version could
// shuffle.
//
// # Counting
//
// Everything a night counts comes from the averages before it: handicaps,
// absent scores. So the league keeps the nights, and counts the closed
// ones once, into running totals; the night in play is counted match by
// match as its games are scored, and [League.Standings] adds it to those
// totals. A correction of a closed night ([Corrected]) counts the nights
// again from the first, in order: every later average, handicap, absent
// score, point and high follows, as if the right score had been there
// from the start.
//
// A ball's correction ([League.CorrectBall]) is decided on the game its
// lane kept, which the league does not hold: the caller reads it from the
// lane and passes it in. The league keeps only the balls it corrected, to
// make them again on that game before the next correction of it.
//
// The package is pure: no I/O, no clocks, no randomness, and no encoding;
// the league's store and the protocol own how settings and events are
// written.
package league
