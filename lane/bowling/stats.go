package bowling

// Stats are a bowler's numbers over the games of a night, as the score
// keepers bowlers use count them. [Stats.Add] adds a game, finished or in
// play.
//
// The figures count racks: a rack is set fresh for a frame's first ball
// and again in the tenth after a strike or a spare there; it is struck on
// its first ball or left for a second.
//
//   - Games, Pins, High and CleanGames count finished games only, so an
//     average is never of half a game: Pins is the sum of their totals,
//     High the best of them, and a clean game is one without an open
//     frame.
//   - A strike chance is the first ball of a fresh rack (twelve in a
//     perfect game); FirstBallPins sums the pins of those balls, a foul
//     counting 0.
//   - A spare chance is a rack not struck on its first ball, once its
//     second ball is bowled; the rack is spared if the two balls took all
//     ten (a foul then ten is a spare).
//   - An open frame is a finished frame whose first rack was neither
//     struck nor spared.
//   - A split or a single-pin leave is a first ball that left one (see
//     [Deck.Split]; a single pin is a rack left with one pin standing),
//     counted only when that ball's deck is known; it is made when the next
//     ball clears the rack.
//   - A foul is any ball marked F.
type Stats struct {
	Games      int // finished games
	Pins       int // the sum of the finished games' totals
	High       int // the best finished game
	CleanGames int // finished games without an open frame

	Strikes        int
	StrikeChances  int
	Spares         int
	SpareChances   int
	Opens          int
	FirstBallPins  int // the pins of every strike chance's ball
	Splits         int
	SplitsMade     int
	SinglePins     int
	SinglePinsMade int
	Fouls          int
}

// Add adds a game to the figures: its balls whatever its state, and the
// game itself to Games, Pins, High and CleanGames once it is over.
func (s *Stats) Add(g *Game) {
	open := false
	var rolls [MaxRolls]int
	for _, f := range g.FramesIn(&rolls) {
		if s.addFrame(f) {
			open = true
		}
	}
	if !g.Over() {
		return
	}
	total := g.Total()
	s.Games++
	s.Pins += total
	s.High = max(s.High, total)
	if !open {
		s.CleanGames++
	}
}

// addFrame adds a frame's balls, walking its racks, and reports whether
// the frame is open.
func (s *Stats) addFrame(f Frame) (open bool) {
	fresh, first := true, 0 // whether the next ball faces a fresh rack; the pins of the rack's first ball
	var leave Deck
	known := false // the rack's first ball left leave
	marked := false
	for i, pins := range f.Rolls {
		ball := i + 1
		if f.Foul(ball) {
			s.Fouls++
		}
		if fresh {
			s.StrikeChances++
			s.FirstBallPins += pins
			if pins == NumPins {
				s.Strikes++
				marked = marked || i == 0
				continue
			}
			fresh, first = false, pins
			leave, known = f.Deck(ball)
			if known && leave.Split() {
				s.Splits++
			}
			if _, single := leave.Single(); known && single {
				s.SinglePins++
			}
			continue
		}
		s.SpareChances++
		fresh = true
		if first+pins != NumPins {
			continue
		}
		s.Spares++
		marked = marked || i == 1
		if known && leave.Split() {
			s.SplitsMade++
		}
		if _, single := leave.Single(); known && single {
			s.SinglePinsMade++
		}
	}
	if f.Complete() && !marked {
		s.Opens++
		return true
	}
	return false
}

// Average returns the mean of the finished games, and false before the
// first one is finished.
func (s Stats) Average() (float64, bool) {
	return ratio(s.Pins, s.Games)
}

// FirstBallAverage returns the mean count of the strike chances' balls,
// and false before the first.
func (s Stats) FirstBallAverage() (float64, bool) {
	return ratio(s.FirstBallPins, s.StrikeChances)
}

func ratio(n, d int) (float64, bool) {
	if d == 0 {
		return 0, false
	}
	return float64(n) / float64(d), true
}
