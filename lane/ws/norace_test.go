//go:build !race

package ws

// raceEnabled: the race detector is on, and allocates.
const raceEnabled = false
