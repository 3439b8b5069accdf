package game

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tenpin/tenpin/lane/bowling"
)

// Version is the version of the encoding [Marshal] writes. [Unmarshal]
// reads every version up to it and refuses later ones.
const Version = 1

// ErrEncoding is wrapped by the errors of [Unmarshal].
var ErrEncoding = errors.New("game: cannot decode event")

// record is an event as it is stored. Field names are part of the stored
// format: add fields, never rename them.
type record struct {
	V         int        `json:"v"`
	Kind      Kind       `json:"kind"`
	Lane      string     `json:"lane,omitempty"`
	Name      string     `json:"name,omitempty"`
	Max       int        `json:"max_players,omitempty"`
	Private   bool       `json:"private,omitempty"`
	HostKey   string     `json:"host_key_sha256,omitempty"`
	Invite    string     `json:"invite_sha256,omitempty"`
	Player    string     `json:"player,omitempty"`
	Token     string     `json:"token_sha256,omitempty"`
	Host      bool       `json:"host,omitempty"`
	Bowler    string     `json:"bowler,omitempty"`
	NewBowler string     `json:"new_bowler_key_sha256,omitempty"`
	Frame     int        `json:"frame,omitempty"`
	Ball      int        `json:"ball,omitempty"`
	Pins      *int       `json:"pins,omitempty"`
	Standing  *[]int     `json:"standing,omitempty"` // the pins standing after the ball, when the ball named them
	Foul      bool       `json:"foul,omitempty"`
	By        string     `json:"by,omitempty"`
	Secretary bool       `json:"secretary,omitempty"` // the league's secretary did it (Rolled, Corrected, PlayerAway, SeatClaimed)
	Was       *int       `json:"was,omitempty"`
	At        string     `json:"at,omitempty"` // RFC 3339, UTC
	Epoch     uint64     `json:"epoch,omitempty"`
	Node      string     `json:"node,omitempty"`
	Reason    string     `json:"reason,omitempty"`
	Snapshot  *laneState `json:"snapshot,omitempty"`
	League    *leagueRec `json:"league,omitempty"`
}

// leagueRec is a LeagueLane as it is stored.
type leagueRec struct {
	League string        `json:"league"`
	Week   int           `json:"week"`
	Match  int           `json:"match"`
	Games  int           `json:"games"`
	Teams  [2]string     `json:"teams"`
	Places []leaguePlace `json:"places"`
	// Invites are the SHA-256 of the teams' invitations in hex, home
	// first; omitted for a lane of a version before them.
	Invites *[2]string `json:"invites_sha256,omitempty"`
}

type leaguePlace struct {
	Name string `json:"name"`
	Team int    `json:"team"`
}

func toLeagueRec(l *LeagueLane) *leagueRec {
	if l == nil {
		return nil
	}
	r := &leagueRec{League: l.League, Week: l.Week, Match: l.Match, Games: l.Games, Teams: l.Teams, Places: make([]leaguePlace, len(l.Places))}
	for i, p := range l.Places {
		r.Places[i] = leaguePlace{Name: string(p.Name), Team: p.Team}
	}
	if l.Invites != [2]TokenHash{} {
		r.Invites = &[2]string{hostKeyText(l.Invites[0]), hostKeyText(l.Invites[1])}
	}
	return r
}

// Check refuses a league lane that a lane could not open as it says,
// nor read back once stored: its league, week, games and places missing,
// a place's name not a lane's name as [bowling.ParseLaneName] writes it,
// a team but 0 or 1, or two places of one name ([bowling.Name.Same]),
// whose second would have no seat.
func (l *LeagueLane) Check() error {
	if _, err := fromLeagueRec(toLeagueRec(l)); err != nil {
		return fmt.Errorf("game: a league lane: %w", err)
	}
	for i, p := range l.Places {
		if n, _ := bowling.ParseLaneName(string(p.Name)); n != p.Name {
			return fmt.Errorf("game: a league lane: place %d: %q is not a name as a lane writes it (%q)", i, p.Name, n)
		}
		if j := slices.IndexFunc(l.Places[:i], func(q LeaguePlace) bool { return q.Name.Same(p.Name) }); j >= 0 {
			return fmt.Errorf("game: a league lane: place %d: %s is the name of place %d already", i, p.Name, j)
		}
	}
	return nil
}

