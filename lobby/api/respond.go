package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/tenpin/tenpin/protocol"
)

// SetHeaders sets the headers every response of the server carries,
// whatever answers it: X-Content-Type-Options: nosniff, so that no
// browser takes an answer for another type than it says (JSON for a page
// or a script), and Referrer-Policy: no-referrer, so that no lane's URL —
// its invitation — leaks to another site.
func SetHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}

// WriteError answers a request with e, with its code's HTTP status.
func WriteError(w http.ResponseWriter, e *protocol.Error) {
	data, _ := json.Marshal(e) // strings and numbers: cannot fail
	writeJSONBytes(w, e.Code.Status(), data)
}

// ReadJSON reads a request's JSON body, up to limit bytes, strictly into
// v — as strictly as a lane's messages: exact names, each once — or
// returns the refusal a client is told (see lane.ErrorFor): 413
// too_large, 415 for a body not labelled JSON (see CheckJSON), 400
// bad_request saying what is wrong after the example of a body. An empty
// body, whatever its label, is {} if empty is true.
func ReadJSON(w http.ResponseWriter, r *http.Request, limit int64, v any, example string, empty bool) error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
		return protocol.RefuseTooLarge.Error(limit)
	}
	if err == nil && empty && len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := CheckJSON(r); err != nil {
		return err
	}
	if err == nil {
		err = protocol.Unmarshal(data, v)
	}
	if err != nil {
		return protocol.RefuseBadBody.Error(example, strings.TrimPrefix(err.Error(), protocol.ErrUndecodable.Error()+": "))
	}
	return nil
}

// CheckJSON returns nil if the request's Content-Type header says
// application/json (with parameters, such as charset, or without), else
// the refusal a client is told: 415 unsupported_media_type.
func CheckJSON(r *http.Request) error {
	if !isJSON(r.Header.Get("Content-Type")) {
		return protocol.RefuseNotJSON.Error()
	}
	return nil
}

// isJSON reports whether a Content-Type header says application/json
// (with parameters, such as charset, or without).
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}
