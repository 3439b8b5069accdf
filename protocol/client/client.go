// Package client speaks tenpin's protocol to a server: the lobby's HTTP
// API ([Client.CreateLane], [Client.Lanes], [Client.Board]) and a lane's
// WebSocket ([Dial], [Conn]). Tests, the load tool and other programs use
// it; package protocol defines what it sends and reads.
//
// A [Conn]'s commands — [Conn.Join], [Conn.Roll], [Conn.Start] and the
// others — each send one message with an id of their own and return the
// server's answer to it: a welcome or an ack, or the refusal as a
// *[protocol.Error] (use errors.As; its Code says why). Boards, and the
// messages that answer no waiting command (notices, such as
// server_restarting; the answers to messages sent with [Conn.Send]), come
// in order from [Conn.Next].
//
// # Concurrency
//
// A Conn reads its connection on a goroutine of its own, from [Dial] or
// [NewConn] until the connection ends, so that answers reach the commands
// waiting for them whatever else the program does. Commands may be called
// from any number of goroutines at once. [Conn.Next] and [Conn.NextRaw]
// are for one goroutine at a time: they take the messages in the order the
// server sent them. A program that would rather take them as they come, on
// the reading goroutine, dials with [Client.DialFunc] (or [NewConnFunc]).
//
// Messages wait for Next in a queue of at most [MaxQueued]. When it is
// full the oldest board in it is dropped (a board is the whole lane, so
// the newest says all; the seqs show the gap), or, if it holds no board,
// the oldest message. A program that only sends commands and never calls
// Next loses nothing it asked for.
//
// Every decoding is strict, as package protocol's: a server message that
// is not exactly one the protocol defines is an error, not a guess.
package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/protocol"
)

// maxBody bounds the HTTP bodies a Client reads: a page of the lobby's
// list of 200 lanes of eight players is under 100 KiB.
const maxBody = 4 << 20

// Client is a tenpin server as its HTTP API and its lanes' WebSockets
// see it. Its zero value is not usable: set URL.
type Client struct {
	// URL is the server's base URL: http://host:port (or https, ws, wss:
	// the scheme of each request is derived from it).
	URL string
	// HTTPClient makes the requests and the WebSocket handshakes; nil
	// means http.DefaultClient.
	HTTPClient *http.Client
}

// Dial opens a WebSocket to the lane id of the server at url (as
// [Client.URL]) and returns it as a Conn.
func Dial(ctx context.Context, url, id string) (*Conn, error) {
	return (&Client{URL: url}).Dial(ctx, id)
}

// Dial opens a WebSocket to the lane id and returns it as a Conn, reading.
// A refusal of the handshake (the lane does not exist, the server is
// full) is an error that wraps the server's *protocol.Error.
func (c *Client) Dial(ctx context.Context, id string) (*Conn, error) {
	return c.DialFunc(ctx, id, nil)
}

// DialFunc is Dial for a program that takes the messages as they come,
// from handle, rather than from Next: see NewConnFunc.
func (c *Client) DialFunc(ctx context.Context, id string, handle func(data []byte)) (*Conn, error) {
	u, err := c.endpoint("ws", "/ws/lanes/"+url.PathEscape(id))
	if err != nil {
		return nil, err
	}
	ws, res, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: c.HTTPClient})
	if err != nil {
		if res != nil && res.Body != nil {
			return nil, refusal("dial lane "+id, res, err)
		}
		return nil, fmt.Errorf("client: dial lane %s: %w", id, err)
	}
	return NewConnFunc(ws, handle), nil
}

// CreateLane creates a lane named name (POST /api/lanes) and returns its
// summary. A refusal (a name the server does not take, too many lanes,
// too many creations from this address) is an error that wraps the
// server's *protocol.Error.
func (c *Client) CreateLane(ctx context.Context, name string) (protocol.CreatedLane, error) {
	return c.Create(ctx, protocol.CreateLane{Name: name})
}

// Create creates a lane as req says — its name, and whether it is private
// (never listed; its link is the invitation) — and returns its summary and
// host key (join with [Conn.JoinHost] to be its host).
func (c *Client) Create(ctx context.Context, req protocol.CreateLane) (protocol.CreatedLane, error) {
	var l protocol.CreatedLane
	body, err := jsonBody(req)
	if err != nil {
		return l, err
	}
	err = c.do(ctx, http.MethodPost, "/api/lanes", body, http.StatusCreated, &l)
	return l, err
}