func fromLeagueRec(r *leagueRec) (*LeagueLane, error) {
	if r == nil {
		return nil, nil
	}
	if r.League == "" || r.Week < 1 || r.Games < 1 || len(r.Places) == 0 {
		return nil, errors.New(`"league" needs its league, a week and games from 1, and places`)
	}
	l := &LeagueLane{League: r.League, Week: r.Week, Match: r.Match, Games: r.Games, Teams: r.Teams, Places: make([]LeaguePlace, len(r.Places))}
	for i, p := range r.Places {
		n, err := bowling.ParseLaneName(p.Name)
		if err != nil {
			return nil, fmt.Errorf(`"league" place %d: %w`, i, err)
		}
		if p.Team != 0 && p.Team != 1 {
			return nil, fmt.Errorf(`"league" place %d: team %d, not 0 or 1`, i, p.Team)
		}
		l.Places[i] = LeaguePlace{Name: n, Team: p.Team}
	}
	if r.Invites != nil {
		for t, text := range r.Invites {
			var err error
			if l.Invites[t], err = parseHostKey(text); err != nil {
				return nil, fmt.Errorf(`"league" team %d's invitation: %w`, t, err)
			}
		}
	}
	return l, nil
}

type laneState struct {
	Lane     string      `json:"lane"`
	Name     string      `json:"name"`
	Max      int         `json:"max_players"`
	Private  bool        `json:"private,omitempty"`
	Epoch    uint64      `json:"epoch"`
	Series   []resultRec `json:"series"`
	Game     []record    `json:"game"`
	Removed  []string    `json:"removed,omitempty"` // players the host removed and has not readmitted
	HostKey  string      `json:"host_key_sha256,omitempty"`
	HostSeat string      `json:"host_seat_sha256,omitempty"` // the token hash of the seat taken with the host key
	Invite   string      `json:"invite_sha256,omitempty"`    // the invitation a join must carry; "" for an open lane
	Played   int         `json:"played,omitempty"`           // games finished, those the series no longer keeps included
	League   *leagueRec  `json:"league,omitempty"`           // the league match the lane is for
}

type resultRec struct {
	Players     []scoreRec `json:"players"`
	Corrections []record   `json:"corrections,omitempty"`
}

type scoreRec struct {
	Name     string   `json:"name"`
	Rolls    []int    `json:"rolls"`
	Standing []*[]int `json:"standing,omitempty"` // per roll, the pins it left standing or null; absent if no roll named them
	Fouls    []int    `json:"fouls,omitempty"`    // the indexes in rolls of the fouls
	Total    int      `json:"total"`
	Left     bool     `json:"left,omitempty"`
}

// toScoreRec writes a player's game of a series: its counts as version 1
// did, and its decks and fouls only where it has some.
func toScoreRec(p Score) scoreRec {
	r := scoreRec{Name: string(p.Name), Rolls: p.Game.Rolls(), Total: p.Game.Total(), Left: p.Left}
	balls := p.Game.Balls()
	for i, b := range balls {
		if b.Foul {
			r.Fouls = append(r.Fouls, i)
		}
		if b.HasDeck && r.Standing == nil {
			r.Standing = make([]*[]int, len(balls))
		}
	}
	if r.Standing != nil {
		for i, b := range balls {
			if b.HasDeck {
				pins := b.Deck.Pins()
				r.Standing[i] = &pins
			}
		}
	}
	return r
}

