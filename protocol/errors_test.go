package protocol

import (
	"net/http"
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
