package lane

import (
	"math"
	"slices"
	"strconv"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// Stats returns the night's numbers of every bowler of the lane's series,
// the game in play included, in the order they first bowled: those the
// board shows, added up on the lane's goroutine once for each ball.
func (l *Lane) Stats() protocol.Stats {
	return protocol.Stats{Players: l.view.Load().stats.wire()}
}

// tally adds up the night's numbers: each bowler's, in the order they
// first bowled. Names the same but for case are one bowler, as on the
// lane.
type tally struct {
	names []bowling.Name
	stats []bowling.Stats
}

func (t *tally) add(name bowling.Name, g *bowling.Game) {
	if g.NumRolls() == 0 {
		return // seated, but never bowled: not a bowler of the night
	}
	t.stats[t.bowler(name)].Add(g)
}

// bowler returns the index of name's figures, added if new.
func (t *tally) bowler(name bowling.Name) int {
	i := t.index(name)
	if i < 0 {
		i = t.push(name)
	}
	return i
}

// index returns the index of name's figures, or -1.
func (t *tally) index(name bowling.Name) int {
	if i := slices.Index(t.names, name); i >= 0 {
		return i // mostly: Same is slower, and its answer for them
	}
	return slices.IndexFunc(t.names, name.Same)
}

// push adds figures of nothing yet for name, and returns their index.
func (t *tally) push(name bowling.Name) int {
	t.names, t.stats = append(t.names, name), append(t.stats, bowling.Stats{})
	return len(t.names) - 1
}

func (t *tally) addSeries(series []game.Result) {
	for _, r := range series {
		for _, p := range r.Players {
			t.add(p.Name, &p.Game)
		}
	}
}

// wire is the tally as the stats API and a board show it.
func (t *tally) wire() []protocol.PlayerStats {
	out := make([]protocol.PlayerStats, len(t.names))
	for i, s := range t.stats {
		out[i] = PlayerStats(t.names[i], s)
	}
	return out
}

// nightStats is the night's numbers as the lane's last board showed them
// (on the lane's goroutine only): those of the finished games, added up
// again only when the series changes (its games never do: a game joins
// it once final), each player's of the game in play, again only when a
// ball of theirs changes, and the whole encoded once for each ball — not
// for a presence or a spectator.
type nightStats struct {
	seriesLen   int
	seriesFirst *game.Score // the first game's first line: a series trimmed past MaxSeries starts elsewhere
	seriesLast  *game.Score // and the last's
	finished    tally       // the series'
	// inFinished is where each name of the game in play is in finished:
	// an index, or -1. Asked on every ball, and [bowling.Name.Same] of two
	// names that differ folds and skeletons both (allocating): the answer
	// holds until finished changes.
	inFinished map[bowling.Name]int

	playing []playerStats // each player's of the game in play, in seat order
	changed bool          // since encoded
	tally   tally         // finished and playing
	encoded []byte        // tally, as a board's "stats"; nil if nobody bowled
	buf     []byte        // what encoded is made in, ball after ball
	quoted  map[bowling.Name][]byte
}

// playerStats is a player's figures of the game in play, and the game
// they were added up from.
type playerStats struct {
	name  bowling.Name
	game  bowling.Game
	stats bowling.Stats
}

// of returns the night's numbers of series and the game in play, and
// them encoded as a board's "stats" (nil when nobody has bowled). The
// tally returned is never changed after; the bytes are the caller's
// until the next call.
func (n *nightStats) of(series []game.Result, players []bowling.Player) (tally, []byte) {
	first, last := firstScore(series, 0), firstScore(series, len(series)-1)
	switch {
	case len(series) == n.seriesLen && first == n.seriesFirst && last == n.seriesLast:
	case len(series) == n.seriesLen+1 && first == n.seriesFirst && firstScore(series, n.seriesLen-1) == n.seriesLast:
		n.finished.addSeries(series[n.seriesLen:]) // a game joined the series
		n.seriesLen, n.seriesLast = len(series), last
		n.changed = true
		clear(n.inFinished)
	default:
		n.seriesLen, n.seriesFirst, n.seriesLast = len(series), first, last
		n.finished = tally{}
		n.finished.addSeries(series)
		n.changed = true
		clear(n.inFinished)
	}
	if len(n.playing) != len(players) {
		n.playing = make([]playerStats, len(players))
		n.changed = true
	}
	for i, p := range players {
		if ps := &n.playing[i]; ps.name != p.Name || ps.game != p.Game {
			*ps = playerStats{name: p.Name, game: p.Game}
			ps.stats.Add(&p.Game)
			n.changed = true
		}
	}
	if !n.changed {
		return n.tally, n.encoded
	}
	n.changed = false
	room := len(n.finished.names) + len(n.playing) // for a first game's bowlers
	t := tally{
		names: append(make([]bowling.Name, 0, room), n.finished.names...),
		stats: append(make([]bowling.Stats, 0, room), n.finished.stats...),
	}
	for _, ps := range n.playing {
		if ps.game.NumRolls() == 0 {
			continue
		}
		i, ok := n.inFinished[ps.name]
		if !ok {
			i = n.finished.index(ps.name)
			if n.inFinished == nil || len(n.inFinished) > 64 {
				n.inFinished = make(map[bowling.Name]int) // a long night's seats may start again
			}
			n.inFinished[ps.name] = i
		}
		if i < 0 {
			// Not of the series: the game's players are never the Same
			// as each other (a match seats no name it has), so it is new.
			i = t.push(ps.name)
		}
		t.stats[i] = plus(t.stats[i], ps.stats)
	}
	n.tally, n.encoded = t, nil
	if len(t.names) > 0 {
		// Into the last ball's bytes: a board copies them, and nothing
		// else holds them.
		n.buf = n.appendStats(n.buf[:0], t)
		n.encoded = n.buf
	}
	return n.tally, n.encoded
}

// plus returns the figures of a and b together.
func plus(a, b bowling.Stats) bowling.Stats {
	return bowling.Stats{
		Games: a.Games + b.Games, Pins: a.Pins + b.Pins, High: max(a.High, b.High), CleanGames: a.CleanGames + b.CleanGames,
		Strikes: a.Strikes + b.Strikes, StrikeChances: a.StrikeChances + b.StrikeChances,
		Spares: a.Spares + b.Spares, SpareChances: a.SpareChances + b.SpareChances, Opens: a.Opens + b.Opens,
		FirstBallPins: a.FirstBallPins + b.FirstBallPins, Splits: a.Splits + b.Splits, SplitsMade: a.SplitsMade + b.SplitsMade,
		SinglePins: a.SinglePins + b.SinglePins, SinglePinsMade: a.SinglePinsMade + b.SinglePinsMade, Fouls: a.Fouls + b.Fouls,
	}
}

// appendStats appends t as a JSON array of [protocol.PlayerStats], as
// encoding/json writes [PlayerStats] (TestBoardJSON checks): a board
// carries them after every ball, and through reflection they took longer
// than the rest of the board.
func (n *nightStats) appendStats(b []byte, t tally) []byte {
	b = append(b, '[')
	for i, s := range t.stats {
		if i > 0 {
			b = append(b, ',')
		}
		q, ok := n.quoted[t.names[i]]
		if !ok {
			if n.quoted == nil || len(n.quoted) > 64 {
				n.quoted = make(map[bowling.Name][]byte) // the night's bowlers; a long night's may start again
			}
			q = quote(string(t.names[i]))
			n.quoted[t.names[i]] = q
		}
		b = append(b, `{"name":`...)
		b = append(b, q...)
		b = appendInt(b, `,"games":`, s.Games)
		b = appendInt(b, `,"pins":`, s.Pins)
		b = appendRatio(b, `,"average":`, s.Pins, s.Games)
		b = appendInt(b, `,"high":`, s.High)
		b = appendInt(b, `,"strikes":`, s.Strikes)
		b = appendInt(b, `,"strike_chances":`, s.StrikeChances)
		b = appendInt(b, `,"spares":`, s.Spares)
		b = appendInt(b, `,"spare_chances":`, s.SpareChances)
		b = appendInt(b, `,"opens":`, s.Opens)
		b = appendRatio(b, `,"first_ball_avg":`, s.FirstBallPins, s.StrikeChances)
		b = appendInt(b, `,"splits":`, s.Splits)
		b = appendInt(b, `,"splits_made":`, s.SplitsMade)
		b = appendInt(b, `,"single_pins":`, s.SinglePins)
		b = appendInt(b, `,"single_pins_made":`, s.SinglePinsMade)
		b = appendInt(b, `,"fouls":`, s.Fouls)
		b = appendInt(b, `,"clean_games":`, s.CleanGames)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendInt(b []byte, key string, n int) []byte {
	return strconv.AppendInt(append(b, key...), int64(n), 10)
}

// appendRatio appends n/d as [rounded] makes it and encoding/json writes
// it (under 1e21: no exponent), or null for a d of 0.
func appendRatio(b []byte, key string, n, d int) []byte {
	b = append(b, key...)
	if d == 0 {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, math.Round(float64(n)/float64(d)*100)/100, 'f', -1, 64)
}

// firstScore returns the first line of game i of series, or nil.
func firstScore(series []game.Result, i int) *game.Score {
	if i < 0 || i >= len(series) || len(series[i].Players) == 0 {
		return nil
	}
	return &series[i].Players[0]
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
