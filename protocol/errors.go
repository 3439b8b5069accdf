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

// statuses is the HTTP status of each code an API request may be refused
// with; any other code is a refusal of a lane's message, 400 if it ever
// answers a request.
var statuses = map[Code]int{
	CodeNotFound:             http.StatusNotFound,
	CodeLaneNotFound:         http.StatusNotFound,
	CodeTooLarge:             http.StatusRequestEntityTooLarge,
	CodeUnsupportedMediaType: http.StatusUnsupportedMediaType,
	CodeHostNotAllowed:       http.StatusMisdirectedRequest,
	CodeRateLimited:          http.StatusTooManyRequests,
	CodeTooManyLanes:         http.StatusServiceUnavailable,
	CodeTooManyConnections:   http.StatusServiceUnavailable,
	CodeShuttingDown:         http.StatusServiceUnavailable,
	CodeUnavailable:          http.StatusServiceUnavailable,
	CodeStorageFull:          http.StatusInsufficientStorage,
	CodeInternal:             http.StatusInternalServerError,
	CodeUnknownBowler:        http.StatusUnauthorized,
	CodeInvalidCode:          http.StatusBadRequest,
	CodeLeagueNotFound:       http.StatusNotFound,
	CodeSecretaryRequired:    http.StatusUnauthorized,
	CodeNotSecretary:         http.StatusForbidden,
	CodeWrongWeek:            http.StatusConflict,
	CodeNightIncomplete:      http.StatusConflict,
	CodeTooManyCorrections:   http.StatusConflict,
}

// Status returns the HTTP status an API refusal with this code is sent
// with: 400 unless the table says otherwise.
func (c Code) Status() int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return http.StatusBadRequest
}
