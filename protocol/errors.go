package protocol

import (
	"fmt"
	"net/http"
)

// Code is a machine-readable reason a message was refused.
type Code string

// The error codes. Every refused message is answered with exactly one of
// these; the connection stays open and nothing changes.
const (
	CodeBadMessage         Code = "bad_message"         // not JSON, wrong field types, missing or extra fields, a binary frame, too large
	CodeUnknownType        Code = "unknown_type"        // a "type" the server does not know
	CodeInvalidName        Code = "invalid_name"        // a name that is not 1–12 letters of a script, or has digits, emoji or invisible characters
	CodeNameTaken          Code = "name_taken"          // a name already seated on the lane
	CodeLaneFull           Code = "lane_full"           // every seat is taken
	CodeGameStarted        Code = "game_started"        // start once the game has started; join once it is over, before the rematch
	CodeNotPlaying         Code = "not_playing"         // roll when no game is in play
	CodeNotYourTurn        Code = "not_your_turn"       // roll by a player who is not up
	CodeStaleRoll          Code = "stale_roll"          // roll for a ball that is not the one up: late, ahead, or a ball bowled with other pins
	CodeNotHost            Code = "not_host"            // start or rematch from a player who is not the host
	CodeInvalidPins        Code = "invalid_pins"        // pins below 0, above 10 or above those standing; a deck that cannot be
	CodeBadToken           Code = "bad_token"           // resume with a token that holds no seat here
	CodeNotSeated          Code = "not_seated"          // start, roll, leave or rematch from a spectator
	CodeAlreadySeated      Code = "already_seated"      // join or resume from a connection that holds a seat
	CodeNotFinished        Code = "not_finished"        // rematch before the game is over
	CodeRateLimited        Code = "rate_limited"        // too many messages too fast
	CodeSpectatorsFull     Code = "spectators_full"     // the lane has all the watchers it takes
	CodeLaneClosed         Code = "lane_closed"         // the lane has closed
	CodeInternal           Code = "internal"            // the server failed; the lane is closed
	CodeUnavailable        Code = "unavailable"         // the store did not take the command in time: nothing changed, try again
	CodeStorageFull        Code = "storage_full"        // the server's budget for that kind of data (lanes, kept nights, bowlers, leagues) is full: nothing was stored, and trying again will not help until room is made
	CodeInvalidCorrection  Code = "invalid_correction"  // a correction that no game could have: nothing changed
	CodeNotAway            Code = "not_away"            // skip while the player up is connected, or offline for less than the away time
	CodeUnknownBowler      Code = "unknown_bowler"      // a bowler key that is unknown, revoked or deleted: join as a guest, or start a new history
	CodeCreatorAway        Code = "creator_away"        // start (or another host's command) on a lane that waits for its creator, who holds its host key
	CodeNotOnRoster        Code = "not_on_roster"       // on a league night's lane: a join under a name none of its places has, a rematch, a readmission, a seat freed
	CodeInvitationRequired Code = "invitation_required" // a join without the lane's invitation, or with another (replaced, another lane's): the connection stays a spectator
	CodeNotYourTeam        Code = "not_your_team"       // on a league night's lane: a join under a place of the other team than the invitation's; a roll or a correction of a ball of the other team's

	// Notices: not answers to a message, but why the connection is about
	// to close.
	CodeServerRestarting Code = "server_restarting" // the server is stopping and will be back: reconnect and resume
	CodeSeatTakenOver    Code = "seat_taken_over"   // another connection resumed this connection's seat: it is a spectator now
	CodeRemoved          Code = "removed"           // the host removed this connection's player from the lane: it is a spectator now; or a join under a name the host removed
	CodeLaneIdle         Code = "lane_idle"         // the lane closed after nobody was on it for its idle time: it is gone

	// The HTTP API's refusals, sent with the status of [Code.Status] as
	// an Error: {"type":"error","code":…,"message":…}. The API also
	// answers rate_limited (429), unavailable (503) and internal (500).
	CodeBadRequest           Code = "bad_request"            // a body that is not one JSON object of the right fields, or a bad query
	CodeNotFound             Code = "not_found"              // no API at that method and path
	CodeLaneNotFound         Code = "lane_not_found"         // no lane of that id: it may have closed
	CodeTooLarge             Code = "too_large"              // a body over the limit
	CodeUnsupportedMediaType Code = "unsupported_media_type" // a POST body not sent as application/json
	CodeInvalidLaneName      Code = "invalid_lane_name"      // a lane name that is empty, too long, or has control characters
	CodeTooManyLanes         Code = "too_many_lanes"         // the server holds all the lanes it may
	CodeTooManyConnections   Code = "too_many_connections"   // the server holds all the connections it may
	CodeShuttingDown         Code = "shutting_down"          // the server is stopping
	CodeHostNotAllowed       Code = "host_not_allowed"       // a Host name the server does not answer to (a guard against DNS rebinding)
	CodeInvalidCode          Code = "invalid_code"           // a one-time code that is unknown or expired
	CodeCodeUsed             Code = "code_used"              // a one-time code that linked a device already: it links one, once

	// A league's refusals (see CreateLeague).
	CodeInvalidLeague      Code = "invalid_league"       // impossible settings: an odd number of teams, a percent outside 0–100, a negative basis, an empty team, a name twice; the message says which
	CodeLeagueNotFound     Code = "league_not_found"     // no league of that id
	CodeSecretaryRequired  Code = "secretary_required"   // a secretary's request without "Authorization: Secretary <key>"
	CodeNotSecretary       Code = "not_secretary"        // a key that is not the league's secretary's
	CodeWrongWeek          Code = "wrong_week"           // a night opened out of turn (the week before not closed, one open already, the season over), or a week whose night is not open
	CodeInvalidNight       Code = "invalid_night"        // an opening with a bowler absent twice, or a substitute the night cannot take
	CodeInvalidScore       Code = "invalid_score"        // a score outside 0–300, of a game the night does not have, for an absent bowler, or for nobody of the league or the night
	CodeNightIncomplete    Code = "night_incomplete"     // closing a night with games still to score
	CodeTooManyCorrections Code = "too_many_corrections" // a correction of a game corrected 30 times already (league.MaxCorrections)
)

