package ws

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/protocol"
)

// TestClosing: what a connection closed for each code is told, status
// and reason: a limit says to try again later, with protocol's words.
func TestClosing(t *testing.T) {
	for _, tt := range []struct {
		code   protocol.Code
		status websocket.StatusCode
		reason string
	}{
		{protocol.CodeRateLimited, websocket.StatusTryAgainLater, "too many connections from this address"},
		{protocol.CodeLaneClosed, websocket.StatusGoingAway, "lane closed"},
		{protocol.CodeTooManyConnections, websocket.StatusTryAgainLater, "too_many_connections"},
		{protocol.CodeInternal, websocket.StatusInternalError, "internal"},
	} {
		status, reason := Closing(tt.code)
		if status != tt.status || reason != tt.reason {
			t.Errorf("Closing(%q) = %v, %q, want %v, %q", tt.code, status, reason, tt.status, tt.reason)
		}
	}
}

// TestRefuse: a refused socket is sent the error, then closed as Closing
// says for its code; a request from another origin is not upgraded.
func TestRefuse(t *testing.T) {
	e := protocol.Errorf(protocol.CodeRateLimited, "this address has 3 connections on this lane, its limit; try again later")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Refuse(w, r, nil, e)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	url := "ws" + strings.TrimPrefix(srv.URL, "http")

	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	_, data, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("no error sent: %v", err)
	}
	var got protocol.Error
	if err := json.Unmarshal(data, &got); err != nil || got.Code != e.Code || got.Message != e.Message {
		t.Errorf("sent %s (%v), want %+v", data, err, e)
	}
	_, _, err = c.Read(ctx)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusTryAgainLater || ce.Reason != "too many connections from this address" {
		t.Errorf("then %v, want a close %v %q", err, websocket.StatusTryAgainLater, "too many connections from this address")
	}

	h := http.Header{"Origin": {"https://elsewhere.example"}}
	if _, res, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h}); err == nil || res == nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("from another origin: %v %v, want 403", res, err)
	}
}
