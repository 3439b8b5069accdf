package lane

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lane/polltest"
	"github.com/tenpin/tenpin/lobby/memjournal"
	"github.com/tenpin/tenpin/protocol"
)

// nightOf is a LeagueNight over a real league (lane/league), as the
// lobby's league service is over a stored one: the lane's scores go in
// as the league's decisions, and its sheet comes out of it.
type nightOf struct {
	mu     sync.Mutex
	league *league.League
}

func (n *nightOf) Scores(_ context.Context, _ string, m game.LeagueLane, g int, scores map[bowling.Name]int) (league.MatchSheet, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for name, pins := range scores {
		e, err := n.league.Report(league.GameScore{Week: m.Week, Bowler: string(name), Game: g, Pins: pins})
		if err != nil {
			return league.MatchSheet{}, err
		}
		if e.Kind != "" { // a game the league has already is left as it is
			n.league.Apply(e)
		}
	}
	return n.sheet(m)
}

func (n *nightOf) Sheet(_ context.Context, m game.LeagueLane) (league.MatchSheet, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sheet(m)
}

func (n *nightOf) WeekOpen(_ context.Context, m game.LeagueLane) (bool, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	week, open := n.league.Night()
	return open && week == m.Week, nil
}

func (n *nightOf) sheet(m game.LeagueLane) (league.MatchSheet, error) {
	s, ok := n.league.Sheet(m.Week)
	if !ok || m.Match >= len(s.Matches) {
		return league.MatchSheet{}, fmt.Errorf("no match %d in week %d", m.Match, m.Week)
	}
	return s.Matches[m.Match], nil
}

// await runs what the lane's goroutines sent it back (a league's sheet)
// once they are done: these tests stand in for the lane goroutine.
func (l *Lane) await(ctx context.Context) {
	l.bw.wg.Wait()
	for {
		select {
		case r := <-l.inbox:
			l.handle(ctx, r)
		default:
			return
		}
	}
}

// bowlGame bowls a game of Ann 9 a frame and Bob 8: the league's
// secretary enters Bob's balls, as no phone of his team is on the lane
// (Ann, of the other team, may not).
func bowlGame(t *testing.T, l *Lane, ann *Client) {
	t.Helper()
	for range 10 {
		l.send(ann, l.roll(9, ""))
		l.send(ann, l.roll(0, ""))
		for _, pins := range []int{8, 0} {
			if err := l.asSecretary(l.secretaryRoll("Bob", pins)); err != nil {
				t.Fatalf("the secretary's roll for Bob: %v", err)
			}
		}
	}
}

// secretaryRoll returns the secretary's roll of pins for name's ball up.
func (l *Lane) secretaryRoll(name string, pins int) protocol.Request {
	_, frame, _ := l.state.Match().Up()
	ball := l.upGame().Ball()
	return protocol.Request{Type: protocol.TypeRoll, Name: name, Pins: &pins, Frame: &frame, Ball: &ball}
}

// asSecretary hands the lane a command of the league's secretary, as
// Lane.Secretary does, and returns the lane's answer.
func (l *Lane) asSecretary(m protocol.Request) error {
	result := make(chan error, 1)
	l.handle(context.Background(), request{op: opSecretary, msg: &m, result: result})
	return <-result
}