// Error is the refusal of a client message, sent as
// {"type":"error","code":…,"message":…,"ref":…}. It is also the Go error the
// server's packages return for a refusal.
type Error struct {
	Type    Type   `json:"type"` // "error"
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Ref     string `json:"ref,omitempty"`
}

// Errorf returns an *Error with the given code and message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Type: TypeError, Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// The WebSocket close statuses (RFC 6455, section 7.4.1) a connection is
// closed with for a code. protocol speaks no WebSocket library: a
// transport converts the number to its own type.
const (
	closeGoingAway     = 1001 // the lane, or the server, went away: reconnect
	closeInternalError = 1011 // the lane failed
	closeTryAgainLater = 1013 // a limit: come back later, with backoff
)

// saying is what the server says with one code on each of its
// transports.
type saying struct {
	status    int    // the HTTP status of an API refusal with the code (400 for a lane's, should one ever answer a request)
	close     int    // the WebSocket close status where a connection closes for the code; 0 where none does
	closeText string // the close frame's reason where the code alone would not do: the words a page shows as its connection's state
	text      string // the English words for the code where the server has no better ones of its own
}

// codes is the one table of what the server can say: every code, with its
// HTTP status, its WebSocket close status where a connection closes for
// it, the close frame's reason and the code's own words where it has them.
// Every Code above has its row (TestCodes). The texts of the refusals the
// server makes itself are in refusals, below; the domain's errors are
// given their codes in one place too, lane's ErrorFor.
var codes = map[Code]saying{
	CodeBadMessage:         {http.StatusBadRequest, 0, "", ""},
	CodeUnknownType:        {http.StatusBadRequest, 0, "", ""},
	CodeInvalidName:        {http.StatusBadRequest, 0, "", ""},
	CodeNameTaken:          {http.StatusBadRequest, 0, "", ""},
	CodeLaneFull:           {http.StatusBadRequest, closeTryAgainLater, "", ""},
	CodeGameStarted:        {http.StatusBadRequest, 0, "", ""},
	CodeNotPlaying:         {http.StatusBadRequest, 0, "", ""},
	CodeNotYourTurn:        {http.StatusBadRequest, 0, "", ""},
	CodeStaleRoll:          {http.StatusBadRequest, 0, "", ""},
	CodeNotHost:            {http.StatusBadRequest, 0, "", ""},
	CodeInvalidPins:        {http.StatusBadRequest, 0, "", ""},
	CodeBadToken:           {http.StatusBadRequest, 0, "", ""},
	CodeNotSeated:          {http.StatusBadRequest, 0, "", ""},
	CodeAlreadySeated:      {http.StatusBadRequest, 0, "", ""},
	CodeNotFinished:        {http.StatusBadRequest, 0, "", ""},
	CodeRateLimited:        {http.StatusTooManyRequests, closeTryAgainLater, "too many connections from this address", ""},
	CodeSpectatorsFull:     {http.StatusBadRequest, closeTryAgainLater, "lane full", ""},
	CodeLaneClosed:         {http.StatusBadRequest, closeGoingAway, "lane closed", ""},
	CodeInternal:           {http.StatusInternalServerError, closeInternalError, "", "the server could not handle that"},
	CodeUnavailable:        {http.StatusServiceUnavailable, 0, "", ""},
	CodeStorageFull:        {http.StatusInsufficientStorage, 0, "", ""},
	CodeInvalidCorrection:  {http.StatusBadRequest, 0, "", ""},
	CodeNotAway:            {http.StatusBadRequest, 0, "", ""},
	CodeUnknownBowler:      {http.StatusUnauthorized, 0, "", ""},
	CodeCreatorAway:        {http.StatusBadRequest, 0, "", ""},
	CodeNotOnRoster:        {http.StatusBadRequest, 0, "", ""},
	CodeInvitationRequired: {http.StatusBadRequest, 0, "", ""},
	CodeNotYourTeam:        {http.StatusBadRequest, 0, "", ""},

	CodeServerRestarting: {http.StatusBadRequest, closeGoingAway, "", ""},
	CodeSeatTakenOver:    {http.StatusBadRequest, 0, "", ""},
	CodeRemoved:          {http.StatusBadRequest, 0, "", ""},
	CodeLaneIdle:         {http.StatusBadRequest, closeGoingAway, "", ""},

	CodeBadRequest:           {http.StatusBadRequest, 0, "", ""},
	CodeNotFound:             {http.StatusNotFound, 0, "", ""},
	CodeLaneNotFound:         {http.StatusNotFound, 0, "", ""},
	CodeTooLarge:             {http.StatusRequestEntityTooLarge, 0, "", ""},
	CodeUnsupportedMediaType: {http.StatusUnsupportedMediaType, 0, "", ""},
	CodeInvalidLaneName:      {http.StatusBadRequest, 0, "", ""},
	CodeTooManyLanes:         {http.StatusServiceUnavailable, 0, "", ""},
	CodeTooManyConnections:   {http.StatusServiceUnavailable, closeTryAgainLater, "", ""},
	CodeShuttingDown:         {http.StatusServiceUnavailable, 0, "", ""},
	CodeHostNotAllowed:       {http.StatusMisdirectedRequest, 0, "", ""},
	CodeInvalidCode:          {http.StatusBadRequest, 0, "", ""},
	CodeCodeUsed:             {http.StatusGone, 0, "", ""},

	CodeInvalidLeague:      {http.StatusBadRequest, 0, "", ""},
	CodeLeagueNotFound:     {http.StatusNotFound, 0, "", "no such league: check its link"},
	CodeSecretaryRequired:  {http.StatusUnauthorized, 0, "", ""},
	CodeNotSecretary:       {http.StatusForbidden, 0, "", ""},
	CodeWrongWeek:          {http.StatusConflict, 0, "", ""},
	CodeInvalidNight:       {http.StatusBadRequest, 0, "", ""},
	CodeInvalidScore:       {http.StatusBadRequest, 0, "", ""},
	CodeNightIncomplete:    {http.StatusConflict, 0, "", ""},
	CodeTooManyCorrections: {http.StatusConflict, 0, "", ""},
}

