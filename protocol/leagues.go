package protocol

import "time"

// CreateLeague is POST /api/leagues: a league's settings. Teams bowl in
// pairs, so their number is even (2 to 32); each has 1 to 6 bowlers, each
// name once in the league. Handicap omitted, or its percent 0, is a
// scratch league. A bowler's average is the entering (book) average,
// omitted for none. Weeks omitted is one round robin.
type CreateLeague struct {
	Name          string          `json:"name"`
	GamesPerNight int             `json:"games_per_night"`
	Handicap      *LeagueHandicap `json:"handicap,omitempty"`
	Points        LeaguePoints    `json:"points"`
	AbsentMinus   int             `json:"absent_minus"`
	VacancyScore  int             `json:"vacancy_score"`
	Teams         []LeagueTeam    `json:"teams"`
	Weeks         int             `json:"weeks,omitempty"`
}

// LeagueHandicap is a league's handicap: percent per cent of the pins an
// average falls short of basis, fractions dropped, never below 0.
type LeagueHandicap struct {
	Basis   int `json:"basis"`
	Percent int `json:"percent"`
}

// LeaguePoints are what a match awards: per_game to the higher total of
// each game (scratch plus handicap, every place), per_series to the
// higher total of the night; a tie splits them.
type LeaguePoints struct {
	PerGame   int `json:"per_game"`
	PerSeries int `json:"per_series"`
}

// LeagueTeam is a team and its roster, in the order its places bowl.
type LeagueTeam struct {
	Name    string         `json:"name"`
	Bowlers []LeagueBowler `json:"bowlers"`
}

// LeagueBowler is a bowler on a roster: the name they bowl under, and
// their entering average (omitted for none).
type LeagueBowler struct {
	Name    string `json:"name"`
	Average int    `json:"average,omitempty"`
}

// CreatedLeague answers POST /api/leagues: the league's id and its
// secretary's key. The key is in this body only (the server keeps its
// hash): the secretary sends it as "Authorization: Secretary <key>" to
// open and close nights and correct scores.
type CreatedLeague struct {
	ID           string `json:"id"`
	SecretaryKey string `json:"secretary_key"`
}

// League is GET /api/leagues/{id}: the settings, the teams and the
// season's schedule, and where the season stands.
type League struct {
	ID            string         `json:"id"`
	Name          string         `json:"name"`
	GamesPerNight int            `json:"games_per_night"`
	Handicap      LeagueHandicap `json:"handicap"`
	Points        LeaguePoints   `json:"points"`
	AbsentMinus   int            `json:"absent_minus"`
	VacancyScore  int            `json:"vacancy_score"`
	Teams         []LeagueTeam   `json:"teams"`
	Schedule      []LeagueWeek   `json:"schedule"`
	// Week is the night in play: the week open, or else the next to open
	// (one past the season once it is over); Open says whether it is open.
	Week int  `json:"week"`
	Open bool `json:"open"`
}

// LeagueWeek is a week of a league's schedule.
type LeagueWeek struct {
	Week    int           `json:"week"`
	Matches []LeagueMatch `json:"matches"`
}

// LeagueMatch is a match of a week: two teams by name, and once the night
// is open, the lane they bowl on.
type LeagueMatch struct {
	Home string `json:"home"`
	Away string `json:"away"`
	Lane string `json:"lane,omitempty"`
	// HomeInvite and AwayInvite are each team's invitation to the lane:
	// a join with a team's seats only that team's places. They are the
	// secretary's alone (OpenedWeek), never in a league's public answer.
	HomeInvite string `json:"home_invite,omitempty"`
	AwayInvite string `json:"away_invite,omitempty"`
}

// OpenWeek is POST /api/leagues/{id}/weeks/{n}/open (the secretary's):
// the bowlers absent that night, and who substitutes for whom.
type OpenWeek struct {
	Absent      []string           `json:"absent,omitempty"`
	Substitutes []LeagueSubstitute `json:"substitutes,omitempty"`
}

// LeagueSubstitute is a substitute for an absent bowler: their name, and
// their average for their handicap (omitted for none).
type LeagueSubstitute struct {
	For     string `json:"for"`
	Name    string `json:"name"`
	Average int    `json:"average,omitempty"`
}

// OpenedWeek answers the opening of a night, and GET
// /api/leagues/{id}/weeks/{n}/invites (the secretary's): each match with
// its lane and its teams' invitations.
type OpenedWeek struct {
	Week    int           `json:"week"`
	Matches []LeagueMatch `json:"matches"`
}

// LeagueStandings is GET /api/leagues/{id}/standings. Week is the last
// night closed (0 before the first); a night in play counts as far as it
// has been bowled. A bowler's handicap is the next night's.
type LeagueStandings struct {
	Week    int                    `json:"week"`
	Teams   []LeagueTeamStanding   `json:"teams"`
	Bowlers []LeagueBowlerStanding `json:"bowlers"`
}