// TestLeagueNightLane: a league match's lane opens with both teams
// seated and its game under way; a bowler claims their place; a game
// over goes to the league, whose sheet (handicaps, the absent bowler's
// score, points) the board then shows, and the next game starts by
// itself until the night's games are bowled.
func TestLeagueNightLane(t *testing.T) {
	ctx := context.Background()
	lg, err := league.New(league.Settings{Name: "Thursday", GamesPerNight: 2,
		Handicap: league.Handicap{Basis: 200, Percent: 100}, Points: league.Points{PerGame: 2, PerSeries: 2},
		AbsentMinus: 10, VacancyScore: 100,
		Teams: []league.Team{
			{Name: "Pins", Bowlers: []league.Bowler{{Name: "Ann", Average: 150}, {Name: "Cy", Average: 120}}},
			{Name: "Aces", Bowlers: []league.Bowler{{Name: "Bob", Average: 180}}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := lg.Open(1, []league.Absence{{Bowler: "Cy"}})
	if err != nil {
		t.Fatal(err)
	}
	lg.Apply(e)
	night := &nightOf{league: lg}
	m := &game.LeagueLane{League: "lg1", Week: 1, Games: 2, Teams: [2]string{"Pins", "Aces"},
		Places: []game.LeaguePlace{{Name: "Ann", Team: 0}, {Name: "Bob", Team: 1}}}
	l := openLane(t, "league1", Config{Journal: memjournal.New(), League: m, LeagueNight: night})
	l.leagueSheet()
	l.await(ctx)
	ann := attach(l)
	l.send(ann, `{"type":"join","name":"Ann","id":"j"}`)
	if r := replies(ann); len(r) != 1 || r[0]["type"] != "welcome" {
		t.Fatalf("Ann's join: %v", r)
	}
	b := currentBoard(t, l)
	if b.Phase != "playing" || len(b.Players) != 2 || b.Players[0].Team != "Pins" || b.Players[1].Team != "Aces" {
		t.Fatalf("a league lane opened: %+v", b)
	}
	// Handicaps: Ann (200−150) 50, Bob 20. Cy, absent, scores his 120
	// less 10 a game, with his handicap of 80; the Aces' second place is
	// empty, a vacancy of 100 with none.
	if b.Players[0].Handicap == nil || *b.Players[0].Handicap != 50 || b.Players[1].Handicap == nil || *b.Players[1].Handicap != 20 {
		t.Fatalf("handicaps on the board: %+v", b.Players)
	}
	if len(b.Teams) != 2 || b.Teams[0].Scratch != 110 || b.Teams[0].Total != 110+50+80 || b.Teams[1].Scratch != 100 || b.Teams[1].Total != 100+20 {
		t.Fatalf("teams before a ball: %+v", b.Teams)
	}
	bowlGame(t, l, ann)
	l.await(ctx)
	b = currentBoard(t, l)
	if b.Phase != "playing" || len(b.Series) == 0 || len(b.Players) != 2 || b.Players[0].Total != 0 {
		t.Fatalf("after game 1: phase %s, series %+v; want game 2 under way", b.Phase, b.Series)
	}
	// Game 1: Pins 90+50 + 110+80 = 330, Aces 80+20 + 100 = 200: Pins win 2.
	if b.Teams[0].Points != 2 || b.Teams[1].Points != 0 {
		t.Fatalf("points after game 1: %+v", b.Teams)
	}
	st := lg.Standings()
	if st.Bowlers[0].Name != "Ann" || st.Bowlers[0].Games != 1 || st.Bowlers[0].Pins != 90 {
		t.Errorf("the league's standings after game 1: %+v", st.Bowlers)
	}
	bowlGame(t, l, ann)
	l.await(ctx)
	if b = currentBoard(t, l); b.Phase != "finished" {
		t.Fatalf("after the night's last game: phase %s, want finished (no third game)", b.Phase)
	}
	if b.Teams[0].Points != 6 {
		t.Errorf("Pins' points after the night: %v, want 6 (two games and the series)", b.Teams[0].Points)
	}
	if !slices.Equal(b.Teams[0].Games, []int{330, 330}) || !slices.Equal(b.Teams[1].Games, []int{200, 200}) {
		t.Errorf("the teams' games: %v and %v, want 330 330 and 200 200", b.Teams[0].Games, b.Teams[1].Games)
	}
}

// TestLeagueLaneWhoScoresWhom: on a league night's lane no bowler hosts
// (the board names none), a phone enters its team's balls and never the
// other team's, and the league's secretary, through the lane's inbox,
// enters anyone's ball and gives a place back: the phone that held it
// is told, and watches from then on.
func TestLeagueLaneWhoScoresWhom(t *testing.T) {
	m := &game.LeagueLane{League: "lg1", Week: 1, Games: 1, Teams: [2]string{"Pins", "Aces"},
		Places: []game.LeaguePlace{{Name: "Ann", Team: 0}, {Name: "Cy", Team: 0}, {Name: "Bob", Team: 1}}}
	l := openLane(t, "league1", Config{Journal: memjournal.New(), League: m})
	ann, bob := attach(l), attach(l)
	l.send(ann, `{"type":"join","name":"Ann","id":"a"}`)
	l.send(bob, `{"type":"join","name":"Bob","id":"b"}`)
	replies(ann)
	replies(bob)
	if b := currentBoard(t, l); b.Host != "" {
		t.Errorf("the board names %s the host of a league lane", b.Host)
	}
	for _, tc := range []struct {
		who  *Client
		msg  string
		code string
	}{
		{bob, `{"type":"roll","name":"Ann","pins":3,"frame":1,"ball":1,"id":"x"}`, string(protocol.CodeNotYourTeam)},
		{ann, `{"type":"roll","pins":3,"frame":1,"ball":1,"id":"x"}`, "ack"},
		{bob, `{"type":"correct","name":"Ann","pins":4,"frame":1,"ball":1,"id":"x"}`, string(protocol.CodeNotYourTeam)},
		{ann, `{"type":"start","id":"x"}`, string(protocol.CodeNotHost)},
		{ann, `{"type":"remove","name":"Bob","id":"x"}`, string(protocol.CodeNotHost)},
		{ann, `{"type":"roll","pins":4,"frame":1,"ball":2,"id":"x"}`, "ack"},
		{ann, `{"type":"roll","name":"Cy","pins":10,"frame":1,"ball":1,"id":"x"}`, "ack"}, // a teammate's place, no phone
		{ann, `{"type":"roll","name":"Bob","pins":5,"frame":1,"ball":1,"id":"x"}`, string(protocol.CodeNotYourTeam)},
	} {
		l.send(tc.who, tc.msg)
		r := replies(tc.who)
		got := ""
		if len(r) == 1 {
			got, _ = r[0]["type"].(string)
			if got == "error" {
				got, _ = r[0]["code"].(string)
			}
		}
		if got != tc.code {
			t.Errorf("%s: %v, want %s", tc.msg, r, tc.code)
		}
	}
	five := 5
	if err := l.asSecretary(protocol.Request{Type: protocol.TypeRoll, Name: "Ann", Frame: new(int), Ball: new(int), Pins: &five}); !errors.Is(err, game.ErrStaleRoll) {
		t.Errorf("the secretary's roll of frame 0: %v, want %v", err, game.ErrStaleRoll)
	}
	if err := l.asSecretary(l.secretaryRoll("Bob", 5)); err != nil {
		t.Fatalf("the secretary's roll for Bob: %v", err)
	}
	if err := l.asSecretary(protocol.Request{Type: protocol.TypeRemove, Name: "Cy"}); !errors.Is(err, bowling.ErrUnknownPlayer) {
		t.Errorf("the secretary removes Cy, whom no phone holds: %v, want %v", err, bowling.ErrUnknownPlayer)
	}
	if err := l.asSecretary(protocol.Request{Type: protocol.TypeRemove, Name: "Bob"}); err != nil {
		t.Fatalf("the secretary gives Bob's place back: %v", err)
	}
	if r := replies(bob); len(r) != 1 || r[0]["code"] != string(protocol.CodeRemoved) {
		t.Errorf("Bob's phone was told %v, want a %s notice", r, protocol.CodeRemoved)
	}
	if bob.seat != "" {
		t.Errorf("Bob's phone still holds %s's place", bob.seat)
	}
	if err := l.asSecretary(protocol.Request{Type: protocol.TypeRematch}); err == nil {
		t.Error("a secretary's rematch was taken")
	}
	b := currentBoard(t, l)
	if got := b.Players[2].Frames[0].Rolls; !slices.Equal(got, []int{5}) || b.Players[2].Connected {
		t.Errorf("Bob's line: %+v, want his 5 entered by the secretary, no phone", b.Players[2])
	}
	checkConsistent(t, l)
}

// leagueNight is TestLeagueNightLane's league (Ann of the Pins against
// Bob of the Aces, two games a night) with week 1 open, its night, and
// the match of its lane.
func leagueNight(t *testing.T) (*league.League, *nightOf, *game.LeagueLane) {
	t.Helper()
	lg, err := league.New(league.Settings{Name: "Thursday", GamesPerNight: 2,
		Handicap: league.Handicap{Basis: 200, Percent: 100}, Points: league.Points{PerGame: 2, PerSeries: 2},
		AbsentMinus: 10, VacancyScore: 100,
		Teams: []league.Team{
			{Name: "Pins", Bowlers: []league.Bowler{{Name: "Ann", Average: 150}}},
			{Name: "Aces", Bowlers: []league.Bowler{{Name: "Bob", Average: 180}}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := lg.Open(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	lg.Apply(e)
	m := &game.LeagueLane{League: "lg1", Week: 1, Games: 2, Teams: [2]string{"Pins", "Aces"},
		Places: []game.LeaguePlace{{Name: "Ann", Team: 0}, {Name: "Bob", Team: 1}}}
	return lg, &nightOf{league: lg}, m
}

// scored returns each bowler's games and pins as the league has them.
func scored(n *nightOf) map[string][2]int {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := map[string][2]int{}
	for _, b := range n.league.Standings().Bowlers {
		out[b.Name] = [2]int{b.Games, b.Pins}
	}
	return out
}

// TestALeagueGameEndedByALostAnswerIsScored: the last ball of a league
// night's game is stored, but its answer is lost; the lane learns that
// the game is over as it reads its log back, and gives the league the
// game's scores then. Before, only a game ended by an answered ball was
// reported: this one was never, and the week could not close until the
// secretary entered it by hand.
func TestALeagueGameEndedByALostAnswerIsScored(t *testing.T) {
	ctx := context.Background()
	_, night, m := leagueNight(t)
	j := &faulty{Journal: memjournal.New()}
	l := openLane(t, "league1", Config{Journal: j, League: m, LeagueNight: night})
	ann := attach(l)
	l.send(ann, `{"type":"join","name":"Ann","id":"j"}`)
	for frame := range 10 {
		l.send(ann, l.roll(9, ""))
		l.send(ann, l.roll(0, ""))
		for ball, pins := range []int{8, 0} {
			last := l.secretaryRoll("Bob", pins)
			if frame == 9 && ball == 1 {
				j.lose = true // Bob's last ball is stored, its answer lost
				if err := l.asSecretary(last); err == nil {
					t.Fatal("the last ball was answered: the test needs its answer lost")
				}
				if l.state.Phase() == game.Finished {
					t.Fatal("the game ended with the last ball's answer lost: the test needs it not to")
				}
				l.asSecretary(last) // sent again: the lane reads its log back first
				continue
			}
			if err := l.asSecretary(last); err != nil {
				t.Fatalf("the secretary's roll for Bob: %v", err)
			}
		}
	}
	l.await(ctx)
	if got := scored(night); got["Ann"] != [2]int{1, 90} || got["Bob"] != [2]int{1, 80} {
		t.Errorf("the league's games and pins after game 1, its end read back: %v, want Ann [1 90] and Bob [1 80]", got)
	}
}

// TestARestoredLeagueLaneReportsItsNight: a league night's lane restored
// (its server restarted, or another took it over) gives the league again
// the scores of its night's games that are over, which the server that
// held it may not have given; the league keeps those it has.
func TestARestoredLeagueLaneReportsItsNight(t *testing.T) {
	_, night, m := leagueNight(t)
	j := memjournal.New()
	// The lane's first server has no league to tell (as if it stopped
	// before the league had the game): game 1 is bowled, game 2 begun.
	l := openLane(t, "league1", Config{Journal: j, League: m})
	ann := attach(l)
	l.send(ann, `{"type":"join","name":"Ann","id":"j"}`)
	bowlGame(t, l, ann)
	l.leagueNext(context.Background())
	l.send(ann, l.roll(7, ""))
	if got := scored(night); got["Ann"][0] != 0 {
		t.Fatalf("the league has %v before the lane was restored: the test needs game 1 not scored", got)
	}
	log, err := j.Read(context.Background(), "league1", 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Restore(context.Background(), log, Config{Journal: j, LeagueNight: night})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- r.Run(ctx) }()
	polltest.Until(t, 10*time.Second, "game 1 in the league", func() (any, bool) {
		got := scored(night)
		return got, got["Ann"] == [2]int{1, 90} && got["Bob"] == [2]int{1, 80}
	})
	cancel()
	<-ran
}
