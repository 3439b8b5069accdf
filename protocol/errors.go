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
	CodeInvalidCode          Code = "invalid_code"           // a one-time code that is unknown, used already or expired

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
