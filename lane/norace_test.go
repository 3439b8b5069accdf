//go:build !race

package lane

// raceEnabled: the race detector is on, and allocates.
const raceEnabled = false
