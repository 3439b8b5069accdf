package api

import "github.com/tenpin/tenpin/lobby"

// services returns lb's services, wired as lobby/server's API wires them
// (these tests are inside the package that lobby/server imports).
func services(lb *lobby.Lobby) Services {
	set := lb.Settings()
	return Services{
		Lanes:          lb,
		Admission:      lb.Admission(),
		Leagues:        lb.Leagues(),
		Bowlers:        lb.Bowlers(),
		URLs:           set.URLs,
		OriginPatterns: set.OriginPatterns,
		IdleTimeout:    set.IdleTimeout,
	}
}
