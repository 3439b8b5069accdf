package protocol

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/tenpin/tenpin/lane/bowling"
	"github.com/tenpin/tenpin/lane/game"
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
		{CodeInternal, http.StatusInternalServerError},
		{CodeNotYourTurn, http.StatusBadRequest}, // a lane's refusal, should one ever answer a request
	} {
		if got := tc.code.Status(); got != tc.want {
			t.Errorf("%s.Status() = %d, want %d", tc.code, got, tc.want)
		}
	}
}

func TestErrorFor(t *testing.T) {
	for _, tc := range []struct {
		err      error
		code     Code
		wantText string
	}{
		{fmt.Errorf("%w: it is BOB's turn, not PJS's", bowling.ErrNotYourTurn), CodeNotYourTurn, "it is BOB's turn, not PJS's"},
		{fmt.Errorf("%w: frame 1 ball 1 cannot be 9: …", bowling.ErrInvalidCorrection), CodeInvalidCorrection, "frame 1 ball 1 cannot be 9: …"},
		{fmt.Errorf("%w: BOB is connected", game.ErrNotAway), CodeNotAway, "BOB is connected"},
		{&bowling.RollError{Roll: 2, Pins: 9, Err: bowling.ErrTooManyPins}, CodeInvalidPins, ""},
		{Errorf(CodeSpectatorsFull, "full"), CodeSpectatorsFull, "full"},
		{errors.New("disk on fire"), CodeInternal, "the server could not handle that"},
	} {
		got := ErrorFor(tc.err)
		if got.Code != tc.code || tc.wantText != "" && got.Message != tc.wantText || got.Type != TypeError {
			t.Errorf("ErrorFor(%v) = %+v, want code %s, message %q", tc.err, got, tc.code, tc.wantText)
		}
	}
}