// fromScoreRec reads a player's game of a series back, replaying its balls
// through the rules.
func fromScoreRec(r scoreRec) (Score, error) {
	name, err := bowling.ParseLaneName(r.Name)
	if err != nil {
		return Score{}, fmt.Errorf("a series' player: %w", err)
	}
	if r.Standing != nil && len(r.Standing) != len(r.Rolls) {
		return Score{}, fmt.Errorf("%s's series game: %d rolls but %d decks", name, len(r.Rolls), len(r.Standing))
	}
	balls := make([]bowling.Ball, len(r.Rolls))
	for i, pins := range r.Rolls {
		balls[i].Pins = pins
		if r.Standing != nil && r.Standing[i] != nil {
			if balls[i].Deck, err = bowling.NewDeck(*r.Standing[i]...); err != nil {
				return Score{}, fmt.Errorf("%s's series game, roll %d: %w", name, i+1, err)
			}
			balls[i].HasDeck = true
		}
	}
	for _, i := range r.Fouls {
		if i < 0 || i >= len(balls) {
			return Score{}, fmt.Errorf("%s's series game: a foul at roll %d of %d", name, i+1, len(balls))
		}
		balls[i].Foul = true
	}
	g, err := bowling.ReplayBalls(balls)
	if err != nil {
		return Score{}, fmt.Errorf("%s's series game: %w", name, err)
	}
	return Score{Name: name, Game: g, Left: r.Left}, nil
}

// Marshal encodes an event in its stored form.
func Marshal(e Event) ([]byte, error) {
	if b, ok := appendRolled(make([]byte, 0, 96), e); ok {
		return b, nil
	}
	return marshalRecord(e)
}

func marshalRecord(e Event) ([]byte, error) {
	r, err := toRecord(e)
	if err != nil {
		return nil, err
	}
	return json.Marshal(r)
}

// appendRolled appends a Rolled event in its stored form, the bytes
// json.Marshal writes for its record, and reports true; or false, having
// appended nothing, for any other event, or a name that needs escaping.
// Every ball is stored, so its encoding is the store's most frequent
// work: through encoding/json's reflection it took 2.5% of a busy
// server's CPU, ten times this, and deepened the lane goroutine's stack.
func appendRolled(b []byte, e Event) ([]byte, bool) {
	if e.Kind != Rolled || !plainJSON(string(e.Player)) || !plainJSON(string(e.By)) {
		return b, false
	}
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, Version, 10)
	b = append(b, `,"kind":"rolled"`...)
	if e.Player != "" {
		b = append(b, `,"player":"`...)
		b = append(b, e.Player...)
		b = append(b, '"')
	}
	if e.Frame != 0 {
		b = append(b, `,"frame":`...)
		b = strconv.AppendInt(b, int64(e.Frame), 10)
	}
	if e.Ball != 0 {
		b = append(b, `,"ball":`...)
		b = strconv.AppendInt(b, int64(e.Ball), 10)
	}
	b = append(b, `,"pins":`...)
	b = strconv.AppendInt(b, int64(e.Pins), 10)
	if e.HasDeck {
		b = append(b, `,"standing":[`...)
		for p, first := 1, true; p <= bowling.NumPins; p++ {
			if e.Deck.Has(p) {
				if !first {
					b = append(b, ',')
				}
				b, first = strconv.AppendInt(b, int64(p), 10), false
			}
		}
		b = append(b, ']')
	}
	if e.Foul {
		b = append(b, `,"foul":true`...)
	}
	if e.By != "" {
		b = append(b, `,"by":"`...)
		b = append(b, e.By...)
		b = append(b, '"')
	}
	if e.Secretary {
		b = append(b, `,"secretary":true`...)
	}
	return append(b, '}'), true
}

// plainJSON reports whether encoding/json writes s between quotes as it
// is: valid UTF-8, with no control character, quote or backslash, none
// of the characters it escapes for HTML (<, >, &), and neither U+2028 nor
// U+2029.
func plainJSON(s string) bool {
	for _, r := range s {
		switch {
		case r < 0x20, r == '"', r == '\\', r == '<', r == '>', r == '&',
			r == '\u2028', r == '\u2029', r == utf8.RuneError:
			return false
		}
	}
	return true
}

