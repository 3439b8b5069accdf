package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/tenpin/tenpin/protocol"
)

// JoinRemember is Join asking to be remembered: the seat is linked to a
// new bowler, whose key the welcome carries (BowlerKey), and every game
// the seat bowls to the end goes into that bowler's history. invite is
// the lane's invitation, "" for an open lane (see JoinInvited).
func (c *Conn) JoinRemember(ctx context.Context, name, invite string) (*protocol.Welcome, error) {
	return welcome(c.Do(ctx, protocol.Request{Type: protocol.TypeJoin, Name: name, Remember: true, Invite: invite}))
}

// myPage is how many games a page of MyGames asks for: the most the API
// gives.
const myPage = 100

// Me returns the numbers of the bowler whose key is key (GET
// /api/bowlers/me).
func (c *Client) Me(ctx context.Context, key string) (*protocol.Bowler, error) {
	b := new(protocol.Bowler)
	if _, err := c.send(ctx, http.MethodGet, "/api/bowlers/me", "Bowler "+key, nil, b, http.StatusOK); err != nil {
		return nil, err
	}
	return b, nil
}

// MyGames returns the whole history of the bowler whose key is key,
// newest first, a page at a time (GET /api/bowlers/me/games).
func (c *Client) MyGames(ctx context.Context, key string) ([]protocol.BowlerGame, error) {
	var out []protocol.BowlerGame
	path := "/api/bowlers/me/games?limit=" + strconv.Itoa(myPage)
	for {
		var page protocol.BowlerGames
		if _, err := c.send(ctx, http.MethodGet, path, "Bowler "+key, nil, &page, http.StatusOK); err != nil {
			return nil, err
		}
		out = append(out, page.Games...)
		if page.Next == "" {
			return out, nil
		}
		path = "/api/bowlers/me/games?limit=" + strconv.Itoa(myPage) + "&before=" + url.QueryEscape(page.Next)
	}
}
