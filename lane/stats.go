package lane

import (
	"math"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// Stats returns the night's numbers of every bowler of the lane's series,
// the game in play included, in the order they first bowled.
func (l *Lane) Stats() protocol.Stats {
	v := l.view.Load()
	return seriesStats(v.series, v.players)
}

// seriesStats adds up each bowler's games of a series and the game in
// play. Names the same but for case are one bowler, as on the lane.
func seriesStats(series []game.Result, playing []bowling.Player) protocol.Stats {
	var names []bowling.Name
	var stats []bowling.Stats
	add := func(name bowling.Name, g *bowling.Game) {
		if g.NumRolls() == 0 {
			return // seated, but never bowled: not a bowler of the night
		}
		i := 0
		for i < len(names) && !names[i].Same(name) {
			i++
		}
		if i == len(names) {
			names, stats = append(names, name), append(stats, bowling.Stats{})
		}
		stats[i].Add(g)
	}
	for _, r := range series {
		for _, p := range r.Players {
			add(p.Name, &p.Game)
		}
	}
	for _, p := range playing {
		add(p.Name, &p.Game)
	}
	out := protocol.Stats{Players: make([]protocol.PlayerStats, len(names))}
	for i, s := range stats {
		out.Players[i] = PlayerStats(names[i], s)
	}
	return out
}

// PlayerStats puts a bowler's figures on the wire, as the stats API
// and a game's line of the series show them.
func PlayerStats(name bowling.Name, s bowling.Stats) protocol.PlayerStats {
	return protocol.PlayerStats{
		Name: string(name), Games: s.Games, Pins: s.Pins, Average: rounded(s.Average()), High: s.High,
		Strikes: s.Strikes, StrikeChances: s.StrikeChances, Spares: s.Spares, SpareChances: s.SpareChances,
		Opens: s.Opens, FirstBallAvg: rounded(s.FirstBallAverage()),
		Splits: s.Splits, SplitsMade: s.SplitsMade, SinglePins: s.SinglePins, SinglePinsMade: s.SinglePinsMade,
		Fouls: s.Fouls, CleanGames: s.CleanGames,
	}
}

// rounded returns x to two decimals, as a bowler reads an average, or nil
// if it is not known.
func rounded(x float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	r := math.Round(x*100) / 100
	return &r
}
