package lobby

import "github.com/tenpin/tenpin/lobby/memjournal"

// newInMemory returns New(cfg), its lanes kept in memory unless cfg
// names a journal.
func newInMemory(cfg Config) *Lobby {
	if cfg.Lane.Journal == nil {
		cfg.Lane.Journal = memjournal.New()
	}
	return New(cfg)
}
