package lobby

import (
	"context"

	"github.com/tenpin/tenpin/lane/league"
)

// LeagueScore is leagueScore: a game's score as a lane reports it.
func (lb *Lobby) LeagueScore(ctx context.Context, leagueID string, g league.GameScore, by string) error {
	return lb.leagueScore(ctx, leagueID, g, by)
}
