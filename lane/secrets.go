package lane

import (
	"crypto/rand"

	"github.com/google/uuid"

	"github.com/tenpin/tenpin/lane/bowler"
	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/protocol"
)

// A seat's token, and a lane's host key, never leave the node of the
// connection that holds them: the lane keeps their SHA-256 alone
// ([game.HashToken]), and the hash is all a relay sends the lane's node
// (lane/relay). Whoever sees the traffic between nodes sees no secret
// that takes a seat or makes a host. So the lane reads a join, a resume
// or a give with its secrets apart: a connection of this node's from its
// message ([localSecrets]), one of another node's as its relay hashed
// them ([Client.ReadRequest]).

// Secrets are what the lane uses of a join's, a resume's or a give's
// secrets: their hashes, and what the welcome carries in the token's
// place.
type Secrets struct {
	Token   game.TokenHash // join: of the new seat's token; resume: of the token
	HostKey game.TokenHash // join, give: of the host key; zero without one
	// Welcome is the token the welcome carries: to a connection of this
	// node the token, to one of another node its hash in hex, which that
	// node's relay swaps for the token.
	Welcome string

	// BowlerKey, of a join, is the hash of the bowler key it came with;
	// zero for none.
	BowlerKey bowler.KeyHash
	// NewBowler, of a join asking to be remembered without a key, is the
	// hash of the key drawn for the new bowler, and NewBowlerWelcome what
	// the welcome carries of it: the key, or for a connection of another
	// node its hash in hex, which the relay swaps as the token's.
	NewBowler        bowler.KeyHash
	NewBowlerWelcome string

	// Invite is, of a join, the hash of the invitation it carried (zero
	// for none); of a new_invite, the hash of the invitation drawn for
	// the lane, and NewInvite what its ack carries of it: the invitation,
	// or for a connection of another node its hash in hex, which the
	// relay swaps as a welcome's token.
	Invite    game.TokenHash
	NewInvite string
}

// HasSecrets reports whether a client's message of type t carries a
// secret, or asks for one to be drawn: a join, a resume, a give and a
// new_invite. The lane reads their secrets apart ([Secrets]), and a relay
// forwards them hashed (lane/relay).
func HasSecrets(t protocol.Type) bool {
	return t == protocol.TypeJoin || t == protocol.TypeResume || t == protocol.TypeGive || t == protocol.TypeNewInvite
}

// NewInvite draws a lane's invitation: 26 letters of base32, 130 random
// bits, as [protocol.ValidInvite] takes them (drawn here, not by
// rand.Text, whose length may grow).
func NewInvite() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b := make([]byte, 26)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[b[i]%32]
	}
	return string(b)
}

// localSecrets returns the secrets of m, a join, a resume, a give or a
// new_invite of a connection of this node: a join's token, and a new
// invitation, are drawn here.
func localSecrets(m protocol.Request) *Secrets {
	k := &Secrets{Welcome: m.Token}
	switch m.Type {
	case protocol.TypeJoin:
		k.Welcome = uuid.NewString()
		if m.Invite != "" {
			k.Invite = game.HashToken(m.Invite)
		}
	case protocol.TypeNewInvite:
		k.NewInvite = NewInvite()
		k.Invite = game.HashToken(k.NewInvite)
		return k
	}
	k.Token = game.HashToken(k.Welcome)
	if m.HostKey != "" {
		k.HostKey = game.HashToken(m.HostKey)
	}
	switch {
	case m.Type != protocol.TypeJoin:
	case m.BowlerKey != "":
		k.BowlerKey = bowler.HashKey(m.BowlerKey)
	case m.Remember:
		k.NewBowlerWelcome = bowler.NewKey()
		k.NewBowler = bowler.HashKey(k.NewBowlerWelcome)
	}
	return k
}
