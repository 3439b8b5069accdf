package lane

// Hooks for the external tests of package lane_test, which may import what
// imports lane (the NATS journal of lobby/natsstore) where the internal tests
// may not.

// BenchRollStored is benchRollStored.
var BenchRollStored = benchRollStored

// BenchGames is benchGames.
var BenchGames = benchGames