// Status returns the HTTP status an API refusal with this code is sent
// with: 400 for a code the table does not know.
func (c Code) Status() int {
	if s := codes[c].status; s != 0 {
		return s
	}
	return http.StatusBadRequest
}

// CloseStatus returns the WebSocket close status (RFC 6455) a connection
// closed for this code is sent: 1011 internal error for a lane that
// failed, 1013 try again later for a limit, where waiting helps, and 1001
// going away for any other code, the lane or the server gone. The page
// and the clients reconnect after any of them.
func (c Code) CloseStatus() int {
	if s := codes[c].close; s != 0 {
		return s
	}
	return closeGoingAway
}

// CloseText returns the reason a connection closed for this code is
// given in its close frame: the table's words, or the code itself where
// it says it alone.
func (c Code) CloseText() string {
	if t := codes[c].closeText; t != "" {
		return t
	}
	return string(c)
}

// Text returns the code's own English words, "" if it has none: what a
// client is told where the server has no better words, as for an error
// whose text is the server's own.
func (c Code) Text() string { return codes[c].text }

// A Refusal is one thing the server says to a client of its own, on its
// HTTP API or a WebSocket: mostly a reason it turns a request or a
// message away (a limit, a store that does not answer, a request that
// names nothing), for a few what became of the connection's seat. Its
// entry in refusals is what the client is told: with the codes' table
// above and the notices below, the one place where the server's words to
// clients are written. The domain's errors carry their own words (see
// lane's ErrorFor).
type Refusal uint8