// LeagueTeamStanding is a team's line of the standings, in rank order:
// points won, then pins with handicap, then scratch pins. Points are
// whole or half (a tie splits them). High game and series include
// handicap.
type LeagueTeamStanding struct {
	Name         string  `json:"name"`
	PointsWon    float64 `json:"points_won"`
	PointsLost   float64 `json:"points_lost"`
	PinsScratch  int     `json:"pins_scratch"`
	PinsHandicap int     `json:"pins_handicap"`
	HighGame     int     `json:"high_game"`
	HighSeries   int     `json:"high_series"`
}

// LeagueBowlerStanding is a bowler's line: their own games only (never an
// absent score), their league average (or entering average before their
// first night) and next night's handicap; highs are scratch.
type LeagueBowlerStanding struct {
	Name       string `json:"name"`
	Team       string `json:"team"`
	Games      int    `json:"games"`
	Pins       int    `json:"pins"`
	Average    int    `json:"average"`
	Handicap   int    `json:"handicap"`
	HighGame   int    `json:"high_game"`
	HighSeries int    `json:"high_series"`
}

// LeagueScore is POST /api/leagues/{id}/scores (the secretary's): a
// game's scratch score, entered or corrected, on the night in play or on
// a closed one. The league's history keeps who changed what, and when.
type LeagueScore struct {
	Week   int    `json:"week"`
	Bowler string `json:"bowler"`
	Game   int    `json:"game"`
	Score  int    `json:"score"`
}

// LeagueBall is POST /api/leagues/{id}/balls (the secretary's): a ball of
// a game already scored, on the night in play or a closed one, corrected
// to the pins it knocked down — which ball, frame 1 to 10 and ball 1 to 3
// within it. The game is counted again from its balls, as the night's
// lane kept them, with the league's earlier corrections of them made
// again first; its score is what they add up to.
type LeagueBall struct {
	Week   int    `json:"week"`
	Bowler string `json:"bowler"`
	Game   int    `json:"game"`
	Frame  int    `json:"frame"`
	Ball   int    `json:"ball"`
	Pins   int    `json:"pins"`
}

// LeagueLaneBall is POST /api/leagues/{id}/weeks/{n}/matches/{m}/roll
// and …/correct (the secretary's): a ball of the game in play on the
// night's lane of match m, entered or corrected as a lane's roll or
// correct message gives it — whose ball (name, any place's), which
// (frame and ball), and the pins, the deck it left, or a foul.
type LeagueLaneBall struct {
	Name  string `json:"name"`
	Frame int    `json:"frame"`
	Ball  int    `json:"ball"`
	Pins  *int   `json:"pins,omitempty"`
	Deck  *[]int `json:"deck,omitempty"`
	Foul  bool   `json:"foul,omitempty"`
}

// LeaguePlace is POST /api/leagues/{id}/weeks/{n}/matches/{m}/remove
// (the secretary's): the place whose phone gives it back.
type LeaguePlace struct {
	Name string `json:"name"`
}

// LeagueHistory is GET /api/leagues/{id}/history: the league's changes,
// oldest first, a page at a time. Next is the after of the following
// page, omitted on the last.
type LeagueHistory struct {
	Records []LeagueRecord `json:"records"`
	Next    string         `json:"next,omitempty"`
}

// LeagueRecord is one change of a league: its number in the history
// (from 1), when it was made and by whom ("secretary", or "lane {id}" for
// a score a lane's game sent), and what: a night opened (with its absent
// bowlers, their substitutes and the lanes of its matches, in the order
// of the week's schedule), a game scored, a score corrected (was: the
// score before; and if a ball was corrected, which ball, and its pins
// before and after), a night closed. Only the fields of its kind are set.
type LeagueRecord struct {
	N           int                `json:"n"`
	At          time.Time          `json:"at"`
	By          string             `json:"by"`
	Kind        string             `json:"kind"` // opened, scored, corrected or closed
	Week        int                `json:"week"`
	Absent      []string           `json:"absent,omitempty"`
	Substitutes []LeagueSubstitute `json:"substitutes,omitempty"`
	Lanes       []string           `json:"lanes,omitempty"`
	Bowler      string             `json:"bowler,omitempty"`
	Game        int                `json:"game,omitempty"`
	Score       *int               `json:"score,omitempty"`
	Was         *int               `json:"was,omitempty"`
	Frame       int                `json:"frame,omitempty"`    // a ball's correction: frame 1–10
	Ball        int                `json:"ball,omitempty"`     // and ball 1–3 within it
	PinsWas     *int               `json:"pins_was,omitempty"` // its pins before
	Pins        *int               `json:"pins,omitempty"`     // and after
}
