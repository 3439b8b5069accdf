package protocol

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"strconv"
	"testing"
	"time"
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

// TestRefusalTexts pins the words each refusal tells its client, as pages
// and clients show them, and checks that every refusal has its entry and
// an HTTP status. (The lobby's TestRefusalSentinels checks the errors
// that wrap them.)
func TestRefusalTexts(t *testing.T) {
	tests := map[Refusal]struct {
		args []any
		code Code
		want string
	}{
		RefuseNoAPI:         {[]any{"GET", "/api/x"}, CodeNotFound, "no API at GET /api/x"},
		RefuseNoScorecard:   {[]any{"GET", "/api/lanes/a/games/x"}, CodeNotFound, "no API at GET /api/lanes/a/games/x: a game's scorecard is games/{n}.svg, n from 1"},
		RefuseNotJSON:       {nil, CodeUnsupportedMediaType, "send the body as JSON, with Content-Type: application/json"},
		RefuseTooLarge:      {[]any{4096}, CodeTooLarge, "the body is over 4096 bytes"},
		RefuseBadBody:       {[]any{`{"name":"Friday night"}`, "unknown field"}, CodeBadRequest, `the body must be one JSON object like {"name":"Friday night"}: unknown field`},
		RefuseBadBodyShape:  {[]any{`{"code":"…"}`}, CodeBadRequest, `the body must be one JSON object like {"code":"…"}`},
		RefuseStoreDown:     {nil, CodeUnavailable, "the store does not take writes"},
		RefuseExportsBusy:   {nil, CodeUnavailable, "the server is answering other exports; try again in a moment"},
		RefuseListLimit:     {[]any{"x", 200}, CodeBadRequest, `limit "x": want a whole number of lanes from 1 to 200`},
		RefuseListAfter:     {[]any{"abc"}, CodeBadRequest, `after "abc": no such lane is listed, or closed lately; list again from the first page, without after`},
		RefusePageLimit:     {[]any{100, "x"}, CodeBadRequest, `limit is a number from 1 to 100, not "x"`},
		RefuseHistoryBefore: {[]any{"x"}, CodeBadRequest, `before is a page's next, not "x"`},
		RefuseLeagueAfter:   {[]any{3, "x"}, CodeBadRequest, `after is a record's number, 0 to 3, not "x"`},
		RefuseBadWeek:       {[]any{"x"}, CodeBadRequest, `a week is a number from 1, not "x"`},

		RefuseLaneName:          {[]any{errors.New("empty")}, CodeInvalidLaneName, "the lane's name: empty"},
		RefuseLanesServer:       {[]any{10}, CodeTooManyLanes, "the server holds 10 lanes, its limit"},
		RefuseLanesAddr:         {[]any{2}, CodeRateLimited, "2 lanes created from this address are open, its limit"},
		RefuseLanesAddrOpen:     {[]any{2, 5 * time.Minute, 301}, CodeRateLimited, "this address has 2 lanes open, its limit; a lane closes once nobody has been on it for 5m0s; try again in 301 s"},
		RefuseNotStored:         {nil, CodeUnavailable, "the new lane could not be stored in time; try again"},
		RefuseLaneNotFound:      {[]any{"abc"}, CodeLaneNotFound, `no lane "abc": it may have closed`},
		RefuseLaneNotKept:       {[]any{"abc", "the server keeps no more kept nights: their budget of 1 GiB is full"}, CodeStorageFull, `lane "abc" closed, and its night was not kept: the server keeps no more kept nights: their budget of 1 GiB is full`},
		RefuseLaneUnreached:     {[]any{"abc"}, CodeUnavailable, `lane "abc" cannot be reached now; try again in a moment`},
		RefuseNoGame:            {[]any{"abc", "3"}, CodeNotFound, `lane "abc" has no game 3 yet`},
		RefuseShuttingDown:      {nil, CodeShuttingDown, "the server is shutting down"},
		RefuseCreationsFast:     {[]any{6}, CodeRateLimited, "this address has created lanes too fast; try again in 6 s"},
		RefuseExportsFast:       {[]any{1}, CodeRateLimited, "this address has asked for exports too fast; try again in 1 s"},
		RefuseLaneGamesFast:     {[]any{1}, CodeRateLimited, "this address has asked for a lane's games too fast; try again in 1 s"},
		RefuseQRCodesFast:       {[]any{1}, CodeRateLimited, "this address has asked for new QR codes too fast; try again in 1 s"},
		RefuseConnsServer:       {[]any{100}, CodeTooManyConnections, "the server holds 100 connections, its limit"},
		RefuseConnsAddr:         {[]any{3}, CodeRateLimited, "this address has 3 WebSocket connections open, its limit; try again later"},
		RefuseConnsAddrRefusing: {[]any{3}, CodeRateLimited, "this address has 3 WebSocket connections open, its limit, and is being refused more"},
		RefuseRefusalsInFlight:  {[]any{2}, CodeRateLimited, "this address has its WebSocket connections open, and more being refused; try again in 2 s"},
		RefuseConnsLaneAddr:     {[]any{64}, CodeRateLimited, "this address has 64 connections on this lane, its limit; try again later"},

		RefuseBowlerKeyMissing: {nil, CodeUnknownBowler, `send the bowler's key as the header "Authorization: Bowler <key>"`},
		RefuseBowlerUnknown:    {nil, CodeUnknownBowler, "no bowler has that key or link: it was revoked, or its bowler deleted their history"},
		RefuseBowlerDeleted:    {nil, CodeUnknownBowler, "that bowler was deleted meanwhile"},
		RefuseNoBowlers:        {nil, CodeNotFound, "this server keeps no bowlers"},
		RefuseBowlersDown:      {nil, CodeUnavailable, "the bowlers' store does not answer; try again in a moment"},
		RefuseBowlerGuesses:    {[]any{1}, CodeRateLimited, "this address has tried too many unknown bowler keys, codes or links; try again in 1 s"},
		RefuseCodeQR:           {nil, CodeInternal, "the code's QR code could not be drawn"},
		RefuseTooManyCodes:     {[]any{5, 10}, CodeRateLimited, "5 codes made in the last minutes are not used yet: use one, or wait until they expire (after 10 minutes)"},
		RefuseCodeUnknown:      {nil, CodeInvalidCode, "that code is unknown or expired: ask the other device for a new one"},
		RefuseCodeUsed:         {nil, CodeCodeUsed, "that code was used already: a code links one device, once; ask the other device for a new one"},

		RefuseLeagueContended:     {nil, CodeUnavailable, "the league was changed meanwhile, again and again; try again"},
		RefuseLeaguesDown:         {nil, CodeUnavailable, "the leagues' store does not answer; try again in a moment"},
		RefuseLeaguesFast:         {[]any{360}, CodeRateLimited, "this address has created leagues too fast; try again in 360 s"},
		RefuseNotSecretary:        {nil, CodeNotSecretary, "that key is not this league's secretary's"},
		RefuseSecretaryKeyMissing: {nil, CodeSecretaryRequired, `send the league secretary's key as the header "Authorization: Secretary <key>"`},
		RefuseKeyGuesses:          {[]any{1}, CodeRateLimited, "this address has tried too many wrong keys; try again in 1 s"},
		RefuseJoins:               {[]any{2}, CodeRateLimited, "this address has joined lanes too often; try again in 2 s"},
		RefuseNewBowlers:          {[]any{500, 170}, CodeRateLimited, "this address has asked to be remembered 500 times today, its limit: join without “remember me”, or try again in 170 s"},

		RefuseSubstituteName: {[]any{"AAA"}, CodeInvalidNight, `the substitute for "AAA" has no name`},
		RefuseSubstitutes:    {[]any{"AAA", "BBB", "CCC"}, CodeInvalidNight, `"AAA" has two substitutes, "BBB" and "CCC": one place, one bowler`},
		RefuseFixNoLanes:     {[]any{2}, CodeInvalidCorrection, "week 2's night kept no lanes"},
		RefuseFixLaneGone:    {[]any{"AAA", 2, "abc"}, CodeInvalidCorrection, `the lane of "AAA"'s match in week 2 (abc) is no longer kept, nor its balls: correct the game's score instead`},
		RefuseFixNotBowled:   {[]any{"AAA", 3, 2, "abc"}, CodeInvalidCorrection, `"AAA"'s game 3 of week 2 was not bowled on its lane (abc): correct its score instead`},
		RefuseFixInPlay:      {[]any{"AAA", 3, 2}, CodeInvalidCorrection, `"AAA"'s game 3 of week 2 is in play: correct the ball on its lane (POST …/weeks/{n}/matches/{m}/correct, or Tonight on a lane)`},
		RefuseFixNotBowler:   {[]any{"AAA", 3, 2, "abc"}, CodeInvalidCorrection, `"AAA" did not bowl game 3 of week 2 on its lane (abc): correct its score instead`},

		RefuseBadMatch:       {[]any{"x"}, CodeBadRequest, `a match is a number from 1, not "x"`},
		RefuseNightNotOpen:   {[]any{2}, CodeWrongWeek, "week 2's night is not open: its lanes take no command"},
		RefuseNoMatch:        {[]any{2, 3, 2}, CodeLaneNotFound, "week 2's night has no match 3: its matches are 1 to 2"},
		RefuseMatchLaneGone:  {[]any{1, 2, "abc"}, CodeLaneNotFound, "the lane of match 1 of week 2 (abc) has closed"},
		RefuseMatchLaneThere: {[]any{1, 2, "abc"}, CodeUnavailable, "the lane of match 1 of week 2 (abc) cannot be reached now; try again in a moment"},
		RefuseNoPlace:        {[]any{"roll"}, CodeBadRequest, `a secretary's roll names the place: "name"`},
		RefuseNoPins:         {[]any{"roll"}, CodeBadRequest, `a secretary's roll needs "pins", "deck" or "foul"`},
		RefuseDeckSize:       {[]any{11, 10}, CodeBadRequest, `"deck" names 11 pins; a lane has 10`},

		RefuseNotInvitation:  {[]any{"Tenpin-Invite"}, CodeBadRequest, "Tenpin-Invite is not an invitation: 26 letters A–Z and digits 2–7"},
		RefuseHostName:       {[]any{"evil.example", "evil.example"}, CodeHostNotAllowed, `this server does not answer to the name "evil.example" (the Host header), a guard against DNS rebinding: start it with -host evil.example to allow that name`},
		RefuseStoreLate:      {nil, CodeUnavailable, "the lane could not store that in time; nothing changed, try again"},
		RefuseLogUnread:      {nil, CodeUnavailable, "the lane could not read its log back in time; nothing changed, try again"},
		RefuseBusy:           {nil, CodeUnavailable, "the lane is busy; nothing changed, try again"},
		RefuseHoldsSeat:      {[]any{"BOB"}, CodeAlreadySeated, "this connection already holds BOB's seat"},
		RefuseBowlerSeated:   {[]any{"BOB"}, CodeAlreadySeated, "that bowler holds BOB's seat on this lane already"},
		RefuseNotSeated:      {[]any{"roll"}, CodeNotSeated, "only a seated player may roll; join first"},
		RefuseBowlerKey:      {nil, CodeUnknownBowler, "that bowler key is not known here: it was revoked, or its bowler deleted their history; join as a guest, or start a new history"},
		RefuseBadToken:       {nil, CodeBadToken, "that token holds no seat on this lane"},
		RefuseSpectatorsFull: {[]any{200}, CodeSpectatorsFull, "the lane has its 200 watchers already"},
		RefuseNoFrameBall:    {[]any{"correct"}, CodeBadMessage, `correct needs "frame" and "ball"`},
		RefuseSecretaryType:  {[]any{"start"}, CodeUnknownType, "a league's secretary may roll, correct, skip or remove on a lane, not start"},
		RefuseJoinsPending:   {[]any{4}, CodeRateLimited, "4 joins are not answered yet: wait for their answers"},
		RefuseMessagesFast:   {[]any{20.0}, CodeRateLimited, "more than 20 messages a second; slow down"},
		RefuseBinary:         {nil, CodeBadMessage, "binary frames are not tenpin messages; send JSON text"},
		RefusePlainSecret:    {nil, CodeBadMessage, "this server's relay sent the lane a join or a resume unhashed: the cluster's servers run different versions"},
		RefuseNotRelayed:     {[]any{errors.New("EOF")}, CodeBadMessage, "not a relayed join or resume: EOF"},
		RefuseRelayed:        {[]any{"join", errors.New("token_sha256: not hex")}, CodeBadMessage, "a relayed join: token_sha256: not hex"},
		RefuseRelayedInvite:  {nil, CodeBadMessage, "a relayed new_invite needs its id and the invitation's hash"},

		RefuseTakenOver:  {[]any{"BOB"}, CodeSeatTakenOver, "BOB's seat was resumed by another connection"},
		RefusePlaceGiven: {[]any{"BOB"}, CodeRemoved, "the league's secretary gave BOB's place back: you are watching now"},
		RefuseRemovedBy:  {[]any{"PJS", "BOB"}, CodeRemoved, "the host, PJS, removed BOB from the lane: you are watching now"},
	}
	for r := range numRefusals {
		tt, ok := tests[r]
		if !ok {
			t.Errorf("refusal %d (%q) has no test", r, refusals[r].text)
			continue
		}
		e := r.Error(tt.args...)
		if e.Code != tt.code || e.Message != tt.want {
			t.Errorf("refusal %d = %s: %q, want %s: %q", r, e.Code, e.Message, tt.code, tt.want)
		}
		if _, ok := codes[e.Code]; !ok {
			t.Errorf("refusal %d: code %s has no row in codes", r, e.Code)
		}
	}
}
