package protocol

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"strconv"
	"testing"
)

func TestCodeStatus(t *testing.T) {
	for _, tc := range []struct {
		code Code
		want int
	}{
		{CodeBadRequest, http.StatusBadRequest},
		{CodeInvalidLaneName, http.StatusBadRequest},
		{CodeNotFound, http.StatusNotFound},
		{CodeLaneNotFound, http.StatusNotFound},
		{CodeTooLarge, http.StatusRequestEntityTooLarge},
		{CodeUnsupportedMediaType, http.StatusUnsupportedMediaType},
		{CodeHostNotAllowed, http.StatusMisdirectedRequest},
		{CodeRateLimited, http.StatusTooManyRequests},
		{CodeTooManyLanes, http.StatusServiceUnavailable},
		{CodeTooManyConnections, http.StatusServiceUnavailable},
		{CodeShuttingDown, http.StatusServiceUnavailable},
		{CodeUnavailable, http.StatusServiceUnavailable},
		{CodeStorageFull, http.StatusInsufficientStorage},
		{CodeInternal, http.StatusInternalServerError},
		{CodeNotYourTurn, http.StatusBadRequest}, // a lane's refusal, should one ever answer a request
	} {
		if got := tc.code.Status(); got != tc.want {
			t.Errorf("%s.Status() = %d, want %d", tc.code, got, tc.want)
		}
	}
}

// TestCodes checks the table of codes against the codes declared: every
// Code constant has its row, with an HTTP error status, and a close
// status that RFC 6455 lets a server send where a connection closes for
// it, with a close text only there.
func TestCodes(t *testing.T) {
	declared := declaredCodes(t)
	if len(declared) != len(codes) {
		t.Errorf("%d codes declared, %d in the table", len(declared), len(codes))
	}
	for _, c := range declared {
		s, ok := codes[c]
		if !ok {
			t.Errorf("code %s has no row in codes", c)
			continue
		}
		if s.status < 400 || s.status > 599 || http.StatusText(s.status) == "" {
			t.Errorf("code %s: HTTP status %d, want a 4xx or 5xx status", c, s.status)
		}
		switch {
		case s.close == 0 && s.closeText != "":
			t.Errorf("code %s closes no connection but has a close text %q", c, s.closeText)
		case s.close != 0 && (s.close < 1000 || s.close == 1004 || s.close == 1005 || s.close == 1006 || s.close == 1015 || s.close > 4999):
			t.Errorf("code %s: close status %d, not one a server sends", c, s.close)
		case len(s.closeText) > 123:
			t.Errorf("code %s: close text of %d bytes, over a close frame's 123", c, len(s.closeText))
		}
	}
}

// declaredCodes returns the Code constants errors.go declares.
func declaredCodes(t *testing.T) []Code {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var cs []Code
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
				continue
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok {
					t.Fatalf("a Code constant's value is not a literal: %T", v)
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				cs = append(cs, Code(s))
			}
		}
	}
	return cs
}

// TestCodeClose: the close status and the close frame's reason of each
// code a connection closes for. A limit says to try again later, a failed
// lane that the server erred, the others that the lane went away.
func TestCodeClose(t *testing.T) {
	for _, tt := range []struct {
		code   Code
		status int
		text   string
	}{
		{CodeInternal, 1011, "internal"},
		{CodeSpectatorsFull, 1013, "lane full"},
		{CodeLaneFull, 1013, "lane_full"},
		{CodeTooManyConnections, 1013, "too_many_connections"},
		{CodeRateLimited, 1013, "too many connections from this address"},
		{CodeServerRestarting, 1001, "server_restarting"},
		{CodeLaneClosed, 1001, "lane closed"},
		{CodeLaneIdle, 1001, "lane_idle"},
		{CodeRemoved, 1001, "removed"}, // closes no connection: going away, should one ever
		{"", 1001, ""},
	} {
		if got := tt.code.CloseStatus(); got != tt.status {
			t.Errorf("%q.CloseStatus() = %d, want %d", tt.code, got, tt.status)
		}
		if got := tt.code.CloseText(); got != tt.text {
			t.Errorf("%q.CloseText() = %q, want %q", tt.code, got, tt.text)
		}
	}
}