func toRecord(e Event) (record, error) {
	r := record{V: Version, Kind: e.Kind}
	switch e.Kind {
	case Opened:
		r.Lane, r.Name, r.Max, r.Private, r.HostKey = e.Lane, e.Name, e.MaxPlayers, e.Private, hostKeyText(e.HostKey)
		r.Invite, r.League = hostKeyText(e.Invite), toLeagueRec(e.League)
	case Invited:
		if e.Invite == (TokenHash{}) {
			return r, fmt.Errorf("game: an invitation without its hash")
		}
		r.Invite, r.By = hostKeyText(e.Invite), string(e.By)
	case SeatClaimed:
		r.Player, r.Token, r.Bowler, r.Secretary = string(e.Player), hostKeyText(e.Token), e.Bowler, e.Secretary
		r.NewBowler = hostKeyText(e.NewBowler)
	case Claimed:
		r.Epoch, r.Node = e.Epoch, e.Node
	case SeatTaken:
		r.Player, r.Token, r.Host, r.Bowler = string(e.Player), hex.EncodeToString(e.Token[:]), e.Host, e.Bowler
		r.NewBowler = hostKeyText(e.NewBowler)
	case GameStarted, NewGame, NextGame, Given:
	case Rolled:
		pins := e.Pins
		r.Player, r.Frame, r.Ball, r.Pins, r.By, r.Secretary = string(e.Player), e.Frame, e.Ball, &pins, string(e.By), e.Secretary
		r.Standing, r.Foul = standing(e), e.Foul
	case Corrected:
		pins, was := e.Pins, e.Was
		r.Player, r.Frame, r.Ball, r.Pins, r.Was, r.By, r.Secretary = string(e.Player), e.Frame, e.Ball, &pins, &was, string(e.By), e.Secretary
		r.Standing, r.Foul = standing(e), e.Foul
		r.At = e.At.UTC().Format(time.RFC3339)
	case PlayerLeft, PlayerAway, PlayerBack, Readmitted, SeatFreed:
		r.Player, r.By = string(e.Player), string(e.By)
		r.Secretary = e.Kind == PlayerAway && e.Secretary
	case Closed:
		r.Reason = e.Reason
	case Snapshot:
		if e.Snapshot == nil {
			return r, fmt.Errorf("game: a snapshot event without its lane")
		}
		l := e.Snapshot
		ls := &laneState{Lane: l.ID, Name: l.Name, Max: l.MaxPlayers, Private: l.Private, Epoch: l.Epoch,
			Series: make([]resultRec, len(l.Series)), Game: make([]record, len(l.Game)), HostKey: hostKeyText(l.HostKey), HostSeat: hostKeyText(l.HostSeat), Invite: hostKeyText(l.Invite), Played: l.Played, League: toLeagueRec(l.League)}
		for i, res := range l.Series {
			rr := resultRec{Players: make([]scoreRec, len(res.Players))}
			for j, p := range res.Players {
				rr.Players[j] = toScoreRec(p)
			}
			for _, c := range res.Corrections {
				if c.Kind != Corrected {
					return r, fmt.Errorf("game: a %s event among a game's corrections", c.Kind)
				}
				cr, err := toRecord(c)
				if err != nil {
					return r, err
				}
				rr.Corrections = append(rr.Corrections, cr)
			}
			ls.Series[i] = rr
		}
		for i, g := range l.Game {
			if g.Kind == Snapshot {
				return r, fmt.Errorf("game: a snapshot inside a snapshot")
			}
			gr, err := toRecord(g)
			if err != nil {
				return r, err
			}
			ls.Game[i] = gr
		}
		for _, n := range l.Removed {
			ls.Removed = append(ls.Removed, string(n))
		}
		r.Snapshot = ls
	default:
		return r, fmt.Errorf("game: unknown event kind %q", e.Kind)
	}
	return r, nil
}

