package lobby

import (
	"errors"
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/protocol"
)

// TestRefusalTexts pins the words each refusal tells its client, as pages
// and clients show them, and checks that every refusal has its entry, an
// HTTP status, and, wrapped as an error, its sentinel and the same words
// through lane.ErrorFor.
func TestRefusalTexts(t *testing.T) {
	tests := map[Refusal]struct {
		args []any
		code protocol.Code
		want string
	}{
		RefuseNoAPI:         {[]any{"GET", "/api/x"}, protocol.CodeNotFound, "no API at GET /api/x"},
		RefuseNoScorecard:   {[]any{"GET", "/api/lanes/a/games/x"}, protocol.CodeNotFound, "no API at GET /api/lanes/a/games/x: a game's scorecard is games/{n}.svg, n from 1"},
		RefuseNotJSON:       {nil, protocol.CodeUnsupportedMediaType, "send the body as JSON, with Content-Type: application/json"},
		RefuseTooLarge:      {[]any{4096}, protocol.CodeTooLarge, "the body is over 4096 bytes"},
		RefuseBadBody:       {[]any{`{"name":"Friday night"}`, "unknown field"}, protocol.CodeBadRequest, `the body must be one JSON object like {"name":"Friday night"}: unknown field`},
		RefuseBadBodyShape:  {[]any{`{"code":"…"}`}, protocol.CodeBadRequest, `the body must be one JSON object like {"code":"…"}`},
		refuseStoreDown:     {nil, protocol.CodeUnavailable, "the store does not take writes"},
		RefuseExportsBusy:   {nil, protocol.CodeUnavailable, "the server is answering other exports; try again in a moment"},
		RefuseListLimit:     {[]any{"x", 200}, protocol.CodeBadRequest, `limit "x": want a whole number of lanes from 1 to 200`},
		RefuseListAfter:     {[]any{"abc"}, protocol.CodeBadRequest, `after "abc": no such lane is listed, or closed lately; list again from the first page, without after`},
		RefusePageLimit:     {[]any{100, "x"}, protocol.CodeBadRequest, `limit is a number from 1 to 100, not "x"`},
		RefuseHistoryBefore: {[]any{"x"}, protocol.CodeBadRequest, `before is a page's next, not "x"`},
		refuseLeagueAfter:   {[]any{3, "x"}, protocol.CodeBadRequest, `after is a record's number, 0 to 3, not "x"`},
		RefuseBadWeek:       {[]any{"x"}, protocol.CodeBadRequest, `a week is a number from 1, not "x"`},

		refuseLaneName:          {[]any{errors.New("empty")}, protocol.CodeInvalidLaneName, "the lane's name: empty"},
		refuseLanesServer:       {[]any{10}, protocol.CodeTooManyLanes, "the server holds 10 lanes, its limit"},
		refuseLanesAddr:         {[]any{2}, protocol.CodeRateLimited, "2 lanes created from this address are open, its limit"},
		RefuseLanesAddrOpen:     {[]any{2, 5 * time.Minute, 301}, protocol.CodeRateLimited, "this address has 2 lanes open, its limit; a lane closes once nobody has been on it for 5m0s; try again in 301 s"},
		refuseNotStored:         {nil, protocol.CodeUnavailable, "the new lane could not be stored in time; try again"},
		refuseLaneNotFound:      {[]any{"abc"}, protocol.CodeLaneNotFound, `no lane "abc": it may have closed`},
		refuseLaneNotKept:       {[]any{"abc", "the server keeps no more kept nights: their budget of 1 GiB is full"}, protocol.CodeStorageFull, `lane "abc" closed, and its night was not kept: the server keeps no more kept nights: their budget of 1 GiB is full`},
		refuseLaneUnreached:     {[]any{"abc"}, protocol.CodeUnavailable, `lane "abc" cannot be reached now; try again in a moment`},
		RefuseNoGame:            {[]any{"abc", "3"}, protocol.CodeNotFound, `lane "abc" has no game 3 yet`},
		refuseShuttingDown:      {nil, protocol.CodeShuttingDown, "the server is shutting down"},
		RefuseCreationsFast:     {[]any{6}, protocol.CodeRateLimited, "this address has created lanes too fast; try again in 6 s"},
		RefuseExportsFast:       {[]any{1}, protocol.CodeRateLimited, "this address has asked for exports too fast; try again in 1 s"},
		RefuseLaneGamesFast:     {[]any{1}, protocol.CodeRateLimited, "this address has asked for a lane's games too fast; try again in 1 s"},
		RefuseQRCodesFast:       {[]any{1}, protocol.CodeRateLimited, "this address has asked for new QR codes too fast; try again in 1 s"},
		refuseConnsServer:       {[]any{100}, protocol.CodeTooManyConnections, "the server holds 100 connections, its limit"},
		refuseConnsAddr:         {[]any{3}, protocol.CodeRateLimited, "this address has 3 WebSocket connections open, its limit; try again later"},
		refuseConnsAddrRefusing: {[]any{3}, protocol.CodeRateLimited, "this address has 3 WebSocket connections open, its limit, and is being refused more"},
		refuseRefusalsInFlight:  {[]any{2}, protocol.CodeRateLimited, "this address has its WebSocket connections open, and more being refused; try again in 2 s"},
		refuseConnsLaneAddr:     {[]any{64}, protocol.CodeRateLimited, "this address has 64 connections on this lane, its limit; try again later"},

		RefuseBowlerKeyMissing: {nil, protocol.CodeUnknownBowler, `send the bowler's key as the header "Authorization: Bowler <key>"`},
		RefuseBowlerUnknown:    {nil, protocol.CodeUnknownBowler, "no bowler has that key or link: it was revoked, or its bowler deleted their history"},
		RefuseBowlerDeleted:    {nil, protocol.CodeUnknownBowler, "that bowler was deleted meanwhile"},
		RefuseNoBowlers:        {nil, protocol.CodeNotFound, "this server keeps no bowlers"},
		RefuseBowlersDown:      {nil, protocol.CodeUnavailable, "the bowlers' store does not answer; try again in a moment"},
		RefuseBowlerGuesses:    {[]any{1}, protocol.CodeRateLimited, "this address has tried too many unknown bowler keys, codes or links; try again in 1 s"},
		RefuseCodeQR:           {nil, protocol.CodeInternal, "the code's QR code could not be drawn"},
		RefuseTooManyCodes:     {[]any{5, 10}, protocol.CodeRateLimited, "5 codes made in the last minutes are not used yet: use one, or wait until they expire (after 10 minutes)"},
		RefuseCodeUnknown:      {nil, protocol.CodeInvalidCode, "that code is unknown, used already or expired: ask the other device for a new one"},

		refuseLeagueContended:     {nil, protocol.CodeUnavailable, "the league was changed meanwhile, again and again; try again"},
		refuseLeaguesDown:         {nil, protocol.CodeUnavailable, "the leagues' store does not answer; try again in a moment"},
		RefuseLeaguesFast:         {[]any{360}, protocol.CodeRateLimited, "this address has created leagues too fast; try again in 360 s"},
		refuseNotSecretary:        {nil, protocol.CodeNotSecretary, "that key is not this league's secretary's"},
		RefuseSecretaryKeyMissing: {nil, protocol.CodeSecretaryRequired, `send the league secretary's key as the header "Authorization: Secretary <key>"`},
		RefuseKeyGuesses:          {[]any{1}, protocol.CodeRateLimited, "this address has tried too many wrong keys; try again in 1 s"},
		RefuseJoins:               {[]any{2}, protocol.CodeRateLimited, "this address has joined lanes too often; try again in 2 s"},
		RefuseNewBowlers:          {[]any{500, 170}, protocol.CodeRateLimited, "this address has asked to be remembered 500 times today, its limit: join without “remember me”, or try again in 170 s"},

		refuseSubstituteName: {[]any{"AAA"}, protocol.CodeInvalidNight, `the substitute for "AAA" has no name`},
		refuseSubstitutes:    {[]any{"AAA", "BBB", "CCC"}, protocol.CodeInvalidNight, `"AAA" has two substitutes, "BBB" and "CCC": one place, one bowler`},
		refuseFixNoLanes:     {[]any{2}, protocol.CodeInvalidCorrection, "week 2's night kept no lanes"},
		refuseFixLaneGone:    {[]any{"AAA", 2, "abc"}, protocol.CodeInvalidCorrection, `the lane of "AAA"'s match in week 2 (abc) is no longer kept, nor its balls: correct the game's score instead`},
		refuseFixNotBowled:   {[]any{"AAA", 3, 2, "abc"}, protocol.CodeInvalidCorrection, `"AAA"'s game 3 of week 2 was not bowled on its lane (abc): correct its score instead`},
		refuseFixInPlay:      {[]any{"AAA", 3, 2}, protocol.CodeInvalidCorrection, `"AAA"'s game 3 of week 2 is in play: correct the ball on its lane (POST …/weeks/{n}/matches/{m}/correct, or Tonight on a lane)`},
		refuseFixNotBowler:   {[]any{"AAA", 3, 2, "abc"}, protocol.CodeInvalidCorrection, `"AAA" did not bowl game 3 of week 2 on its lane (abc): correct its score instead`},

		RefuseBadMatch:       {[]any{"x"}, protocol.CodeBadRequest, `a match is a number from 1, not "x"`},
		refuseNightNotOpen:   {[]any{2}, protocol.CodeWrongWeek, "week 2's night is not open: its lanes take no command"},
		refuseNoMatch:        {[]any{2, 3, 2}, protocol.CodeLaneNotFound, "week 2's night has no match 3: its matches are 1 to 2"},
		refuseMatchLaneGone:  {[]any{1, 2, "abc"}, protocol.CodeLaneNotFound, "the lane of match 1 of week 2 (abc) has closed"},
		refuseMatchLaneThere: {[]any{1, 2, "abc"}, protocol.CodeUnavailable, "the lane of match 1 of week 2 (abc) cannot be reached now; try again in a moment"},
		refuseNoPlace:        {[]any{"roll"}, protocol.CodeBadRequest, `a secretary's roll names the place: "name"`},
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
		err := refused(r, tt.args...)
		if s := refusals[r].err; s != nil && !errors.Is(err, s) {
			t.Errorf("refusal %d: %v is not %v", r, err, s)
		}
		if pe, known := lane.ErrorFor(err); !known || *pe != *e {
			t.Errorf("refusal %d: lane.ErrorFor(%v) = %+v, %v; want %+v", r, err, pe, known, e)
		}
	}
}
