package protocol

import "time"

// Bowler is GET /api/bowlers/me (and GET /api/bowlers/shared/{share}): a
// bowler's numbers over every game of their history.
type Bowler struct {
	Name             string   `json:"name"` // the name of their last game
	Games            int      `json:"games"`
	Pins             int      `json:"pins"`
	Average          *int     `json:"average"` // pins ÷ games, fractions dropped; null before the first game
	HighGame         int      `json:"high_game"`
	HighSeries       int      `json:"high_series"` // the best 3 games in a row of one night; 0 before the first 3
	StrikePct        *float64 `json:"strike_pct"`  // strikes per strike chance, in percent, to one decimal; null without a chance
	SparePct         *float64 `json:"spare_pct"`
	FirstBallAverage *float64 `json:"first_ball_average"`
	CleanGames       int      `json:"clean_games"`
	Splits           Made     `json:"splits"`      // splits left, and made, as Stats counts them
	SinglePins       Made     `json:"single_pins"` // single pins left, and made
	Leaves           []Leave  `json:"leaves"`      // the 10 leaves faced most, most first
	Shared           bool     `json:"shared"`      // the bowler has a share link (GET /api/bowlers/me only)
}

// Made is how many times something was tried and made.
type Made struct {
	Made  int `json:"made"`
	Tries int `json:"tries"`
}

// Leave is a leave after a first ball: the pins standing, how often the
// bowler faced it and cleared it with the next ball.
type Leave struct {
	Pins  []int `json:"pins"`
	Tries int   `json:"tries"`
	Made  int   `json:"made"`
}

// BowlerGames is a page of a bowler's history, newest first: GET
// /api/bowlers/me/games. Next is the "before" of the following page,
// omitted on the last.
type BowlerGames struct {
	Games []BowlerGame `json:"games"`
	Next  string       `json:"next,omitempty"`
}

// BowlerGame is one game of a bowler's history.
type BowlerGame struct {
	Lane     string    `json:"lane"`      // the lane's id
	LaneName string    `json:"lane_name"` // its name
	Game     int       `json:"game"`      // the game's number in the lane's series
	At       time.Time `json:"at"`        // when it ended
	Name     string    `json:"name"`      // the name bowled under
	Score    int       `json:"score"`
	Frames   []string  `json:"frames"` // each frame's marks, as on the board
	Sheet    string    `json:"sheet"`  // the lane's page: its sheet, once the lane has closed
}

// LinkCode is POST /api/bowlers/me/codes: a one-time code that links
// another device to the bowler, until Expires; URL opens it (the code in
// its fragment, never sent to a server), QR is a PNG of URL as a data URL.
type LinkCode struct {
	Code    string    `json:"code"`
	Expires time.Time `json:"expires"`
	URL     string    `json:"url"`
	QR      string    `json:"qr"`
}

// Link is the body of POST /api/bowlers/link: the one-time code another
// device showed.
type Link struct {
	Code string `json:"code"`
}

// BowlerKey answers POST /api/bowlers/link: the new device's own key.
type BowlerKey struct {
	BowlerKey string `json:"bowler_key"`
}

// Share answers POST /api/bowlers/me/share: the read-only link to the
// bowler's page, which holds no key.
type Share struct {
	Share string `json:"share"`
	URL   string `json:"url"`
}
