package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/tenpin/tenpin/protocol"
)

// The leagues' API. A secretary's requests take the key CreateLeague
// answered; it is sent as "Authorization: Secretary <key>", never in a
// URL. A refusal is an error that wraps the server's *protocol.Error.

// CreateLeague creates a league (POST /api/leagues) and returns its id
// and its secretary's key.
func (c *Client) CreateLeague(ctx context.Context, req protocol.CreateLeague) (protocol.CreatedLeague, error) {
	var out protocol.CreatedLeague
	body, err := jsonBody(req)
	if err != nil {
		return out, err
	}
	err = c.do(ctx, http.MethodPost, "/api/leagues", body, http.StatusCreated, &out)
	return out, err
}

// League returns a league's settings, teams and schedule (GET
// /api/leagues/{id}).
func (c *Client) League(ctx context.Context, id string) (*protocol.League, error) {
	out := new(protocol.League)
	if err := c.do(ctx, http.MethodGet, leaguePath(id, ""), nil, http.StatusOK, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Standings returns a league's standings (GET
// /api/leagues/{id}/standings).
func (c *Client) Standings(ctx context.Context, id string) (*protocol.LeagueStandings, error) {
	out := new(protocol.LeagueStandings)
	if err := c.do(ctx, http.MethodGet, leaguePath(id, "/standings"), nil, http.StatusOK, out); err != nil {
		return nil, err
	}
	return out, nil
}

// LeagueHistory returns a league's every record, oldest first (GET
// /api/leagues/{id}/history, following every page).
func (c *Client) LeagueHistory(ctx context.Context, id string) ([]protocol.LeagueRecord, error) {
	var all []protocol.LeagueRecord
	path := leaguePath(id, "/history")
	for {
		var page protocol.LeagueHistory
		if err := c.do(ctx, http.MethodGet, path, nil, http.StatusOK, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Records...)
		if page.Next == "" {
			return all, nil
		}
		path = leaguePath(id, "/history?after="+url.QueryEscape(page.Next))
	}
}

// OpenWeek opens week's night of the league (the secretary's) and
// returns its matches with their lanes.
func (c *Client) OpenWeek(ctx context.Context, id, key string, week int, req protocol.OpenWeek) (*protocol.OpenedWeek, error) {
	body, err := jsonBody(req)
	if err != nil {
		return nil, err
	}
	out := new(protocol.OpenedWeek)
	if _, err := c.send(ctx, http.MethodPost, leaguePath(id, fmt.Sprintf("/weeks/%d/open", week)), "Secretary "+key, body, out, http.StatusOK); err != nil {
		return nil, err
	}
	return out, nil
}

// WeekInvites returns the open week's matches with their lanes and
// their teams' invitations (the secretary's): what OpenWeek answered.
func (c *Client) WeekInvites(ctx context.Context, id, key string, week int) (*protocol.OpenedWeek, error) {
	out := new(protocol.OpenedWeek)
	if _, err := c.send(ctx, http.MethodGet, leaguePath(id, fmt.Sprintf("/weeks/%d/invites", week)), "Secretary "+key, nil, out, http.StatusOK); err != nil {
		return nil, err
	}
	return out, nil
}

// CloseWeek closes week's night of the league (the secretary's) and
// returns the record made.
func (c *Client) CloseWeek(ctx context.Context, id, key string, week int) (*protocol.LeagueRecord, error) {
	out := new(protocol.LeagueRecord)
	if _, err := c.send(ctx, http.MethodPost, leaguePath(id, fmt.Sprintf("/weeks/%d/close", week)), "Secretary "+key, nil, out, http.StatusOK); err != nil {
		return nil, err
	}
	return out, nil
}

// Score enters or corrects a game's score (the secretary's) and returns
// the record made, or nil if the game had that score already.
func (c *Client) Score(ctx context.Context, id, key string, s protocol.LeagueScore) (*protocol.LeagueRecord, error) {
	body, err := jsonBody(s)
	if err != nil {
		return nil, err
	}
	out := new(protocol.LeagueRecord)
	status, err := c.send(ctx, http.MethodPost, leaguePath(id, "/scores"), "Secretary "+key, body, out, http.StatusOK, http.StatusNoContent)
	if err != nil || status == http.StatusNoContent {
		return nil, err
	}
	return out, nil
}

// CorrectBall corrects a ball of a game already scored (the secretary's)
// and returns the record made: the game's score counted again from its
// balls.
func (c *Client) CorrectBall(ctx context.Context, id, key string, b protocol.LeagueBall) (*protocol.LeagueRecord, error) {
	body, err := jsonBody(b)
	if err != nil {
		return nil, err
	}
	out := new(protocol.LeagueRecord)
	if _, err := c.send(ctx, http.MethodPost, leaguePath(id, "/balls"), "Secretary "+key, body, out, http.StatusOK); err != nil {
		return nil, err
	}
	return out, nil
}

// LaneRoll enters a ball of any place on the night's lane of match (from
// 1) of week (the secretary's), and returns the lane's board after it.
func (c *Client) LaneRoll(ctx context.Context, id, key string, week, match int, b protocol.LeagueLaneBall) (*protocol.Board, error) {
	return c.onNightLane(ctx, id, key, week, match, "roll", b)
}

// LaneCorrect corrects a ball of any place of the game in play on the
// night's lane of a match (the secretary's).
func (c *Client) LaneCorrect(ctx context.Context, id, key string, week, match int, b protocol.LeagueLaneBall) (*protocol.Board, error) {
	return c.onNightLane(ctx, id, key, week, match, "correct", b)
}

// LaneSkip passes by the bowler up on the night's lane of a match,
// offline for the away time (the secretary's).
func (c *Client) LaneSkip(ctx context.Context, id, key string, week, match int) (*protocol.Board, error) {
	return c.onNightLane(ctx, id, key, week, match, "skip", nil)
}

// LaneRemove gives the place of name on the night's lane of a match back
// from the phone that holds it (the secretary's).
func (c *Client) LaneRemove(ctx context.Context, id, key string, week, match int, name string) (*protocol.Board, error) {
	return c.onNightLane(ctx, id, key, week, match, "remove", protocol.LeaguePlace{Name: name})
}

func (c *Client) onNightLane(ctx context.Context, id, key string, week, match int, cmd string, req any) (*protocol.Board, error) {
	var body io.Reader
	if req != nil {
		var err error
		if body, err = jsonBody(req); err != nil {
			return nil, err
		}
	}
	out := new(protocol.Board)
	if _, err := c.send(ctx, http.MethodPost, leaguePath(id, fmt.Sprintf("/weeks/%d/matches/%d/%s", week, match, cmd)), "Secretary "+key, body, out, http.StatusOK); err != nil {
		return nil, err
	}
	return out, nil
}

func leaguePath(id, rest string) string { return "/api/leagues/" + url.PathEscape(id) + rest }