// The server's refusals, in the words of refusals below; the comment of
// each lists its arguments. Those of the rates per client address end
// with the seconds to wait, which whoever tells them adds to their
// arguments (lobby/api's tooMany, or the lobby's Admit).
const (
	// The API's requests.
	RefuseNoAPI       Refusal = iota // method, path
	RefuseNoScorecard                // method, path
	RefuseNotJSON
	RefuseTooLarge      // the limit in bytes
	RefuseBadBody       // an example of a body, what is wrong
	RefuseBadBodyShape  // an example of a body
	RefuseStoreDown     // /healthz
	RefuseExportsBusy   // every export's turn taken
	RefuseListLimit     // limit given
	RefuseListAfter     // after given
	RefusePageLimit     // the most, limit given
	RefuseHistoryBefore // before given
	RefuseLeagueAfter   // the most, after given
	RefuseBadWeek       // week given
	RefuseNotInvitation // the header
	RefuseHostName      // the name (twice)

	// Lanes.
	RefuseLaneName      // why the name is no title
	RefuseLanesServer   // the server's limit
	RefuseLanesAddr     // the address's limit
	RefuseLanesAddrOpen // the address's limit, the idle timeout, seconds to wait
	RefuseNotStored     // a lane's opening not stored
	RefuseLaneNotFound  // id
	RefuseLaneNotKept   // the lane, why
	RefuseLaneUnreached // id
	RefuseNoGame        // id, the game asked for
	RefuseShuttingDown
	RefuseCreationsFast     // seconds to wait
	RefuseExportsFast       // seconds to wait
	RefuseLaneGamesFast     // seconds to wait
	RefuseQRCodesFast       // seconds to wait
	RefuseConnsServer       // the server's limit
	RefuseConnsAddr         // the address's limit
	RefuseConnsAddrRefusing // the address's limit
	RefuseRefusalsInFlight  // seconds to wait: the plain 429 past the refusals in flight
	RefuseConnsLaneAddr     // the address's limit on one lane

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
	RefuseCodeUsed

	// Leagues.
	RefuseLeagueContended
	RefuseLeaguesDown
	RefuseLeaguesFast // seconds to wait
	RefuseNotSecretary
	RefuseSecretaryKeyMissing
	RefuseKeyGuesses // seconds to wait

	// A lane's socket's joins, per client address.
	RefuseJoins      // seconds to wait
	RefuseNewBowlers // bowlers a day, seconds to wait

	// A league night's and a correction's, wrapping the league's and the
	// rules' sentinels.
	RefuseSubstituteName // the bowler substituted for
	RefuseSubstitutes    // the bowler substituted for, the two substitutes
	RefuseFixNoLanes     // the week
	RefuseFixLaneGone    // the bowler, the week, the lane
	RefuseFixNotBowled   // the bowler, the game, the week, the lane
	RefuseFixInPlay      // the bowler, the game, the week
	RefuseFixNotBowler   // the bowler, the game, the week, the lane

	// A secretary's command on a night's lane.
	RefuseBadMatch       // match given
	RefuseNightNotOpen   // the week
	RefuseNoMatch        // the week, the match, the week's matches
	RefuseMatchLaneGone  // the match, the week, the lane
	RefuseMatchLaneThere // the match, the week, the lane
	RefuseNoPlace        // the type of command
	RefuseNoPins         // the type of command
	RefuseDeckSize       // the pins named, the pins of a lane

	// A lane's messages, on its own node or relayed.
	RefuseStoreLate
	RefuseLogUnread
	RefuseBusy
	RefuseHoldsSeat    // the seat's name
	RefuseBowlerSeated // the seat's name
	RefuseNotSeated    // the message's type
	RefuseBowlerKey
	RefuseBadToken
	RefuseSpectatorsFull // the lane's watchers
	RefuseNoFrameBall    // the message's type
	RefuseSecretaryType  // the message's type
	RefuseJoinsPending   // the joins not answered
	RefuseMessagesFast   // the messages a second
	RefuseBinary
	RefusePlainSecret
	RefuseNotRelayed // why
	RefuseRelayed    // the message's type, why
	RefuseRelayedInvite

	// Told a connection, not answers to its messages: it is a spectator
	// now.
	RefuseTakenOver  // the seat's name
	RefusePlaceGiven // the player
	RefuseRemovedBy  // the host, the player

	numRefusals
)

