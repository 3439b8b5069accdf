package relay

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/tenpin/tenpin/lane"
	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// A seat's token, a lane's host key and its invitation never leave the
// node of the connection that holds them: a relay forwards a join, a
// resume, a give or a new_invite as a request of its own ([Request]),
// with their SHA-256 in their place. For a join, it draws the seat's
// token itself and sends its hash, and the host key's and the
// invitation's; for a resume, the token's hash; for a give, the host
// key's; for a new_invite, it draws the invitation and sends its hash.
// The lane welcomes the connection with the hash in the token's place
// (acknowledges a new_invite with the invitation's), and the relay, which
// kept the token (the invitation), puts it back before its client sees
// the welcome (the ack). What the client sends and is sent does not
// change, and whoever sees the traffic between nodes sees no secret that
// takes a seat or makes a host.

// Request is a join, a resume or a give as a relay forwards it: the
// client's message with its secrets replaced by their SHA-256, in hex.
// Its type comes first, so that [Decode] tells it from the messages a
// relay forwards as its client sent them (which are never a join, a
// resume nor a give) by its first bytes.
type Request struct {
	Type protocol.Type `json:"type"`
	ID   string        `json:"id,omitempty"`
	Name string        `json:"name,omitempty"` // join
	// Token is the hash of the resume's token, or of the token the relay
	// drew for the join's seat; "" for a give.
	Token   string `json:"token_sha256"`
	HostKey string `json:"host_key_sha256,omitempty"` // join, give: the hash of its host key
	// BowlerKey is the hash of a join's bowler key; NewBowler, of a join
	// asking to be remembered, the hash of the key the relay drew for
	// the new bowler.
	BowlerKey string `json:"bowler_key_sha256,omitempty"`
	NewBowler string `json:"new_bowler_key_sha256,omitempty"`
	// Invite is the hash of a join's invitation, or of the invitation the
	// relay drew for a new_invite.
	Invite string `json:"invite_sha256,omitempty"`
}

// The first bytes of a Request.
var (
	requestJoin      = []byte(`{"type":"join",`)
	requestResume    = []byte(`{"type":"resume",`)
	requestGive      = []byte(`{"type":"give",`)
	requestNewInvite = []byte(`{"type":"new_invite",`)
)

// hashText returns the SHA-256 of a secret in hex, as a Request and a
// relayed connection's welcome carry it.
func hashText(secret string) string {
	h := game.HashToken(secret)
	return hex.EncodeToString(h[:])
}

// parseHash reads hashText's text back.
func parseHash(field, s string) (game.TokenHash, error) {
	var h game.TokenHash
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(h) {
		return h, fmt.Errorf("%q is not a SHA-256 in hex", field)
	}
	copy(h[:], b)
	return h, nil
}

// errPlainSecret refuses a join or a resume that a relay forwarded as its
// client sent it, token or host key in plaintext: a relay of a build
// before hashing them (a cluster runs one version).
var errPlainSecret = protocol.RefusePlainSecret.Error()

// Decode decodes a message a relay forwarded to the lane, on the lane's
// node: a [Request], with its secrets, or else a message as the client
// sent it, which [protocol.Decode] decodes (the relay decoded it already,
// and refused it if it did not decode). A join, a resume or a give with a
// secret in plaintext is refused. On an error, the request holds the
// message's id, for the refusal to name.
func Decode(data []byte) (protocol.Request, *lane.Secrets, error) {
	if !bytes.HasPrefix(data, requestJoin) && !bytes.HasPrefix(data, requestResume) && !bytes.HasPrefix(data, requestGive) && !bytes.HasPrefix(data, requestNewInvite) {
		m, err := protocol.Decode(data)
		if err == nil && lane.HasSecrets(m.Type) {
			return protocol.Request{ID: m.ID}, nil, errPlainSecret
		}
		return m, nil, err
	}
	var r Request
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return protocol.Request{}, nil, protocol.RefuseNotRelayed.Error(err)
	}
	m := protocol.Request{Type: r.Type, ID: r.ID, Name: r.Name}
	k := &lane.Secrets{Welcome: r.Token}
	var err error
	if r.Invite != "" {
		if k.Invite, err = parseHash("invite_sha256", r.Invite); err != nil {
			return protocol.Request{ID: r.ID}, nil, protocol.RefuseRelayed.Error(r.Type, err)
		}
	}
	switch {
	case r.Type == protocol.TypeNewInvite:
		if r.Invite == "" || r.ID == "" {
			return protocol.Request{ID: r.ID}, nil, protocol.RefuseRelayedInvite.Error()
		}
		k.NewInvite = r.Invite
		return m, k, nil
	case r.Type == protocol.TypeGive:
	default:
		if k.Token, err = parseHash("token_sha256", r.Token); err != nil {
			return protocol.Request{ID: r.ID}, nil, protocol.RefuseRelayed.Error(r.Type, err)
		}
	}
	if r.HostKey != "" {
		if k.HostKey, err = parseHash("host_key_sha256", r.HostKey); err != nil {
			return protocol.Request{ID: r.ID}, nil, protocol.RefuseRelayed.Error(r.Type, err)
		}
	}
	for _, h := range []struct {
		field, text string
		hash        *bowler.KeyHash
	}{{"bowler_key_sha256", r.BowlerKey, &k.BowlerKey}, {"new_bowler_key_sha256", r.NewBowler, &k.NewBowler}} {
		if h.text == "" {
			continue
		}
		th, err := parseHash(h.field, h.text)
		if err != nil {
			return protocol.Request{ID: r.ID}, nil, protocol.RefuseRelayed.Error(r.Type, err)
		}
		*h.hash = bowler.KeyHash(th)
	}
	k.NewBowlerWelcome = r.NewBowler
	return m, k, nil
}

