package natsstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestAck checks that the server answers a stored message and a duplicate
// as fastAck reads them without encoding/json (a server that answered
// otherwise would cost every append more CPU, and nothing else would
// tell), and that its refusal of the fence comes out as wrongLast: in
// the stream of every shard, whose answers name it.
func TestAck(t *testing.T) {
	j := openShards(t, t.TempDir(), 3)
	for _, s := range j.shards {
		t.Run(s.name, func(t *testing.T) {
			request := func(last string) []byte {
				t.Helper()
				msg := &nats.Msg{Subject: s.prefix + "ack", Data: []byte("{}"), Header: nats.Header{}}
				msg.Header.Set(jetstream.MsgIDHeader, "ack-1")
				if last != "" {
					msg.Header.Set(jetstream.ExpectedLastSubjSeqHeader, last)
				}
				resp, err := j.nc.RequestMsgWithContext(t.Context(), msg)
				if err != nil {
					t.Fatal(err)
				}
				return resp.Data
			}

			stored := request("0")
			seq, dup, ok := fastAck(stored, s.ack)
			if !ok || seq == 0 || dup {
				t.Errorf("fastAck(%#q) = %d, %t, %t; want the sequence, false, true", stored, seq, dup, ok)
			}
			again := request("") // the same id, unfenced
			if got, dup, ok := fastAck(again, s.ack); !ok || got != seq || !dup {
				t.Errorf("fastAck(%#q) = %d, %t, %t; want %d, true, true", again, got, dup, ok, seq)
			}
			refused := request("0") // the lane no longer ends at 0
			if _, _, err := parseAck(refused, s.ack); !wrongLast(err) {
				t.Errorf("parseAck(%#q) = %v, want an error that wrongLast takes", refused, err)
			}
		})
	}
}

// TestNoStream publishes where no stream listens: publish tries again
// twice, a quarter of a second apart, as jetstream.PublishMsg does, and
// fails as it does.
func TestNoStream(t *testing.T) {
	j := open(t, t.TempDir())
	start := time.Now()
	_, _, err := j.publish(t.Context(), j.shards[0], "tenpin.nostream", []byte("{}"), "id", "0")
	if !errors.Is(err, jetstream.ErrNoStreamResponse) {
		t.Errorf("publish to no stream = %v, want jetstream.ErrNoStreamResponse", err)
	}
	if took, want := time.Since(start), 2*jetstream.DefaultPubRetryWait; took < want {
		t.Errorf("publish to no stream failed after %v, want after its retries, %v", took, want)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, _, err := j.publish(ctx, j.shards[0], "tenpin.nostream", []byte("{}"), "id", "0"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("publish to no stream within 100 ms = %v, want context.DeadlineExceeded", err)
	}
	if took := time.Since(start); took > 400*time.Millisecond {
		t.Errorf("publish to no stream within 100 ms took %v, want less than its retries (500 ms)", took)
	}
}

func TestParseAck(t *testing.T) {
	for _, tc := range []struct {
		in        string
		seq       uint64
		duplicate bool
		err       error // nil: none; errAPI: one wrapping an APIError
	}{
		{`{"stream":"TENPIN_LANES","seq":7}`, 7, false, nil},
		{`{"stream":"TENPIN_LANES","seq":1234567890123,"duplicate": true}`, 1234567890123, true, nil},
		// What fastAck leaves to encoding/json.
		{`{"stream":"TENPIN_LANES", "seq": 7}`, 7, false, nil},
		{`{"stream":"TENPIN_LANES","seq":7,"duplicate":true}`, 7, true, nil},
		{`{"stream":"TENPIN_LANES","domain":"hub","seq":7}`, 7, false, nil},
		{`{"stream":"TENPIN_LANES","seq":18446744073709551615}`, 18446744073709551615, false, nil},
		{`{"stream":"OTHER","seq":7}`, 7, false, nil},
		{`{"stream":"TENPIN_LANES","seq":7}x`, 0, false, jetstream.ErrInvalidJSAck},
		{`{"stream":"TENPIN_LANES","seq":}`, 0, false, jetstream.ErrInvalidJSAck},
		{`{"seq":7}`, 0, false, jetstream.ErrInvalidJSAck},
		{``, 0, false, jetstream.ErrInvalidJSAck},
		{`{"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 4"},"stream":"TENPIN_LANES","seq":0}`, 0, false, errAPI},
	} {
		seq, dup, err := parseAck([]byte(tc.in), newShard(0).ack)
		var api *jetstream.APIError
		switch {
		case tc.err == errAPI && errors.As(err, &api) && api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence:
		case tc.err == errAPI:
			t.Errorf("parseAck(%#q) = %v, want the APIError wrong last sequence", tc.in, err)
		case !errors.Is(err, tc.err) || seq != tc.seq || dup != tc.duplicate:
			t.Errorf("parseAck(%#q) = %d, %t, %v; want %d, %t, %v", tc.in, seq, dup, err, tc.seq, tc.duplicate, tc.err)
		}
	}
}

var errAPI = errors.New("an APIError")