// Lanes returns the server's open lanes, oldest first (GET /api/lanes,
// following every page).
func (c *Client) Lanes(ctx context.Context) ([]protocol.LaneSummary, error) {
	var all []protocol.LaneSummary
	path := "/api/lanes"
	for {
		var page protocol.Lanes
		if err := c.do(ctx, http.MethodGet, path, nil, http.StatusOK, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Lanes...)
		if page.Next == "" || len(page.Lanes) == 0 {
			return all, nil
		}
		path = "/api/lanes?after=" + url.QueryEscape(page.Next)
	}
}

// Board returns the lane id's board (GET /api/lanes/{id}).
func (c *Client) Board(ctx context.Context, id string) (*protocol.Board, error) {
	b := new(protocol.Board)
	if err := c.do(ctx, http.MethodGet, "/api/lanes/"+url.PathEscape(id), nil, http.StatusOK, b); err != nil {
		return nil, err
	}
	return b, nil
}

// Games returns the games of the lane id's series (GET
// /api/lanes/{id}/games), with the history of their corrections.
func (c *Client) Games(ctx context.Context, id string) (*protocol.Games, error) {
	g := new(protocol.Games)
	if err := c.do(ctx, http.MethodGet, "/api/lanes/"+url.PathEscape(id)+"/games", nil, http.StatusOK, g); err != nil {
		return nil, err
	}
	return g, nil
}

// Invite returns the lane id's invitation (GET /api/lanes/{id}/invite):
// its link at an address friends' phones can open, and its QR code's path.
func (c *Client) Invite(ctx context.Context, id string) (*protocol.Invite, error) {
	inv := new(protocol.Invite)
	if err := c.do(ctx, http.MethodGet, "/api/lanes/"+url.PathEscape(id)+"/invite", nil, http.StatusOK, inv); err != nil {
		return nil, err
	}
	return inv, nil
}

// endpoint returns the URL of path on the server, its scheme ws or http
// (with an s if the server's URL has one).
func (c *Client) endpoint(scheme, path string) (string, error) {
	u, err := url.Parse(c.URL)
	if err != nil {
		return "", fmt.Errorf("client: server URL %q: %w", c.URL, err)
	}
	switch u.Scheme {
	case "http", "ws":
	case "https", "wss":
		scheme += "s"
	default:
		return "", fmt.Errorf("client: server URL %q: want http://, https://, ws:// or wss://", c.URL)
	}
	return scheme + "://" + u.Host + strings.TrimRight(u.Path, "/") + path, nil
}

func (c *Client) httpClient() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	return http.DefaultClient
}

// do makes one API request and decodes its answer, which must have the
// status want, into v.
func (c *Client) do(ctx context.Context, method, path string, body io.Reader, want int, v any) error {
	_, err := c.send(ctx, method, path, "", body, v, want)
	return err
}

// send makes one API request, with the Authorization header auth if not
// empty, and decodes its answer, which must have one of the statuses
// want, into v; an answer of 204 has no body to decode. It returns the
// answer's status.
func (c *Client) send(ctx context.Context, method, path, auth string, body io.Reader, v any, want ...int) (int, error) {
	u, err := c.endpoint("http", path)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return 0, fmt.Errorf("client: %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := c.httpClient().Do(req)
	if err != nil {
		return 0, fmt.Errorf("client: %s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	if !slices.Contains(want, res.StatusCode) {
		return res.StatusCode, refusal(method+" "+path, res, nil)
	}
	if res.StatusCode == http.StatusNoContent {
		return res.StatusCode, nil
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
	if err != nil {
		return res.StatusCode, fmt.Errorf("client: %s %s: %w", method, path, err)
	}
	if err := protocol.Unmarshal(data, v); err != nil {
		return res.StatusCode, fmt.Errorf("client: %s %s: %w", method, path, err)
	}
	return res.StatusCode, nil
}

// refusal is the error for an HTTP answer the client did not want: the
// server's *protocol.Error if its body is one, with the status.
func refusal(what string, res *http.Response, cause error) error {
	data, _ := io.ReadAll(io.LimitReader(res.Body, maxBody))
	var e protocol.Error
	if protocol.Unmarshal(bytes.TrimSpace(data), &e) == nil && e.Code != "" {
		return fmt.Errorf("client: %s: %s: %w", what, res.Status, &e)
	}
	if cause != nil {
		return fmt.Errorf("client: %s: %s: %w", what, res.Status, cause)
	}
	return fmt.Errorf("client: %s: %s", what, res.Status)
}

func jsonBody(v any) (io.Reader, error) {
	data, err := encode(v)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(data), nil
}

// ErrClosed is wrapped by the errors of a Conn whose connection has ended,
// together with the error that ended it (websocket.CloseStatus reads the
// server's close status from it).
var ErrClosed = errors.New("client: connection closed")
