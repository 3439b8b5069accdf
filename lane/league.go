package lane

import (
	"context"
	"errors"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/protocol"
)

// LeagueNight is how a league night's lane reaches its league
// ([Config.LeagueNight]): the league counts the games, the lane shows
// what it counted.
type LeagueNight interface {
	// Scores gives the league each place's scratch score of game n (from
	// 1) of the lane's match, once the game is over, and returns the
	// match's sheet as the league counts it then.
	Scores(ctx context.Context, lane string, m game.LeagueLane, n int, scores map[bowling.Name]int) (league.MatchSheet, error)
	// Sheet returns the match's sheet: each place's handicap, the absent
	// and empty places' scores, the totals and the points won so far.
	Sheet(ctx context.Context, m game.LeagueLane) (league.MatchSheet, error)
	// WeekOpen reports whether the match's week is the league's night
	// open now. The lane of an open week never closes for idleness: its
	// link is on the league's page until the week closes.
	WeekOpen(ctx context.Context, m game.LeagueLane) (bool, error)
}

// leagueTries is how many times a game's scores are offered to a league
// that does not answer, a second more apart each time, before the lane
// logs them as not counted (the secretary may enter them).
const leagueTries = 5

// leagueState is what a league night's lane knows of its league.
type leagueState struct {
	sheet *league.MatchSheet // the match's sheet as the league last counted it; nil before
	asked bool               // a sheet was asked for
	// unreported are the games a read back of the log ended (their
	// balls' answers lost), for the league once the lane may decide
	// again: see readBack.
	unreported []leagueGame
}

// leagueSheet asks the league for the match's sheet, once, off the lane
// goroutine: the board shows handicaps and team totals once it comes.
func (l *Lane) leagueSheet() {
	m := l.state.League()
	if m == nil || l.cfg.LeagueNight == nil || l.lg.asked {
		return
	}
	l.lg.asked = true
	night, appendTimeout, log, lane := l.cfg.LeagueNight, l.cfg.AppendTimeout, l.log, l.id
	l.bw.wg.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), appendTimeout)
		defer cancel()
		sheet, err := night.Sheet(ctx, *m)
		if err != nil {
			log.Warn("a league lane's sheet was not read", "lane", lane, "err", err)
			return
		}
		l.submit(context.Background(), request{op: opLeagueSheet, recorded: &recorded{sheet: &sheet}})
	})
}

// leagueGame is a game of a league night's lane for its league: its
// number in the night (from 1) and each place's scratch score.
type leagueGame struct {
	n      int
	scores map[bowling.Name]int
}

// leagueGameEnded gives the league the scores of the game that just
// ended on a league night's lane, off the lane goroutine, trying again
// for a while if the league does not answer.
func (l *Lane) leagueGameEnded() {
	if l.state.League() != nil && l.state.Phase() == game.Finished {
		l.leagueReport(l.leagueInPlay())
	}
}

// leagueInPlay is the game in play, for the league.
func (l *Lane) leagueInPlay() leagueGame {
	g := leagueGame{n: l.state.GameNumber(), scores: make(map[bowling.Name]int)}
	for _, p := range l.state.Match().Players() {
		g.scores[p.Name] = p.Game.Total()
	}
	return g
}

// leagueReportAgain gives the league again, as a league night's lane is
// restored or taken over, the scores of every game of the night that is
// over: the server that held the lane may have stopped before the league
// had them. The league keeps what it has (league.League.Report): a game
// scored already, by the lane or by the secretary, is left as it is.
func (l *Lane) leagueReportAgain() {
	if l.state.League() == nil {
		return
	}
	series := l.state.Series()
	var games []leagueGame
	for i, res := range series {
		g := leagueGame{n: l.state.GameNumber() - (len(series) - i), scores: make(map[bowling.Name]int)}
		for _, p := range res.Players {
			g.scores[p.Name] = p.Game.Total()
		}
		games = append(games, g)
	}
	if l.state.Phase() == game.Finished {
		games = append(games, l.leagueInPlay())
	}
	l.leagueReport(games...)
}

