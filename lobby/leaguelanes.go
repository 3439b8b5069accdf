package lobby

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lobby/peers"
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
	Invites       [2]game.TokenHash // each team's invitation's hash: see teamInvites
}

// name is the lane's name: the week and the teams, cut to a lane name's
// length. A lane name is counted in code points (bowling.ParseTitle), and
// cut between characters as a reader sees them, so that no emoji or
// accent is cut in two.
func (ll leagueLane) name() string {
	n := fmt.Sprintf("Week %d: %s v %s", ll.Week, ll.Home.Team, ll.Away.Team)
	if utf8.RuneCountInString(n) <= MaxLaneName {
		return n
	}
	out, rest, count := "", n, 0
	for len(rest) > 0 {
		var c string
		c, rest, _, _ = uniseg.FirstGraphemeClusterInString(rest, -1)
		if count+utf8.RuneCountInString(c) > MaxLaneName-1 { // room for the ellipsis
			break
		}
		out += c
		count += utf8.RuneCountInString(c)
	}
	return out + "…"
}

// match returns what makes the lane the match's (game.LeagueLane): the
// places that bowl, home first, each team's in roster order.
func (ll leagueLane) match() *game.LeagueLane {
	m := &game.LeagueLane{League: ll.League, Week: ll.Week, Match: ll.Match, Games: ll.GamesPerNight,
		Teams: [2]string{ll.Home.Team, ll.Away.Team}, Invites: ll.Invites}
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
	return lb.create(ctx, ll.name(), "", true, game.TokenHash{}, game.TokenHash{}, ll.match())
}

// maxReopenings is how many times a league night's lane that failed is
// reopened by one server: a lane that fails again and again has a bug
// the log shows, and reopening it for ever would hide it.
const maxReopenings = 3

// reopenings counts, by lane, the league lanes reopened after they
// failed.
type reopenings struct {
	mu sync.Mutex
	n  map[string]int
}

// another counts one more reopening of lane id, and reports whether it
// may be reopened once more.
func (r *reopenings) another(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = make(map[string]int)
	}
	r.n[id]++
	return r.n[id] <= maxReopenings
}

// reopen brings back, from its log, a league night's lane whose goroutine
// ended while its week may still be open (it failed: err), so that the
// league page's link leads to a lane that takes balls, with its games
// so far. A league lane closes for idleness only once its week has (see
// lane.Config.LeagueNight); one closed so, moved to another node or
// stopped with the server is not reopened. In a cluster the lane is
// claimed as a node takes over a lane no node runs.
func (lb *Lobby) reopen(ctx context.Context, id string, err error) {
	if !lb.reopened.another(id) {
		lb.log.Error("a league lane failed again and is left closed", "lane", id, "reopened", maxReopenings, "err", err)
		return
	}
	if lb.cfg.Cluster != nil {
		switch _, err := lb.claim(ctx, id); {
		case errors.Is(err, game.ErrConflict), errors.Is(err, peers.ErrClaiming):
			lb.log.Info("a league lane that failed here was taken over by another node", "lane", id)
		case err != nil:
			lb.log.Error("a league lane that failed was not reopened", "lane", id, "err", err)
		}
		return
	}
	l, err := lb.takeOver(ctx, id)
	if err != nil {
		lb.log.Error("a league lane that failed was not reopened", "lane", id, "err", err)
		return
	}
	lb.lanes.takenOver(l, nil)
	lb.startLane(l, nil, "league lane reopened")
}

// leagueNight is the league night's lanes' league (lane.LeagueNight): the
// lobby's leagues.
type leagueNight struct{ lg *Leagues }

// Scores enters a game's scores as its lane reports them, each place's
// in order, and closes the night once its every game is scored (the last
// game's end makes the night final); then it returns the match's sheet.
// A game the league has scored already is left as it is: a lane reports
// a game again only when it did not hear the first answer, and the score
// the league has since may be a secretary's correction (league.Report).
func (n leagueNight) Scores(ctx context.Context, laneID string, m game.LeagueLane, g int, scores map[bowling.Name]int) (league.MatchSheet, error) {
	var sheet league.MatchSheet
	err := n.lg.withLeague(ctx, m.League, func(e *leagueEntry) error {
		by := "lane " + laneID
		for _, p := range m.Places {
			pins, ok := scores[p.Name]
			if !ok {
				continue
			}
			score := league.GameScore{Week: m.Week, Bowler: string(p.Name), Game: g, Pins: pins}
			if _, _, err := n.lg.changeLeague(ctx, e, by, func(l *league.League) (league.Event, error) { return l.Report(score) }, nil); err != nil {
				return err
			}
		}
		_, _, err := n.lg.changeLeague(ctx, e, by, func(l *league.League) (league.Event, error) { return l.Close(m.Week) }, nil)
		if err != nil && !errors.Is(err, league.ErrIncomplete) && !errors.Is(err, league.ErrWeek) {
			return err // ErrIncomplete: other games to come; ErrWeek: closed already
		}
		sheet, err = matchSheet(e.l, m)
		return err
	})
	return sheet, err
}

// Sheet returns the match's sheet as the league counts it now.
func (n leagueNight) Sheet(ctx context.Context, m game.LeagueLane) (league.MatchSheet, error) {
	var sheet league.MatchSheet
	err := n.lg.withLeague(ctx, m.League, func(e *leagueEntry) error {
		var err error
		sheet, err = matchSheet(e.l, m)
		return err
	})
	return sheet, err
}

// WeekOpen reports whether the match's week is the league's night open
// now. A league the store no longer has has no open week: its lanes
// close as any lane does.
func (n leagueNight) WeekOpen(ctx context.Context, m game.LeagueLane) (bool, error) {
	var open bool
	err := n.lg.withLeague(ctx, m.League, func(e *leagueEntry) error {
		week, ok := e.l.Night()
		open = ok && week == m.Week
		return nil
	})
	if errors.Is(err, league.ErrNotFound) {
		return false, nil
	}
	return open, err
}

// matchSheet returns match m's sheet of l.
func matchSheet(l *league.League, m game.LeagueLane) (league.MatchSheet, error) {
	if l == nil {
		return league.MatchSheet{}, fmt.Errorf("lobby: league %s is not loaded", m.League)
	}
	s, ok := l.Sheet(m.Week)
	if !ok || m.Match < 0 || m.Match >= len(s.Matches) {
		return league.MatchSheet{}, fmt.Errorf("lobby: league %s has no match %d in week %d", m.League, m.Match, m.Week)
	}
	return s.Matches[m.Match], nil
}
