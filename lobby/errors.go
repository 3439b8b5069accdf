package lobby

import (
	"errors"
	"fmt"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/lobby/peers"
	"github.com/tenpin/tenpin/protocol"
)

// Errors of the lobby. Each comes wrapped with the refusal a client is
// sent for it (see refused), so that the HTTP API answers every error one
// way, with lane.ErrorFor, while callers still tell them apart with
// errors.Is.
var (
	ErrLaneName = errors.New("lobby: invalid lane name")
	ErrFull     = errors.New("lobby: full")
	ErrClosed   = errors.New("lobby: closed")
	// ErrUnavailable: the journal did not store a new lane's opening, or
	// a lane could not be read back (the peers' error: a cluster's node
	// tells it from another lane's).
	ErrUnavailable = peers.ErrUnavailable

	// ErrAddrLimit: a client address holds all the connections or lanes
	// it may (see Lobby.CreateFor).
	ErrAddrLimit = errors.New("lobby: limit per client address")
	// errRefusing: an address over its connection limit with its
	// refusals in flight already.
	errRefusing = errors.New("lobby: refusals per client address")
)

// A Refusal is one reason the lobby turns a request away, on its HTTP API
// or its WebSocket endpoint. Its entry in refusals is what the client is
// told: the only place the lobby's words to clients are written. Those
// that lobby/api tells its clients itself are exported; the others come
// to it wrapped in the lobby's errors.
type Refusal uint8

// The lobby's refusals. Those of the rates per client address end with
// the seconds to wait, which whoever tells them adds to their arguments
// (lobby/api's tooMany, or Admit).
const (
	// The API's requests.
	RefuseNoAPI       Refusal = iota // method, path
	RefuseNoScorecard                // method, path
	RefuseNotJSON
	RefuseTooLarge      // the limit in bytes
	RefuseBadBody       // an example of a body, what is wrong
	RefuseBadBodyShape  // an example of a body
	refuseStoreDown     // /healthz
	RefuseExportsBusy   // every export's turn taken
	RefuseListLimit     // limit given
	RefuseListAfter     // after given
	RefusePageLimit     // the most, limit given
	RefuseHistoryBefore // before given
	refuseLeagueAfter   // the most, after given
	RefuseBadWeek       // week given

	// Lanes.
	refuseLaneName          // why the name is no title
	refuseLanesServer       // the server's limit
	refuseLanesAddr         // the address's limit
	RefuseLanesAddrOpen     // the address's limit, the idle timeout, seconds to wait
	refuseNotStored         // a lane's opening not stored
	refuseLaneNotFound      // id
	refuseLaneNotKept       // the lane, why
	refuseLaneUnreached     // id
	RefuseNoGame            // id, the game asked for
	refuseShuttingDown      //
	RefuseCreationsFast     // seconds to wait
	RefuseExportsFast       // seconds to wait
	RefuseLaneGamesFast     // seconds to wait
	RefuseQRCodesFast       // seconds to wait
	refuseConnsServer       // the server's limit
	refuseConnsAddr         // the address's limit
	refuseConnsAddrRefusing // the address's limit
	refuseRefusalsInFlight  // seconds to wait: the plain 429 past the refusals in flight
	refuseConnsLaneAddr     // the address's limit on one lane

	// Bowlers.
	RefuseBowlerKeyMissing
	RefuseBowlerUnknown
	RefuseBowlerDeleted
	RefuseNoBowlers
	RefuseBowlersDown
	RefuseBowlerGuesses // seconds to wait
	RefuseCodeQR
	RefuseTooManyCodes // codes live at once, minutes a code lives
	RefuseCodeUnknown

	// Leagues.
	refuseLeagueContended
	refuseLeaguesDown
	RefuseLeaguesFast // seconds to wait
	refuseNotSecretary
	RefuseSecretaryKeyMissing
	RefuseKeyGuesses // seconds to wait

	// A lane's socket's joins, per client address.
	RefuseJoins      // seconds to wait
	RefuseNewBowlers // bowlers a day, seconds to wait

	// A league night's and a correction's, wrapping the league's and the
	// rules' sentinels.
	refuseSubstituteName // the bowler substituted for
	refuseSubstitutes    // the bowler substituted for, the two substitutes
	refuseFixNoLanes     // the week
	refuseFixLaneGone    // the bowler, the week, the lane
	refuseFixNotBowled   // the bowler, the game, the week, the lane
	refuseFixInPlay      // the bowler, the game, the week
	refuseFixNotBowler   // the bowler, the game, the week, the lane

	// A secretary's command on a night's lane.
	RefuseBadMatch       // match given
	refuseNightNotOpen   // the week
	refuseNoMatch        // the week, the match, the week's matches
	refuseMatchLaneGone  // the match, the week, the lane
	refuseMatchLaneThere // the match, the week, the lane
	refuseNoPlace        // the type of command

	numRefusals
)

