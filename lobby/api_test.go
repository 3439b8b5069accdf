package lobby_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s: %s %s", url, res.Status, res.Header.Get("Content-Type"))
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func getText(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %s", url, res.Status, b)
	}
	return string(b)
}

func TestAPI(t *testing.T) {
	s := newServer(t, lobby.Config{MaxLanes: 2})
	id := s.createLane(t, "  Friday night  ")

	var lanes protocol.Lanes
	getJSON(t, s.srv.URL+"/api/lanes", &lanes)
	want := protocol.LaneSummary{ID: id, Name: "Friday night", Phase: "waiting", Players: []string{}, Spectators: 0, Frame: 0}
	if len(lanes.Lanes) != 1 || lanes.Lanes[0].ID != want.ID || lanes.Lanes[0].Name != want.Name || lanes.Lanes[0].Phase != want.Phase {
		t.Errorf("GET /api/lanes = %+v, want [%+v]", lanes, want)
	}
	if got := getText(t, s.srv.URL+"/healthz"); got != "ok\n" {
		t.Errorf("GET /healthz = %q", got)
	}
	if got := getText(t, s.srv.URL+"/api/lanes/"+id+"/board.txt"); !strings.HasPrefix(got, "| NAME |  01  |") {
		t.Errorf("board.txt of an empty lane = %q", got)
	}

	tests := []struct {
		name, method, path, body string
		status                   int
		code                     string
		contentType              string // of a POST; default application/json
	}{
		{"unknown lane", "GET", "/api/lanes/nope", "", 404, "lane_not_found", ""},
		{"unknown lane text", "GET", "/api/lanes/nope/board.txt", "", 404, "lane_not_found", ""},
		{"unknown lane socket", "GET", "/ws/lanes/nope", "", 404, "lane_not_found", ""},
		{"not JSON", "POST", "/api/lanes", "name=x", 400, "bad_request", ""},
		{"wrong field type", "POST", "/api/lanes", `{"name":7}`, 400, "bad_request", ""},
		{"data after the object", "POST", "/api/lanes", `{"name":"a"} junk`, 400, "bad_request", ""},
		{"two objects", "POST", "/api/lanes", `{"name":"a"}{"name":"b"}`, 400, "bad_request", ""},
		{"unknown field", "POST", "/api/lanes", `{"name":"a","color":"red"}`, 400, "bad_request", ""},
		{"a name in capitals", "POST", "/api/lanes", `{"NAME":"a"}`, 400, "bad_request", ""},
		{"a name twice", "POST", "/api/lanes", `{"name":"a","name":"b"}`, 400, "bad_request", ""},
		{"private not a bool", "POST", "/api/lanes", `{"name":"a","private":1}`, 400, "bad_request", ""},
		{"empty name", "POST", "/api/lanes", `{"name":"   "}`, 400, "invalid_lane_name", ""},
		{"long name", "POST", "/api/lanes", `{"name":"` + strings.Repeat("x", 41) + `"}`, 400, "invalid_lane_name", ""},
		{"control character", "POST", "/api/lanes", `{"name":"a\u0007b"}`, 400, "invalid_lane_name", ""},
		{"a right-to-left override", "POST", "/api/lanes", `{"name":"Friday \u202Ethgin"}`, 400, "invalid_lane_name", ""},
		{"zero-width only", "POST", "/api/lanes", `{"name":"\u200b\u200b"}`, 400, "invalid_lane_name", ""},
		{"a noncharacter", "POST", "/api/lanes", `{"name":"Lane \uffff"}`, 400, "invalid_lane_name", ""},
		{"no letter", "POST", "/api/lanes", `{"name":"- - -"}`, 400, "invalid_lane_name", ""},
		{"huge body", "POST", "/api/lanes", `{"name":"` + strings.Repeat("x", 5000) + `"}`, 413, "too_large", ""},
		{"unknown API", "GET", "/api/nothing", "", 404, "not_found", ""},
		// What a page of another site can POST without a preflight, and a
		// body that does not say what it is, create nothing.
		{"text/plain", "POST", "/api/lanes", `{"name":"cross-site"}`, 415, "unsupported_media_type", "text/plain"},
		{"a form", "POST", "/api/lanes", `{"name":"cross-site"}`, 415, "unsupported_media_type", "application/x-www-form-urlencoded"},
		{"multipart", "POST", "/api/lanes", `{"name":"cross-site"}`, 415, "unsupported_media_type", "multipart/form-data; boundary=x"},
		{"no Content-Type", "POST", "/api/lanes", `{"name":"unlabelled"}`, 415, "unsupported_media_type", "-"},
		{"JSON look-alike", "POST", "/api/lanes", `{"name":"look-alike"}`, 415, "unsupported_media_type", "application/jsonx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, s.srv.URL+tt.path, strings.NewReader(tt.body))
			switch {
			case tt.method != "POST" || tt.contentType == "-":
			case tt.contentType == "":
				req.Header.Set("Content-Type", "application/json")
			default:
				req.Header.Set("Content-Type", tt.contentType)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var e struct{ Code, Message string }
			json.NewDecoder(res.Body).Decode(&e)
			if res.StatusCode != tt.status || e.Code != tt.code || e.Message == "" {
				t.Errorf("%s %s = %d %+v, want %d %q with a message", tt.method, tt.path, res.StatusCode, e, tt.status, tt.code)
			}
		})
	}
	if n := s.lobby.Len(); n != 1 {
		t.Errorf("after refused creations the lobby has %d lanes, want 1", n)
	}
	// JSON with a charset is JSON.
	res, err := http.Post(s.srv.URL+"/api/lanes", "application/json; charset=utf-8", strings.NewReader(`{"name":"second"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Errorf("creating a lane with Content-Type application/json; charset=utf-8: %s, want 201", res.Status)
	}
	res, err = http.Post(s.srv.URL+"/api/lanes", "application/json", strings.NewReader(`{"name":"third"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("creating a lane past the limit: %s, want 503", res.Status)
	}
}

// isCode reports whether err is a refusal with code.
func isCode(err error, code protocol.Code) bool {
	var pe *protocol.Error
	return errors.As(err, &pe) && pe.Code == code
}