// refusals are the server's words to clients, by refusal: the code and
// the text, a format for the refusal's arguments (listed above). Keep
// their wording: pages and clients show them, and tests pin them
// (TestRefusalTexts). Where a refusal stands for a domain's or the
// lobby's sentinel error, the lobby wraps it in that error (lobby's
// refused), so that its callers tell them apart with errors.Is.
var refusals = [numRefusals]struct {
	code Code
	text string
}{
	RefuseNoAPI:         {CodeNotFound, "no API at %s %s"},
	RefuseNoScorecard:   {CodeNotFound, "no API at %s %s: a game's scorecard is games/{n}.svg, n from 1"},
	RefuseNotJSON:       {CodeUnsupportedMediaType, "send the body as JSON, with Content-Type: application/json"},
	RefuseTooLarge:      {CodeTooLarge, "the body is over %d bytes"},
	RefuseBadBody:       {CodeBadRequest, "the body must be one JSON object like %s: %s"},
	RefuseBadBodyShape:  {CodeBadRequest, "the body must be one JSON object like %s"},
	RefuseStoreDown:     {CodeUnavailable, "the store does not take writes"},
	RefuseExportsBusy:   {CodeUnavailable, "the server is answering other exports; try again in a moment"},
	RefuseListLimit:     {CodeBadRequest, "limit %q: want a whole number of lanes from 1 to %d"},
	RefuseListAfter:     {CodeBadRequest, "after %q: no such lane is listed, or closed lately; list again from the first page, without after"},
	RefusePageLimit:     {CodeBadRequest, "limit is a number from 1 to %d, not %q"},
	RefuseHistoryBefore: {CodeBadRequest, "before is a page's next, not %q"},
	RefuseLeagueAfter:   {CodeBadRequest, "after is a record's number, 0 to %d, not %q"},
	RefuseBadWeek:       {CodeBadRequest, "a week is a number from 1, not %q"},
	RefuseNotInvitation: {CodeBadRequest, "%s is not an invitation: 26 letters A–Z and digits 2–7"},
	RefuseHostName:      {CodeHostNotAllowed, "this server does not answer to the name %q (the Host header), a guard against DNS rebinding: start it with -host %s to allow that name"},

	RefuseLaneName:          {CodeInvalidLaneName, "the lane's name: %v"},
	RefuseLanesServer:       {CodeTooManyLanes, "the server holds %d lanes, its limit"},
	RefuseLanesAddr:         {CodeRateLimited, "%d lanes created from this address are open, its limit"},
	RefuseLanesAddrOpen:     {CodeRateLimited, "this address has %d lanes open, its limit; a lane closes once nobody has been on it for %v; try again in %d s"},
	RefuseNotStored:         {CodeUnavailable, "the new lane could not be stored in time; try again"},
	RefuseLaneNotFound:      {CodeLaneNotFound, "no lane %q: it may have closed"},
	RefuseLaneNotKept:       {CodeStorageFull, "lane %q closed, and its night was not kept: %s"},
	RefuseLaneUnreached:     {CodeUnavailable, "lane %q cannot be reached now; try again in a moment"},
	RefuseNoGame:            {CodeNotFound, "lane %q has no game %s yet"},
	RefuseShuttingDown:      {CodeShuttingDown, "the server is shutting down"},
	RefuseCreationsFast:     {CodeRateLimited, "this address has created lanes too fast; try again in %d s"},
	RefuseExportsFast:       {CodeRateLimited, "this address has asked for exports too fast; try again in %d s"},
	RefuseLaneGamesFast:     {CodeRateLimited, "this address has asked for a lane's games too fast; try again in %d s"},
	RefuseQRCodesFast:       {CodeRateLimited, "this address has asked for new QR codes too fast; try again in %d s"},
	RefuseConnsServer:       {CodeTooManyConnections, "the server holds %d connections, its limit"},
	RefuseConnsAddr:         {CodeRateLimited, "this address has %d WebSocket connections open, its limit; try again later"},
	RefuseConnsAddrRefusing: {CodeRateLimited, "this address has %d WebSocket connections open, its limit, and is being refused more"},
	RefuseRefusalsInFlight:  {CodeRateLimited, "this address has its WebSocket connections open, and more being refused; try again in %d s"},
	RefuseConnsLaneAddr:     {CodeRateLimited, "this address has %d connections on this lane, its limit; try again later"},

	RefuseBowlerKeyMissing: {CodeUnknownBowler, `send the bowler's key as the header "Authorization: Bowler <key>"`},
	RefuseBowlerUnknown:    {CodeUnknownBowler, "no bowler has that key or link: it was revoked, or its bowler deleted their history"},
	RefuseBowlerDeleted:    {CodeUnknownBowler, "that bowler was deleted meanwhile"},
	RefuseNoBowlers:        {CodeNotFound, "this server keeps no bowlers"},
	RefuseBowlersDown:      {CodeUnavailable, "the bowlers' store does not answer; try again in a moment"},
	RefuseBowlerGuesses:    {CodeRateLimited, "this address has tried too many unknown bowler keys, codes or links; try again in %d s"},
	RefuseCodeQR:           {CodeInternal, "the code's QR code could not be drawn"},
	RefuseTooManyCodes:     {CodeRateLimited, "%d codes made in the last minutes are not used yet: use one, or wait until they expire (after %d minutes)"},
	RefuseCodeUnknown:      {CodeInvalidCode, "that code is unknown or expired: ask the other device for a new one"},
	RefuseCodeUsed:         {CodeCodeUsed, "that code was used already: a code links one device, once; ask the other device for a new one"},

	RefuseLeagueContended:     {CodeUnavailable, "the league was changed meanwhile, again and again; try again"},
	RefuseLeaguesDown:         {CodeUnavailable, "the leagues' store does not answer; try again in a moment"},
	RefuseLeaguesFast:         {CodeRateLimited, "this address has created leagues too fast; try again in %d s"},
	RefuseNotSecretary:        {CodeNotSecretary, "that key is not this league's secretary's"},
	RefuseSecretaryKeyMissing: {CodeSecretaryRequired, `send the league secretary's key as the header "Authorization: Secretary <key>"`},
	RefuseKeyGuesses:          {CodeRateLimited, "this address has tried too many wrong keys; try again in %d s"},

	RefuseJoins:      {CodeRateLimited, "this address has joined lanes too often; try again in %d s"},
	RefuseNewBowlers: {CodeRateLimited, "this address has asked to be remembered %d times today, its limit: join without \u201cremember me\u201d, or try again in %d s"},

	RefuseSubstituteName: {CodeInvalidNight, "the substitute for %q has no name"},
	RefuseSubstitutes:    {CodeInvalidNight, "%q has two substitutes, %q and %q: one place, one bowler"},
	RefuseFixNoLanes:     {CodeInvalidCorrection, "week %d's night kept no lanes"},
	RefuseFixLaneGone:    {CodeInvalidCorrection, "the lane of %q's match in week %d (%s) is no longer kept, nor its balls: correct the game's score instead"},
	RefuseFixNotBowled:   {CodeInvalidCorrection, "%q's game %d of week %d was not bowled on its lane (%s): correct its score instead"},
	RefuseFixInPlay:      {CodeInvalidCorrection, "%q's game %d of week %d is in play: correct the ball on its lane (POST …/weeks/{n}/matches/{m}/correct, or Tonight on a lane)"},
	RefuseFixNotBowler:   {CodeInvalidCorrection, "%q did not bowl game %d of week %d on its lane (%s): correct its score instead"},

	RefuseBadMatch:       {CodeBadRequest, "a match is a number from 1, not %q"},
	RefuseNightNotOpen:   {CodeWrongWeek, "week %d's night is not open: its lanes take no command"},
	RefuseNoMatch:        {CodeLaneNotFound, "week %d's night has no match %d: its matches are 1 to %d"},
	RefuseMatchLaneGone:  {CodeLaneNotFound, "the lane of match %d of week %d (%s) has closed"},
	RefuseMatchLaneThere: {CodeUnavailable, "the lane of match %d of week %d (%s) cannot be reached now; try again in a moment"},
	RefuseNoPlace:        {CodeBadRequest, `a secretary's %s names the place: "name"`},
	RefuseNoPins:         {CodeBadRequest, `a secretary's %s needs "pins", "deck" or "foul"`},
	RefuseDeckSize:       {CodeBadRequest, `"deck" names %d pins; a lane has %d`},

	RefuseStoreLate:      {CodeUnavailable, "the lane could not store that in time; nothing changed, try again"},
	RefuseLogUnread:      {CodeUnavailable, "the lane could not read its log back in time; nothing changed, try again"},
	RefuseBusy:           {CodeUnavailable, "the lane is busy; nothing changed, try again"},
	RefuseHoldsSeat:      {CodeAlreadySeated, "this connection already holds %s's seat"},
	RefuseBowlerSeated:   {CodeAlreadySeated, "that bowler holds %s's seat on this lane already"},
	RefuseNotSeated:      {CodeNotSeated, "only a seated player may %s; join first"},
	RefuseBowlerKey:      {CodeUnknownBowler, "that bowler key is not known here: it was revoked, or its bowler deleted their history; join as a guest, or start a new history"},
	RefuseBadToken:       {CodeBadToken, "that token holds no seat on this lane"},
	RefuseSpectatorsFull: {CodeSpectatorsFull, "the lane has its %d watchers already"},
	RefuseNoFrameBall:    {CodeBadMessage, `%s needs "frame" and "ball"`},
	RefuseSecretaryType:  {CodeUnknownType, "a league's secretary may roll, correct, skip or remove on a lane, not %s"},
	RefuseJoinsPending:   {CodeRateLimited, "%d joins are not answered yet: wait for their answers"},
	RefuseMessagesFast:   {CodeRateLimited, "more than %g messages a second; slow down"},
	RefuseBinary:         {CodeBadMessage, "binary frames are not tenpin messages; send JSON text"},
	RefusePlainSecret:    {CodeBadMessage, "this server's relay sent the lane a join or a resume unhashed: the cluster's servers run different versions"},
	RefuseNotRelayed:     {CodeBadMessage, "not a relayed join or resume: %v"},
	RefuseRelayed:        {CodeBadMessage, "a relayed %s: %v"},
	RefuseRelayedInvite:  {CodeBadMessage, "a relayed new_invite needs its id and the invitation's hash"},

	RefuseTakenOver:  {CodeSeatTakenOver, "%s's seat was resumed by another connection"},
	RefusePlaceGiven: {CodeRemoved, "the league's secretary gave %s's place back: you are watching now"},
	RefuseRemovedBy:  {CodeRemoved, "the host, %s, removed %s from the lane: you are watching now"},
}