// reportUnreported gives the league the games a read back ended.
func (l *Lane) reportUnreported() {
	l.leagueReport(l.lg.unreported...)
	l.lg.unreported = nil
}

// leagueReport gives the league games' scores, in order, off the lane
// goroutine, and hands the match's sheet it last answers back to the
// lane.
func (l *Lane) leagueReport(games ...leagueGame) {
	m := l.state.League()
	if m == nil || l.cfg.LeagueNight == nil || len(games) == 0 {
		return
	}
	night, appendTimeout, log, lane, stopped := l.cfg.LeagueNight, l.cfg.AppendTimeout, l.log, l.id, l.stopped
	l.bw.wg.Go(func() {
		var sheet *league.MatchSheet
		for _, g := range games {
			var s league.MatchSheet
			err := retry(stopped, leagueTries, appendTimeout, func(ctx context.Context) (err error) {
				s, err = night.Scores(ctx, lane, *m, g.n, g.scores)
				return err
			})
			if err != nil {
				log.Error("a league game's scores were not counted", "lane", lane, "league", m.League, "week", m.Week, "game", g.n, "err", err)
				continue
			}
			sheet = &s
		}
		if sheet != nil {
			l.submit(context.Background(), request{op: opLeagueSheet, recorded: &recorded{sheet: sheet}})
		}
	})
}

// leagueOpen reports whether the lane is a league night's whose week is
// open, or may be: a league that does not answer keeps its lanes open,
// for a lane closed by mistake would leave its night to be entered by
// hand. Its answer is bounded by AppendTimeout: the lane goroutine waits
// for it.
func (l *Lane) leagueOpen(ctx context.Context) bool {
	m := l.state.League()
	if m == nil || l.cfg.LeagueNight == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, l.cfg.AppendTimeout)
	defer cancel()
	open, err := l.cfg.LeagueNight.WeekOpen(ctx, *m)
	if err != nil {
		l.log.Warn("the lane stays open: its league did not say whether its week is open", "league", m.League, "week", m.Week, "err", err)
		return true
	}
	if open {
		l.log.Debug("the lane stays open: its league night is open", "league", m.League, "week", m.Week)
	}
	return open
}

// leagueNext starts a league night's next game once one is over: the
// night goes on by itself. If the journal does not take it, the next
// message tries again.
func (l *Lane) leagueNext(ctx context.Context) {
	e, ok := l.state.NextLeagueGame()
	if !ok {
		return
	}
	if err := l.record(ctx, e); err != nil {
		l.log.Warn("a league night's next game did not start", "err", err)
		return
	}
	l.changed()
}

// leagueTeams returns the teams' lines of a league night's board; nil on
// a lane of friends.
func (l *Lane) leagueTeams(players []bowling.Player) []protocol.TeamScore {
	m := l.state.League()
	if m == nil {
		return nil
	}
	g := l.state.GameNumber() - 1 // the game in play, from 0
	teams := make([]protocol.TeamScore, 2)
	for t := range teams {
		teams[t].Name = m.Teams[t]
	}
	sheet := l.lg.sheet
	for _, p := range players {
		t, ok := l.teamOf(p.Name)
		if !ok {
			continue
		}
		teams[t].Scratch += p.Game.Total()
		teams[t].Total += p.Game.Total()
		if hc, ok := l.handicap(p.Name); ok {
			teams[t].Total += hc
		}
	}
	if sheet != nil {
		for t, ts := range [2]league.TeamSheet{sheet.Home, sheet.Away} {
			teams[t].Points = ts.PointsWon
			for _, total := range ts.Totals {
				if total < 0 {
					break // a game not counted yet, nor those after it
				}
				teams[t].Games = append(teams[t].Games, total)
			}
			for _, pl := range ts.Places {
				if pl.Kind != league.PlaceAbsent && pl.Kind != league.PlaceVacancy {
					continue // the places that bowl are counted above
				}
				if g < len(pl.Scores) && pl.Scores[g] >= 0 {
					teams[t].Scratch += pl.Scores[g]
					teams[t].Total += pl.Scores[g]
				}
				if pl.HandicapKnown {
					teams[t].Total += pl.Handicap
				}
			}
		}
	}
	return teams
}

