package lobby

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"fmt"

	"github.com/tenpin/tenpin/lane/game"
	"github.com/tenpin/tenpin/lane/league"
	"github.com/tenpin/tenpin/protocol"
)

// A league night's lane seats each team's places only with that team's
// invitation (game.LeagueLane's Invites). The invitations are drawn from
// the secretary's key, not stored: the lanes keep their hashes alone, and
// the secretary's page, which holds the key, is given them again whenever
// it asks (WeekInvites). Whoever knows the league's id, or reads its
// store, cannot make them.

// inviteText is how a team's invitation is written: 26 letters of base32,
// as protocol.ValidInvite takes them.
var inviteText = base32.StdEncoding.WithPadding(base32.NoPadding)

// teamInvites returns the invitations of the two teams (home first) of
// match (from 0) of week's night of league id, whose secretary's key is
// key.
func teamInvites(key, id string, week, match int) [2]string {
	var out [2]string
	for t := range out {
		mac := hmac.New(sha256.New, []byte(key))
		fmt.Fprintf(mac, "tenpin league lane invitation\x00%s\x00%d\x00%d\x00%d", id, week, match, t)
		out[t] = inviteText.EncodeToString(mac.Sum(nil))[:26]
	}
	return out
}

// hashInvites returns what a league lane keeps of its teams' invitations.
func hashInvites(invites [2]string) [2]game.TokenHash {
	return [2]game.TokenHash{game.HashToken(invites[0]), game.HashToken(invites[1])}
}

// withInvites returns a week's matches with their teams' invitations.
func withInvites(matches []protocol.LeagueMatch, key, id string, week int) []protocol.LeagueMatch {
	for i := range matches {
		inv := teamInvites(key, id, week, i)
		matches[i].HomeInvite, matches[i].AwayInvite = inv[0], inv[1]
	}
	return matches
}

// WeekInvites returns week's night of league id with its matches' lanes
// and their teams' invitations, for its secretary, whose key is key: the
// secretary's page shows them as QR codes. A week whose night is not
// open is refused (league.ErrWeek).
func (lg *Leagues) WeekInvites(ctx context.Context, id, key string, week int) (protocol.OpenedWeek, error) {
	var out protocol.OpenedWeek
	err := lg.asSecretary(ctx, id, key, func(e *leagueEntry) error {
		if night, open := e.l.Night(); !open || night != week {
			return fmt.Errorf("%w: week %d's night is not open", league.ErrWeek, week)
		}
		out = protocol.OpenedWeek{Week: week, Matches: withInvites(e.matches(week, nightLanes(e.stored.Records)[week]), key, id, week)}
		return nil
	})
	return out, leagueError(err)
}
