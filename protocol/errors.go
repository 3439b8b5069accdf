package protocol

import "fmt"

// Code is a machine-readable reason a message was refused.
type Code string

// The error codes. Every refused message is answered with exactly one of
// these; the connection stays open and nothing changes.
const (
	CodeBadMessage        Code = "bad_message"        // not JSON, wrong field types, missing or extra fields, a binary frame, too large
	CodeUnknownType       Code = "unknown_type"       // a "type" the server does not know
	CodeInvalidName       Code = "invalid_name"       // a name that is not three English letters
	CodeNameTaken         Code = "name_taken"         // a name already seated on the lane
	CodeLaneFull          Code = "lane_full"          // every seat is taken
	CodeGameStarted       Code = "game_started"       // join or start once the game has started
	CodeNotPlaying        Code = "not_playing"        // roll when no game is in play
	CodeNotYourTurn       Code = "not_your_turn"      // roll by a player who is not up
	CodeStaleRoll         Code = "stale_roll"         // roll for a ball that is not the one up: repeated, late, or ahead
	CodeNotHost           Code = "not_host"           // start or rematch from a player who is not the host
	CodeInvalidPins       Code = "invalid_pins"       // pins below 0, above 10 or above those standing
	CodeBadToken          Code = "bad_token"          // resume with a token that holds no seat here
	CodeNotSeated         Code = "not_seated"         // start, roll, leave or rematch from a spectator
	CodeAlreadySeated     Code = "already_seated"     // join or resume from a connection that holds a seat
	CodeNotFinished       Code = "not_finished"       // rematch before the game is over
	CodeRateLimited       Code = "rate_limited"       // too many messages too fast
	CodeSpectatorsFull    Code = "spectators_full"    // the lane has all the watchers it takes
	CodeLaneClosed        Code = "lane_closed"        // the lane has closed
	CodeInternal          Code = "internal"           // the server failed; the lane is closed
	CodeUnavailable       Code = "unavailable"        // the store did not take the command in time: nothing changed, try again
	CodeInvalidCorrection Code = "invalid_correction" // a correction that no game could have: nothing changed
	CodeNotAway           Code = "not_away"           // skip while the player up is connected, or offline for less than the away time

	// Notices: not answers to a message, but why the connection is about
	// to close.
	CodeServerRestarting Code = "server_restarting" // the server is stopping and will be back: reconnect and resume
	CodeSeatTakenOver    Code = "seat_taken_over"   // another connection resumed this connection's seat: it is a spectator now
	CodeRemoved          Code = "removed"           // the host removed this connection's player from the lane: it is a spectator now
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