// maxHeld bounds the tokens a relayed connection keeps for the welcomes
// to come: a client waits for the answer to its join or resume, so more
// unanswered at once than this is no client's doing, and the oldest
// (surely answered by a refusal) goes.
const maxHeld = 8

// held is a token a relayed connection sent as its hash, kept for the
// welcome that may answer it.
type held struct {
	hash  string // hashText's
	token string
	// bowlerHash and bowlerKey are the key drawn for a new bowler, if the
	// join asked to be remembered, and its hash, which its welcome carries.
	bowlerHash, bowlerKey string
	// invite is the invitation drawn for a new_invite, whose ack carries
	// hash in its place (token is "").
	invite string
}

// hashSecrets returns what the relay forwards to the lane of data, a
// message its client sent: a join or a resume as a Request, the
// token kept for its welcome; any other message as it is. Of a join, it
// returns the token it drew for the seat too. A message that does not
// decode is refused with protocol.Decode's error, and its request, whose
// id the refusal answers: it is not forwarded, as it may hold a secret
// where none belongs.
func (rc *relayed) hashSecrets(data []byte) (out []byte, m protocol.Request, drawn string, err error) {
	m, err = protocol.Decode(data)
	if err != nil {
		return nil, m, "", err
	}
	r := Request{Type: m.Type, ID: m.ID, Name: m.Name}
	token := m.Token
	var h held
	switch m.Type {
	case protocol.TypeJoin:
		token = uuid.NewString()
		if m.HostKey != "" {
			r.HostKey = hashText(m.HostKey)
		}
		if m.Invite != "" {
			r.Invite = hashText(m.Invite)
		}
		switch {
		case m.BowlerKey != "":
			r.BowlerKey = hashText(m.BowlerKey)
		case m.Remember:
			h.bowlerKey = bowler.NewKey()
			h.bowlerHash = hashText(h.bowlerKey)
			r.NewBowler = h.bowlerHash
		}
	case protocol.TypeResume:
	case protocol.TypeNewInvite:
		h.invite = lane.NewInvite()
		h.hash = hashText(h.invite)
		r.Invite = h.hash
		rc.hold(h)
		out, err := json.Marshal(r)
		if err != nil {
			panic(fmt.Sprintf("relay: encoding a relayed new_invite: %v", err)) // only plain values: cannot fail
		}
		return out, m, "", nil
	case protocol.TypeGive:
		r.HostKey = hashText(m.HostKey)
		out, err := json.Marshal(r)
		if err != nil {
			panic(fmt.Sprintf("relay: encoding a relayed give: %v", err)) // only plain values: cannot fail
		}
		return out, m, "", nil
	default:
		return data, m, "", nil
	}
	r.Token = hashText(token)
	h.hash, h.token = r.Token, token
	rc.hold(h)
	out, err = json.Marshal(r)
	if err != nil {
		panic(fmt.Sprintf("relay: encoding a relayed %s: %v", r.Type, err)) // only plain values: cannot fail
	}
	if m.Type == protocol.TypeJoin {
		drawn = token
	}
	return out, m, drawn, nil
}

// hold keeps a token for the welcome that may answer it, before its
// message leaves: the welcome cannot come first.
func (rc *relayed) hold(h held) {
	rc.r.mu.Lock()
	defer rc.r.mu.Unlock()
	if len(rc.held) == maxHeld {
		rc.held = slices.Delete(rc.held, 0, 1)
	}
	rc.held = append(rc.held, h)
}

// welcomePrefix are the first bytes of a welcome, as a lane encodes it;
// invitedAck, what an ack carries only when it carries an invitation.
var (
	welcomePrefix = []byte(`{"type":"welcome",`)
	ackPrefix     = []byte(`{"type":"ack",`)
	invitedAck    = []byte(`"invite":`)
)

// invited returns msg, an ack the lane sent the connection with a new
// invitation's hash, with the invitation the relay drew in its place;
// false if the relay drew no invitation of that hash. r.mu is held.
func (rc *relayed) invited(msg []byte) ([]byte, bool) {
	var a protocol.Ack
	if err := protocol.Unmarshal(msg, &a); err != nil {
		return nil, false
	}
	for i, h := range rc.held {
		if h.invite != "" && h.hash == a.Invite {
			a.Invite = h.invite
			rc.held = slices.Delete(rc.held, i, i+1)
			return encodeReply(a), true
		}
	}
	return nil, false
}

// welcome returns msg, a welcome the lane sent the connection with its
// token's hash, with the token the relay kept in its place; false if the
// relay kept no token of that hash. The tokens of the joins and resumes
// the connection sent before are dropped: the lane answers a
// connection's messages in order, so they have been answered. r.mu is
// held.
func (rc *relayed) welcome(msg []byte) ([]byte, bool) {
	var w protocol.Welcome
	if err := protocol.Unmarshal(msg, &w); err != nil {
		return nil, false
	}
	for i, h := range rc.held {
		if h.invite == "" && h.hash == w.Token {
			w.Token = h.token
			rc.token = h.token
			if h.bowlerHash != "" && w.BowlerKey == h.bowlerHash {
				w.BowlerKey = h.bowlerKey
			}
			rc.held = slices.Delete(rc.held, 0, i+1)
			return encodeReply(w), true
		}
	}
	return nil, false
}