// Error returns what the client is told for the refusal, with its
// arguments.
func (r Refusal) Error(args ...any) *Error {
	return Errorf(refusals[r].code, refusals[r].text, args...)
}

// The notices a client is sent, with code server_restarting, as its
// connection closes while its seat stays its own: why, then what to do.
// Every node, the lane's and the relaying ones, says them one way.
const (
	NoticeRestarting  = "the server is restarting: reconnect, your seat is kept"
	NoticeMoved       = "the lane moved to another server: reconnect, your seat is kept"
	NoticeServerGone  = "the lane's server went away: reconnect, your seat is kept"
	NoticeConnLost    = "the lane lost this connection: reconnect, your seat is kept"
	NoticeStoppedHere = "the lane stopped here: reconnect, your seat is kept"
	NoticeLostBetween = "messages were lost between servers: reconnect, your seat is kept"
)

// The notices a client is sent as a lane, or a node relaying it, closes
// its connection for another reason than a restart: each with the code
// it is sent with, after its comment.
const (
	NoticeFailed       = "the lane failed and was closed"                  // internal
	NoticeShuttingDown = "the server is shutting down"                     // lane_closed, by a server that keeps nothing
	NoticeIdle         = "the lane was idle and has closed"                // lane_idle
	NoticeIdleNotKept  = NoticeIdle + "; its night was not kept: %s"       // lane_idle; a format for why, the store's words
	NoticeTokenLost    = "the seat's token was lost: join or resume again" // internal, by a relaying node
	NoticeInviteLost   = "the new invitation was lost: ask for another"    // internal, by a relaying node
)
