package lobby

import (
	"context"
	"fmt"

	"github.com/rivo/uniseg"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/league"
)

// leagueLane is a match of a league night, as its lane is opened: the
// league, the week, the match's place in the week, and its two teams'
// places as the night's sheet has them (home first).
type leagueLane struct {
	League        string // the league's id
	LeagueName    string
	Week, Match   int
	Home, Away    league.TeamSheet
	GamesPerNight int
}

// name is the lane's name: the week and the teams, cut to a lane name's
// length.
func (ll leagueLane) name() string {
	n := fmt.Sprintf("Week %d: %s v %s", ll.Week, ll.Home.Team, ll.Away.Team)
	if uniseg.GraphemeClusterCount(n) <= MaxLaneName {
		return n
	}
	out, rest, count := "", n, 0
	for len(rest) > 0 && count < MaxLaneName-1 {
		var c string
		c, rest, _, _ = uniseg.FirstGraphemeClusterInString(rest, -1)
		out += c
		count++
	}
	return out + "…"
}

// match returns what makes the lane the match's (game.LeagueLane): the
// places that bowl, home first, each team's in roster order.
func (ll leagueLane) match() *game.LeagueLane {
	m := &game.LeagueLane{League: ll.League, Week: ll.Week, Match: ll.Match, Games: ll.GamesPerNight,
		Teams: [2]string{ll.Home.Team, ll.Away.Team}}
	for t, ts := range [2]league.TeamSheet{ll.Home, ll.Away} {
		for _, pl := range ts.Places {
			if pl.Kind != league.PlaceBowler && pl.Kind != league.PlaceSubstitute {
				continue // an absent bowler's place, or an empty one: it bowls nothing
			}
			m.Places = append(m.Places, game.LeaguePlace{Name: bowling.Name(pl.Name), Team: t})
		}
	}
	return m
}

// openLeagueLane opens the lane of a league night's match, its places
// seated and its first game under way. It is private (the league's page
// and its QR codes lead to it, the lobby does not list it) and given
// away: it waits for no creator.
func (lb *Lobby) openLeagueLane(ctx context.Context, ll leagueLane) (*lane.Lane, error) {
	return lb.create(ctx, ll.name(), "", true, game.TokenHash{}, ll.match())
}