// Unmarshal decodes a stored event. It refuses, with an error wrapping
// [ErrEncoding] that says why, anything that is not one JSON object of a
// known version and kind with the fields that kind needs.
func Unmarshal(data []byte) (Event, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r record
	if err := dec.Decode(&r); err != nil {
		return Event{}, fmt.Errorf("%w: %v", ErrEncoding, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Event{}, fmt.Errorf("%w: data after the event", ErrEncoding)
	}
	e, err := fromRecord(r)
	if err != nil {
		return Event{}, fmt.Errorf("%w: %s event: %v", ErrEncoding, r.Kind, err)
	}
	return e, nil
}

func fromRecord(r record) (Event, error) {
	if r.V < 1 || r.V > Version {
		return Event{}, fmt.Errorf("version %d, this server reads versions 1 to %d", r.V, Version)
	}
	e := Event{Kind: r.Kind}
	var err error
	switch r.Kind {
	case Opened:
		if r.Lane == "" {
			return e, errors.New(`no "lane"`)
		}
		e.Lane, e.Name, e.MaxPlayers, e.Private = r.Lane, r.Name, r.Max, r.Private
		if e.HostKey, err = parseHostKey(r.HostKey); err != nil {
			return e, err
		}
		if e.Invite, err = parseHostKey(r.Invite); err != nil {
			return e, err
		}
		if e.League, err = fromLeagueRec(r.League); err != nil {
			return e, err
		}
	case Invited:
		if e.Invite, err = parseHostKey(r.Invite); err != nil || e.Invite == (TokenHash{}) {
			return e, errors.New(`needs "invite_sha256", a SHA-256 in hex`)
		}
		if e.By, err = parseBy(r.By); err != nil {
			return e, err
		}
	case SeatClaimed:
		if e.Player, err = bowling.ParseLaneName(r.Player); err != nil {
			return e, err
		}
		if e.Token, err = parseHostKey(r.Token); err != nil {
			return e, err
		}
		e.Bowler, e.Secretary = r.Bowler, r.Secretary
		if e.NewBowler, err = parseHostKey(r.NewBowler); err != nil {
			return e, err
		}
	case Claimed:
		if r.Epoch == 0 {
			return e, errors.New(`no "epoch"`)
		}
		e.Epoch, e.Node = r.Epoch, r.Node
	case SeatTaken:
		if e.Player, err = bowling.ParseLaneName(r.Player); err != nil {
			return e, err
		}
		b, err := hex.DecodeString(r.Token)
		if err != nil || len(b) != len(e.Token) {
			return e, errors.New(`"token_sha256" is not a SHA-256 in hex`)
		}
		copy(e.Token[:], b)
		e.Host, e.Bowler = r.Host, r.Bowler
		if e.NewBowler, err = parseHostKey(r.NewBowler); err != nil {
			return e, err
		}
	case GameStarted, NewGame, NextGame, Given:
	case Rolled, Corrected:
		if e.Player, err = bowling.ParseLaneName(r.Player); err != nil {
			return e, err
		}
		if r.Pins == nil || r.Frame < 1 || r.Frame > bowling.NumFrames || r.Ball < 1 || r.Ball > 3 {
			return e, errors.New(`needs "pins", "frame" 1 to 10 and "ball" 1 to 3`)
		}
		e.Frame, e.Ball, e.Pins, e.Foul = r.Frame, r.Ball, *r.Pins, r.Foul
		if r.Standing != nil {
			if e.Deck, err = bowling.NewDeck(*r.Standing...); err != nil {
				return e, fmt.Errorf(`"standing": %w`, err)
			}
			e.HasDeck = true
		}
		if e.By, err = parseBy(r.By); err != nil {
			return e, err
		}
		e.Secretary = r.Secretary
		if r.Kind == Corrected {
			if r.Was == nil {
				return e, errors.New(`needs "was"`)
			}
			if e.At, err = time.Parse(time.RFC3339, r.At); err != nil {
				return e, errors.New(`needs "at", a time in RFC 3339`)
			}
			e.Was, e.At = *r.Was, e.At.UTC()
		}
	case PlayerLeft, PlayerAway, PlayerBack, Readmitted, SeatFreed:
		if e.Player, err = bowling.ParseLaneName(r.Player); err != nil {
			return e, err
		}
		if e.By, err = parseBy(r.By); err != nil {
			return e, err
		}
		e.Secretary = r.Kind == PlayerAway && r.Secretary
	case Closed:
		e.Reason = r.Reason
	case Snapshot:
		if r.Snapshot == nil {
			return e, errors.New(`no "snapshot"`)
		}
		ls := r.Snapshot
		l := &LaneSnapshot{ID: ls.Lane, Name: ls.Name, MaxPlayers: ls.Max, Private: ls.Private, Epoch: ls.Epoch,
			Series: make([]Result, len(ls.Series)), Game: make([]Event, len(ls.Game)), Played: ls.Played}
		if l.HostKey, err = parseHostKey(ls.HostKey); err != nil {
			return e, err
		}
		if l.HostSeat, err = parseHostKey(ls.HostSeat); err != nil {
			return e, err
		}
		if l.Invite, err = parseHostKey(ls.Invite); err != nil {
			return e, err
		}
		if l.League, err = fromLeagueRec(ls.League); err != nil {
			return e, err
		}
		for i, rr := range ls.Series {
			res := Result{Players: make([]Score, len(rr.Players))}
			for j, p := range rr.Players {
				if res.Players[j], err = fromScoreRec(p); err != nil {
					return e, err
				}
			}
			for _, cr := range rr.Corrections {
				if cr.Kind != Corrected {
					return e, fmt.Errorf("a %s event among a game's corrections", cr.Kind)
				}
				c, err := fromRecord(cr)
				if err != nil {
					return e, err
				}
				res.Corrections = append(res.Corrections, c)
			}
			l.Series[i] = res
		}
		for i, gr := range ls.Game {
			if gr.Kind == Snapshot {
				return e, errors.New("a snapshot inside a snapshot")
			}
			if l.Game[i], err = fromRecord(gr); err != nil {
				return e, err
			}
		}
		for _, name := range ls.Removed {
			n, err := bowling.ParseLaneName(name)
			if err != nil {
				return e, fmt.Errorf("a removed player: %w", err)
			}
			l.Removed = append(l.Removed, n)
		}
		e.Snapshot = l
	case "":
		return e, errors.New(`no "kind"`)
	default:
		return e, fmt.Errorf("unknown kind %q", r.Kind)
	}
	return e, nil
}

// standing returns the "standing" of an event's ball: the pins of its
// deck, or nil if it has none.
func standing(e Event) *[]int {
	if !e.HasDeck {
		return nil
	}
	pins := e.Deck.Pins()
	return &pins
}

// parseBy reads the optional "by" of an event.
// hostKeyText is a hash of a host key or of the host's seat token as
// stored: hex, or "" for none.
func hostKeyText(h TokenHash) string {
	if h == (TokenHash{}) {
		return ""
	}
	return hex.EncodeToString(h[:])
}

// parseHostKey reads hostKeyText's text back.
func parseHostKey(s string) (TokenHash, error) {
	var h TokenHash
	if s == "" {
		return h, nil
	}
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(h) {
		return h, errors.New(`a hash ("host_key_sha256", "host_seat_sha256", "invite_sha256", "new_bowler_key_sha256") is not a SHA-256 in hex`)
	}
	copy(h[:], b)
	return h, nil
}

func parseBy(by string) (bowling.Name, error) {
	if by == "" {
		return "", nil
	}
	n, err := bowling.ParseLaneName(by)
	if err != nil {
		return "", fmt.Errorf(`"by": %w`, err)
	}
	return n, nil
}