// refusals are the lobby's words to clients, by refusal: the code, the
// text (a format for the refusal's arguments, listed above) and, for the
// refusals its callers tell apart, the lobby's sentinel error (see
// refused). Keep their wording: pages and clients show them, and tests
// pin them (TestRefusalTexts).
var refusals = [numRefusals]struct {
	code protocol.Code
	text string
	err  error
}{
	RefuseNoAPI:         {protocol.CodeNotFound, "no API at %s %s", nil},
	RefuseNoScorecard:   {protocol.CodeNotFound, "no API at %s %s: a game's scorecard is games/{n}.svg, n from 1", nil},
	RefuseNotJSON:       {protocol.CodeUnsupportedMediaType, "send the body as JSON, with Content-Type: application/json", nil},
	RefuseTooLarge:      {protocol.CodeTooLarge, "the body is over %d bytes", nil},
	RefuseBadBody:       {protocol.CodeBadRequest, "the body must be one JSON object like %s: %s", nil},
	RefuseBadBodyShape:  {protocol.CodeBadRequest, "the body must be one JSON object like %s", nil},
	refuseStoreDown:     {protocol.CodeUnavailable, "the store does not take writes", nil},
	RefuseExportsBusy:   {protocol.CodeUnavailable, "the server is answering other exports; try again in a moment", nil},
	RefuseListLimit:     {protocol.CodeBadRequest, "limit %q: want a whole number of lanes from 1 to %d", nil},
	RefuseListAfter:     {protocol.CodeBadRequest, "after %q: no such lane is listed, or closed lately; list again from the first page, without after", nil},
	RefusePageLimit:     {protocol.CodeBadRequest, "limit is a number from 1 to %d, not %q", nil},
	RefuseHistoryBefore: {protocol.CodeBadRequest, "before is a page's next, not %q", nil},
	refuseLeagueAfter:   {protocol.CodeBadRequest, "after is a record's number, 0 to %d, not %q", nil},
	RefuseBadWeek:       {protocol.CodeBadRequest, "a week is a number from 1, not %q", nil},

	refuseLaneName:          {protocol.CodeInvalidLaneName, "the lane's name: %v", ErrLaneName},
	refuseLanesServer:       {protocol.CodeTooManyLanes, "the server holds %d lanes, its limit", ErrFull},
	refuseLanesAddr:         {protocol.CodeRateLimited, "%d lanes created from this address are open, its limit", ErrAddrLimit},
	RefuseLanesAddrOpen:     {protocol.CodeRateLimited, "this address has %d lanes open, its limit; a lane closes once nobody has been on it for %v; try again in %d s", nil},
	refuseNotStored:         {protocol.CodeUnavailable, "the new lane could not be stored in time; try again", ErrUnavailable},
	refuseLaneNotFound:      {protocol.CodeLaneNotFound, "no lane %q: it may have closed", nil},
	refuseLaneNotKept:       {protocol.CodeStorageFull, "lane %q closed, and its night was not kept: %s", ErrNoLane},
	refuseLaneUnreached:     {protocol.CodeUnavailable, "lane %q cannot be reached now; try again in a moment", nil},
	RefuseNoGame:            {protocol.CodeNotFound, "lane %q has no game %s yet", nil},
	refuseShuttingDown:      {protocol.CodeShuttingDown, "the server is shutting down", ErrClosed},
	RefuseCreationsFast:     {protocol.CodeRateLimited, "this address has created lanes too fast; try again in %d s", nil},
	RefuseExportsFast:       {protocol.CodeRateLimited, "this address has asked for exports too fast; try again in %d s", nil},
	RefuseLaneGamesFast:     {protocol.CodeRateLimited, "this address has asked for a lane's games too fast; try again in %d s", nil},
	RefuseQRCodesFast:       {protocol.CodeRateLimited, "this address has asked for new QR codes too fast; try again in %d s", nil},
	refuseConnsServer:       {protocol.CodeTooManyConnections, "the server holds %d connections, its limit", ErrFull},
	refuseConnsAddr:         {protocol.CodeRateLimited, "this address has %d WebSocket connections open, its limit; try again later", ErrAddrLimit},
	refuseConnsAddrRefusing: {protocol.CodeRateLimited, "this address has %d WebSocket connections open, its limit, and is being refused more", errRefusing},
	refuseRefusalsInFlight:  {protocol.CodeRateLimited, "this address has its WebSocket connections open, and more being refused; try again in %d s", nil},
	refuseConnsLaneAddr:     {protocol.CodeRateLimited, "this address has %d connections on this lane, its limit; try again later", nil},

	RefuseBowlerKeyMissing: {protocol.CodeUnknownBowler, `send the bowler's key as the header "Authorization: Bowler <key>"`, nil},
	RefuseBowlerUnknown:    {protocol.CodeUnknownBowler, "no bowler has that key or link: it was revoked, or its bowler deleted their history", nil},
	RefuseBowlerDeleted:    {protocol.CodeUnknownBowler, "that bowler was deleted meanwhile", nil},
	RefuseNoBowlers:        {protocol.CodeNotFound, "this server keeps no bowlers", nil},
	RefuseBowlersDown:      {protocol.CodeUnavailable, "the bowlers' store does not answer; try again in a moment", nil},
	RefuseBowlerGuesses:    {protocol.CodeRateLimited, "this address has tried too many unknown bowler keys, codes or links; try again in %d s", nil},
	RefuseCodeQR:           {protocol.CodeInternal, "the code's QR code could not be drawn", nil},
	RefuseTooManyCodes:     {protocol.CodeRateLimited, "%d codes made in the last minutes are not used yet: use one, or wait until they expire (after %d minutes)", nil},
	RefuseCodeUnknown:      {protocol.CodeInvalidCode, "that code is unknown, used already or expired: ask the other device for a new one", nil},

	refuseLeagueContended:     {protocol.CodeUnavailable, "the league was changed meanwhile, again and again; try again", nil},
	refuseLeaguesDown:         {protocol.CodeUnavailable, "the leagues' store does not answer; try again in a moment", nil},
	RefuseLeaguesFast:         {protocol.CodeRateLimited, "this address has created leagues too fast; try again in %d s", nil},
	refuseNotSecretary:        {protocol.CodeNotSecretary, "that key is not this league's secretary's", nil},
	RefuseSecretaryKeyMissing: {protocol.CodeSecretaryRequired, `send the league secretary's key as the header "Authorization: Secretary <key>"`, nil},
	RefuseKeyGuesses:          {protocol.CodeRateLimited, "this address has tried too many wrong keys; try again in %d s", nil},

	RefuseJoins:      {protocol.CodeRateLimited, "this address has joined lanes too often; try again in %d s", nil},
	RefuseNewBowlers: {protocol.CodeRateLimited, "this address has asked to be remembered %d times today, its limit: join without \u201cremember me\u201d, or try again in %d s", nil},

	refuseSubstituteName: {protocol.CodeInvalidNight, "the substitute for %q has no name", league.ErrInvalidNight},
	refuseSubstitutes:    {protocol.CodeInvalidNight, "%q has two substitutes, %q and %q: one place, one bowler", league.ErrInvalidNight},
	refuseFixNoLanes:     {protocol.CodeInvalidCorrection, "week %d's night kept no lanes", bowling.ErrInvalidCorrection},
	refuseFixLaneGone:    {protocol.CodeInvalidCorrection, "the lane of %q's match in week %d (%s) is no longer kept, nor its balls: correct the game's score instead", bowling.ErrInvalidCorrection},
	refuseFixNotBowled:   {protocol.CodeInvalidCorrection, "%q's game %d of week %d was not bowled on its lane (%s): correct its score instead", bowling.ErrInvalidCorrection},
	refuseFixInPlay:      {protocol.CodeInvalidCorrection, "%q's game %d of week %d is in play: correct the ball on its lane (POST …/weeks/{n}/matches/{m}/correct, or Tonight on a lane)", bowling.ErrInvalidCorrection},
	refuseFixNotBowler:   {protocol.CodeInvalidCorrection, "%q did not bowl game %d of week %d on its lane (%s): correct its score instead", bowling.ErrInvalidCorrection},

	RefuseBadMatch:       {protocol.CodeBadRequest, "a match is a number from 1, not %q", nil},
	refuseNightNotOpen:   {protocol.CodeWrongWeek, "week %d's night is not open: its lanes take no command", league.ErrWeek},
	refuseNoMatch:        {protocol.CodeLaneNotFound, "week %d's night has no match %d: its matches are 1 to %d", ErrNoLane},
	refuseMatchLaneGone:  {protocol.CodeLaneNotFound, "the lane of match %d of week %d (%s) has closed", ErrNoLane},
	refuseMatchLaneThere: {protocol.CodeUnavailable, "the lane of match %d of week %d (%s) cannot be reached now; try again in a moment", ErrUnavailable},
	refuseNoPlace:        {protocol.CodeBadRequest, `a secretary's %s names the place: "name"`, nil},
}

// Error returns what the client is told for the refusal, with its
// arguments.
func (r Refusal) Error(args ...any) *protocol.Error {
	return protocol.Errorf(refusals[r].code, refusals[r].text, args...)
}

// refused returns the refusal r as an error: its sentinel, if it has one,
// wrapping what its client is told. A cause wrapped around it stays in the
// log: lane.ErrorFor sends only the refusal's text.
func refused(r Refusal, args ...any) error {
	pe := r.Error(args...)
	if refusals[r].err == nil {
		return pe
	}
	return fmt.Errorf("%w: %w", refusals[r].err, pe)
}

// errShuttingDown refuses what comes while the lobby closes.
var errShuttingDown = refused(refuseShuttingDown)
