package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// An append is a JetStream publish that Journal.publish sends itself
// rather than through jetstream.PublishMsg, on which an append spent two
// fifths of its CPU in the client for what publish does without: a header
// map, its slices and option closures for every message, and encoding/json
// to decode every acknowledgement (30% alone). The protocol is the same:
// the headers the jetstream package sets, the request and its reply, the
// retries when no stream answers, and the errors.

// pubReq is the message of an append, pooled: it has the same two headers
// every time, and the client renders them into its buffer before
// RequestMsgWithContext returns, keeping nothing of the message.
type pubReq struct {
	msg  nats.Msg
	id   [1]string // the value of the header MsgIDHeader
	last [1]string // the value of the header ExpectedLastSubjSeqHeader
}

var pubReqs = sync.Pool{New: func() any {
	r := new(pubReq)
	r.msg.Header = nats.Header{
		jetstream.MsgIDHeader:               r.id[:],
		jetstream.ExpectedLastSubjSeqHeader: r.last[:],
	}
	return r
}}

// publish stores data on subject unless the subject's last message is not
// at last (a decimal sequence) or the stream holds a message of id. It
// returns the message's sequence and whether the stream took it for a
// duplicate, whose sequence it returns; or the error, which wraps a
// *jetstream.APIError if the stream refused the message.
func (j *Journal) publish(ctx context.Context, s *shard, subject string, data []byte, id, last string) (seq uint64, duplicate bool, err error) {
	r := pubReqs.Get().(*pubReq)
	r.msg.Subject, r.msg.Data, r.id[0], r.last[0] = subject, data, id, last
	resp, err := j.nc.RequestMsgWithContext(ctx, &r.msg)
	for try := 0; errors.Is(err, nats.ErrNoResponders) && try < jetstream.DefaultPubRetryAttempts; try++ {
		// No stream answered, as while a cluster elects the stream's
		// leader: wait a little and try again, as jetstream.PublishMsg
		// does. (If ctx ends, the request fails at once.)
		t := time.NewTimer(jetstream.DefaultPubRetryWait)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		resp, err = j.nc.RequestMsgWithContext(ctx, &r.msg)
	}
	r.msg.Subject, r.msg.Data, r.id[0], r.last[0] = "", nil, "", ""
	pubReqs.Put(r)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return 0, false, jetstream.ErrNoStreamResponse
	case err != nil:
		return 0, false, err
	}
	return parseAck(resp.Data, s.ack)
}

// ackDuplicate ends the server's answer to a duplicate, after the sequence.
const ackDuplicate = `,"duplicate": true}`

// parseAck reads the stream's answer to a publish: the message's sequence
// and whether it was a duplicate, or the error the answer holds. prefix is
// how the stream begins its answer (see shard.ack).
func parseAck(b []byte, prefix string) (seq uint64, duplicate bool, err error) {
	if seq, duplicate, ok := fastAck(b, prefix); ok {
		return seq, duplicate, nil
	}
	// An error, or an answer of another form (a JetStream domain, another
	// version's spacing): decoded as jetstream.PublishMsg does.
	var ack struct {
		Error     *jetstream.APIError `json:"error"`
		Stream    string              `json:"stream"`
		Seq       uint64              `json:"seq"`
		Duplicate bool                `json:"duplicate"`
	}
	if err := json.Unmarshal(b, &ack); err != nil {
		return 0, false, jetstream.ErrInvalidJSAck
	}
	if ack.Error != nil {
		return 0, false, fmt.Errorf("natsstore: %w", ack.Error)
	}
	if ack.Stream == "" {
		return 0, false, jetstream.ErrInvalidJSAck
	}
	return ack.Seq, ack.Duplicate, nil
}

// fastAck reads, without encoding/json, the two answers of a successful
// append, which the server writes by hand: prefix (the shard's ack), the
// sequence, and '}' or ackDuplicate. It reports false for any other
// answer.
func fastAck(b []byte, prefix string) (seq uint64, duplicate, ok bool) {
	if len(b) <= len(prefix) || string(b[:len(prefix)]) != prefix {
		return 0, false, false
	}
	b = b[len(prefix):]
	n := 0
	for ; n < len(b) && n < 19 && '0' <= b[n] && b[n] <= '9'; n++ {
		seq = seq*10 + uint64(b[n]-'0') // 19 digits cannot overflow
	}
	switch {
	case n == 0 || seq == 0:
		return 0, false, false
	case string(b[n:]) == "}":
		return seq, false, true
	case string(b[n:]) == ackDuplicate:
		return seq, true, true
	}
	return 0, false, false
}
