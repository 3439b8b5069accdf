package client_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"strconv"
	"testing"

	"github.com/coder/websocket"

	"github.com/tenpin/tenpin/protocol"
	"github.com/tenpin/tenpin/protocol/client"
)

// BenchmarkReadBoards measures what a client pays for a board, from the
// socket to its code, with a server in the process that sends b.N boards
// (four players, mid-game) as fast as it can: a bare coder/websocket read
// loop into one buffer (what the load tool did by hand before the
// client), a Conn with a func (what it does now), and a Conn's NextRaw
// and Next (the board decoded whole). Each reads the seq.
func BenchmarkReadBoards(b *testing.B) {
	board, err := os.ReadFile("../testdata/board-playing.golden")
	if err != nil {
		b.Fatal(err)
	}
	board = bytes.TrimSpace(board)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(path.Base(r.URL.Path)) // /ws/lanes/{n}: send n boards
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		for range n {
			if ws.Write(r.Context(), websocket.MessageText, board) != nil {
				return
			}
		}
		ws.Close(websocket.StatusNormalClosure, "")
	}))
	defer srv.Close()
	ctx := context.Background()
	// url is the socket of a "lane" that sends n boards.
	url := func(n int) string { return "ws" + srv.URL[len("http"):] + "/ws/lanes/" + strconv.Itoa(n) }
	check := func(b *testing.B, seen, n int) {
		if seen != n {
			b.Fatalf("read %d boards, want %d", seen, n)
		}
	}
	// A Conn's queue drops the oldest boards when its reader falls behind.
	dropped := func(b *testing.B, seen, n int) {
		b.ReportMetric(float64(n-seen)/float64(n), "dropped/op")
	}

	b.Run("websocket", func(b *testing.B) {
		b.ReportAllocs()
		ws, _, err := websocket.Dial(ctx, url(b.N), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ws.CloseNow()
		var buf bytes.Buffer
		seen := 0
		for {
			_, r, err := ws.Reader(ctx)
			if err != nil {
				break
			}
			buf.Reset()
			buf.ReadFrom(r)
			if _, ok := protocol.BoardSeq(buf.Bytes()); ok {
				seen++
			}
		}
		check(b, seen, b.N)
	})
	b.Run("DialFunc", func(b *testing.B) {
		b.ReportAllocs()
		seen := 0
		c, err := (&client.Client{URL: srv.URL}).DialFunc(ctx, strconv.Itoa(b.N), func(data []byte) {
			if _, ok := protocol.BoardSeq(data); ok {
				seen++
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		<-c.Done()
		check(b, seen, b.N)
	})
	b.Run("NextRaw", func(b *testing.B) {
		b.ReportAllocs()
		ws, _, err := websocket.Dial(ctx, url(b.N), nil)
		if err != nil {
			b.Fatal(err)
		}
		c := client.NewConn(ws)
		seen := 0
		for {
			data, err := c.NextRaw(ctx)
			if err != nil {
				break
			}
			if _, ok := protocol.BoardSeq(data); ok {
				seen++
			}
		}
		dropped(b, seen, b.N)
	})
	b.Run("Next", func(b *testing.B) {
		b.ReportAllocs()
		ws, _, err := websocket.Dial(ctx, url(b.N), nil)
		if err != nil {
			b.Fatal(err)
		}
		c := client.NewConn(ws)
		seen := 0
		for {
			m, err := c.Next(ctx)
			if err != nil {
				break
			}
			if _, ok := m.(*protocol.Board); ok {
				seen++
			}
		}
		dropped(b, seen, b.N)
	})
}
