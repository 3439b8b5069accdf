package lobby

import "github.com/tenpin/tenpin/lane"

// LeagueNight is what the lobby's league night lanes report their games
// to.
func (lb *Lobby) LeagueNight() lane.LeagueNight { return leagueNight{lb.leagues} }