// teamOf returns the team (0 home, 1 away) of a league lane's place.
func (l *Lane) teamOf(name bowling.Name) (int, bool) {
	m := l.state.League()
	if m == nil {
		return 0, false
	}
	for _, p := range m.Places {
		if p.Name == name {
			return p.Team, true
		}
	}
	return 0, false
}

// handicap returns the handicap a league lane's place bowls with
// tonight, once the league knows it.
func (l *Lane) handicap(name bowling.Name) (int, bool) {
	if l.lg.sheet == nil {
		return 0, false
	}
	for _, ts := range [2]league.TeamSheet{l.lg.sheet.Home, l.lg.sheet.Away} {
		for _, pl := range ts.Places {
			if pl.Name == string(name) && pl.HandicapKnown && (pl.Kind == league.PlaceBowler || pl.Kind == league.PlaceSubstitute) {
				return pl.Handicap, true
			}
		}
	}
	return 0, false
}

// Secretary hands the lane a command of its league's secretary, from the
// league's page (Authorization: Secretary): m is a lane's message of
// type roll or correct, for any place's ball (m.Name, required: the
// secretary has no ball of their own), skip, or remove (the place of
// m.Name given back by the phone that holds it). The lane decides it as
// any other command, on its goroutine: stored in its journal, then
// applied and shown. It returns nil once the lane has stored it (a roll
// sent again, a ball bowled already, is nil too, and changes nothing),
// or the refusal, to be answered with [ErrorFor]; [ErrStopped] if the
// lane stopped.
func (l *Lane) Secretary(ctx context.Context, m protocol.Request) error {
	return l.ask(ctx, request{op: opSecretary, msg: &m})
}

// secretary decides, stores and shows a league secretary's command (see
// [Lane.Secretary]).
func (l *Lane) secretary(ctx context.Context, m protocol.Request) error {
	if err := l.sync(ctx); err != nil {
		return err // a decision on a state that may be behind the log could be wrong
	}
	l.leagueNext(ctx)
	var e game.Event
	var err error
	now := time.Now()
	switch m.Type {
	case protocol.TypeRoll, protocol.TypeCorrect:
		var t game.Throw
		if t, err = requestBall(m); err != nil {
			return err
		}
		if m.Frame == nil || m.Ball == nil {
			return protocol.RefuseNoFrameBall.Error(m.Type)
		}
		if m.Type == protocol.TypeRoll {
			t.For, t.Frame, t.Ball, t.Secretary = bowling.Name(m.Name), *m.Frame, *m.Ball, true
			e, err = l.state.Roll(t)
		} else {
			e, err = l.state.Correct(game.Correction{For: bowling.Name(m.Name), Frame: *m.Frame, Ball: *m.Ball,
				Pins: t.Pins, Deck: t.Deck, HasDeck: t.HasDeck, Foul: t.Foul, FromDeck: t.FromDeck, At: now, Secretary: true})
		}
	case protocol.TypeSkip:
		e, err = l.state.SecretarySkip(l.upOfflineFor(now), l.cfg.AwayAfter)
	case protocol.TypeRemove:
		e, err = l.state.SecretaryRemove(m.Name)
	default:
		return protocol.RefuseSecretaryType.Error(m.Type)
	}
	if errors.Is(err, game.ErrRolledAlready) {
		return nil // the roll sent again: it stands, and changes nothing
	}
	if err == nil {
		err = l.record(ctx, e)
	}
	if err != nil {
		return err
	}
	l.leagueNext(ctx)
	var left *Client
	if e.Kind == game.SeatClaimed {
		left = l.removed(e) // the phone whose place was given back
	}
	l.changed()
	if left != nil {
		l.overflow(left)
	}
	return nil
}
