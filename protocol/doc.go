// Package protocol defines tenpin's wire format: the JSON messages between
// the page (or any client) and a lane, both ways, the functions that decode
// them — [Decode] for a client's, [DecodeMessage] for the server's,
// [Unmarshal] for the HTTP API's bodies — and the error codes. Package
// protocol/client speaks it: the tests, the load tool and other programs
// use it rather than a client of their own.
//
// Everything the server can say is in one file, errors.go: each [Code]
// with its HTTP status ([Code.Status]), its WebSocket close status and
// close frame's reason ([Code.CloseStatus], [Code.CloseText]) and its own
// words ([Code.Text]); the server's own refusals ([Refusal]) and notices
// with their English words. The domain's errors get their codes in one
// place too, lane's ErrorFor. The page shows its own words for the codes,
// in each of its languages (web/static/js/i18n).
//
// # Transport
//
// A client opens a WebSocket at GET /ws/lanes/{id} on the server's own
// origin (other origins are refused unless the server allows them). Every
// message is a text frame holding one JSON object with a "type". Binary
// frames, frames over [MaxMessageSize] bytes (the connection is closed with
// status 1009), and anything [Decode] refuses are answered with an error.
// The server pings every 30 seconds; a client that does not answer, or
// does not read what it is sent, is disconnected.
//
// A connection may send 20 frames a second, in bursts of 40 (pings and
// pongs count, but for the pong that answers the server's ping): a
// message over the rate is answered rate_limited and a ping gets no pong,
// and after 100 frames in a row over it the connection is closed with
// status 1008. So is a connection that leaves 64 answers unread.
//
// A connection that has not taken a seat is a spectator: it receives every
// board and may send only join or resume. Any message may carry an "id"
// (a string of at most [MaxIDLength] bytes): the server's answer to it —
// welcome, ack or error — carries it back as "ref".
//
// A lane takes a limited number of spectators (200 by default), and a
// seated player coming back never counts as one. A connection that opens
// while the lane has all its spectators is sent nothing and counted as
// none for a few seconds (5 by default), while the server waits for one
// message, resume: with a token that holds a seat it takes the seat back,
// however many watch. Anything else, or nothing in that time, is answered
// spectators_full (after bad_token, for a token that holds no seat), and
// the connection is closed with status 1013 (try again later): reconnect
// with backoff. So a client that has a token sends resume as soon as the
// socket opens, before the first board arrives.
//
// # Strict decoding
//
// Every message, both ways, is read strictly (and so are the HTTP API's
// answers, by package protocol/client): one JSON object and nothing after
// it (but white space); its members named exactly as below — "type", not
// "Type" or "TYPE", and no name that only Unicode case folding makes one
// ("to\u212Aen", with a Kelvin sign, is not "token") — each at most once,
// none that the type does not have; numbers of the JSON type and form
// the field takes: pins, frame, ball, seq and seat are whole numbers
// written as such (7, not 7.0, 7e0 or "7"; 0, not -0); strings valid
// UTF-8. Anything else is refused, never guessed at: a client message
// with bad_message (answering its id, if it has one that can be read), a
// server message by the client with an error.
//
// # Client → server
//
//	{"type":"join","name":"Jo","invite":"…"}  take a seat: 1–12 letters of any script (see Names); while seats remain and the game is not over. "invite" is the lane's invitation (POST /api/lanes answers it; the creator's page shares it in the fragment of the lane's link, /lanes/{id}#invite=…): without it, or with another (one the host replaced, another lane's), the join is refused invitation_required and the connection goes on watching (one let in on a lane full of watchers to sit is turned away with spectators_full, as any refused join is then). A lane created "open":true, a join with "host_key" and a resume need none. A player who joins after the first ball is seated last and bowls the frames they missed before the others go on. With "host_key" (the lane creator's, from POST /api/lanes) the player is the lane's host while seated. Until the creator joins so (or gives the lane away), the lane waits for them ("creator_away" on the board): nobody hosts it, no game starts, and its last seat is kept for them (lane_full to others). With "remember":true the seat is linked to a new bowler, whose key the welcome carries ("bowler_key"); with "bowler_key" to the bowler whose key it is (see Bowlers)
//	{"type":"resume","token":"…"}         take back one's seat after a reconnect, with the token from welcome
//	{"type":"start"}                      start the game (the host only; the lane needs at least one player)
//	{"type":"roll","pins":7,"frame":3,"ball":1}   the pins knocked down with the ball up: see Rolls below
//	{"type":"roll","deck":[7,10],"frame":3,"ball":1}   the same ball named by the pins it left standing
//	{"type":"roll","foul":true,"frame":3,"ball":1}     a foul: counts 0
//	{"type":"leave"}                      give up one's seat (once one has bowled in this game: one's frames stay, the seat stays one's own, and the turn skips it; before one's first ball the seat is free at once)
//	{"type":"rematch"}                    after the game is over (the host only): it joins the series, and the next game, with the players still seated, waits: others may join until the host starts it
//	{"type":"correct","pins":8,"frame":1,"ball":1}   change a ball already bowled in this game: one's own, or with "name", anyone's (the host only); "deck" and "foul" as in a roll
//	{"type":"skip"}                       pass by the player up, offline for the away time (30 s): they are away until they resume
//	{"type":"remove","name":"BOB"}        take a player off the lane: their frames stay, their seat is no longer theirs, and they may not join again under that name, even after a rematch, until readmitted (the host only)
//	{"type":"readmit","name":"BOB"}       let a removed player join again (the host only)
//	{"type":"free","name":"BOB"}          free the seat of a player who left this game after bowling (or was removed): their frames of this game go, and another may take the seat (the host only)
//	{"type":"new_invite","id":"1"}        issue a new invitation (the host only; "id" required): the ack carries it ({"type":"ack",…,"invite":"…"}), only to the host; the seated keep their seats, and the invitation before seats nobody from then on. A host shuts out a crawler so: remove it, then share the new link
//	{"type":"give","host_key":"…"}        give the lane away (its creator, with its host key, seated or not): it waits for its creator no longer, its first player seated hosts it, and the key makes nobody the host from then on
//
// # Rolls
//
// A roll names the ball it is for: frame (1–10) and ball (1–3 within that
// frame), both required — the board's up.frame and up.ball. So a repeated,
// late or doubled roll (a held key, a double tap, a retry after a lost
// ack) can never count twice. A roll for a ball bowled already that gives
// what that ball has (its pins, its deck if it gives one, its foul) is
// that ball sent again, whoever sends it: it is acknowledged, with the
// seq of the board the lane shows, and changes nothing, so a client that
// never heard its roll's answer may send it again and learn that it
// counted. So is a game's last ball sent again after the game is over,
// and after the next game began, until its player bowls in that one (a
// player's first ball is always the new game's). A roll for any other
// ball than the one up is refused with stale_roll and changes nothing.
//
// A player enters their own balls. The host — the first player seated, or
// after they leave the next in seat order; the board's "host" — may enter
// the ball of whoever is up, and any seated player may enter it while the
// player up is offline (one phone keeps score for all). Such a roll names
// whose ball it is: {"type":"roll","pins":9,"frame":3,"ball":1,"name":"BOB"}.
// A league night's lane has no host among its bowlers (see League
// nights): there a bowler enters and corrects their teammates' balls,
// connected or not, and never the other team's (not_your_team).
//
// A ball is given by its count ("pins", 0–10), or by the pins it left
// standing ("deck": pin numbers 1–10 in the standard numbering, 1 the head
// pin, then 2–3, 4–6 and 7–10 from the front row back; [] for none): the
// server counts the pins from the deck, and a roll with both must have
// them agree. A deck naming a pin that was not standing before the ball,
// a pin twice, a number outside 1–10, or more pins than stood, is refused
// with invalid_pins and changes nothing. After a ball entered as a count
// the pins standing are not known, and the next ball can only be a count
// or a deck of as many pins or fewer.
//
// A foul ("foul":true, with no deck and no count but 0) counts 0 and is
// marked F. After a foul on a rack's first ball the pins are set again:
// the next ball faces ten, so F then ten is a spare ("F|/").
//
// A split is what USBC calls one: after the first ball of a rack the head
// pin is down and either a pin is down between two or more standing pins
// (7-9, 3-10) or a pin is down immediately ahead of two or more standing
// pins (5-6). Only a ball that named its deck can show one.
//
// # Names
//
// A player's name is 1–12 letters of any script (counted as a reader
// counts characters, not code points), with single spaces, hyphens or
// apostrophes between words; it is normalized (NFC), kept in the case it
// was typed (Kim stays Kim), and unique on the lane whatever its case. Digits, emoji, and control, invisible
// or bidirectional-override characters are refused with invalid_name and
// the reason.
//
// # Server → client
//
// welcome answers join and resume. The token is a random UUID sent only to
// the connection holding that seat, never in a board; keep it to resume:
//
//	{"type":"welcome","ref":"1","seat":0,"name":"PJS","token":"9b2c…"}
//
// A join with "remember" is welcomed with the new bowler's key too,
// "bowler_key": keep it on the device (never in a URL), and send it with
// the joins of the nights to come. The bowler is made when the seat's
// first ball is bowled, not at the join (a join that leaves before a
// ball costs the store nothing): until then the key is known to nobody
// (unknown_bowler, 401), so a page keeps it for its lane alone until
// GET /api/bowlers/me answers for it, and forgets no key the server has
// not known yet. If the server keeps no more bowlers
// (their budget is full) the player is seated all the same, as a guest,
// and the welcome says why in "guest", the error that refused the bowler
// (not the seat):
//
//	{"type":"welcome","ref":"1","seat":0,"name":"PJS","token":"9b2c…","guest":{"type":"error","code":"storage_full","message":"the server keeps no more bowlers: their budget of 512 MiB is full"}}
//
// board is the whole lane, sent to every connection when it attaches and
// after every change ([Board]). seq grows by one with every change, so a
// client can tell it missed nothing; a client too slow to take every board
// is sent only the newest, so its seq may jump but never goes back — not
// even across a restart of the server: a restored lane starts a new epoch,
// held in seq's high bits (seq = epoch × 2³² + changes in the epoch, exact
// in a JavaScript number), so its first board's seq is above any the lane
// showed before:
//
//	{"type":"board","lane":"k3x9…","name":"Friday night","seq":12,"phase":"playing",
//	 "up":{"seat":1,"frame":3,"ball":1,"standing":10},
//	 "players":[{"name":"PJS","connected":true,
//	             "frames":[{"marks":"X","rolls":[10],"score":20},
//	                       {"marks":"8|/","rolls":[8,2],"score":38},
//	                       {"marks":"8|1","rolls":[8,1],"score":47}],
//	             "total":47}],
//	 "spectators":3}
//
// A client that follows the game without drawing it may read less of a
// board than all of it: its seq ([BoardSeq]), its head ([DecodeBoardHead])
// or one player's line ([DecodeBoardPlayer]). These rely on the order in
// which the server writes a board's fields, which this package's tests pin.
//
// Its fields:
//
//   - phase: "waiting" (players join), "playing", "finished".
//   - up: who bowls next — seat (index in players), frame (1–10), ball
//     (1–3 within the frame: a roll names frame and ball) and the pins
//     standing, and deck: which pins stand, when that is known (all ten on
//     a fresh rack; omitted after a ball entered as a count); and, while
//     that player is offline, skip_in: the seconds
//     left before another player may skip them (0 once they may; a board
//     comes when it reaches 0). null when nobody is up.
//   - host: the name of the player who may start, rematch and enter
//     anyone's ball; omitted on a lane nobody is seated on, and on a
//     league night's lane, which has none.
//   - players, in seat order: name, connected (a disconnected player keeps
//     the seat), left (true for a player who left or was removed
//     mid-game; omitted otherwise), removed (true for a player the host
//     removed, left being true too; omitted otherwise), late (true for a
//     player who joined after the first ball; omitted otherwise), away
//     (true while skipped for being offline; omitted otherwise), frames
//     bowled so far from frame 1, total (the last cumulative score
//     that can no longer change), and average: for a seat linked to a
//     bowler with a game in their history, their average over every game
//     (pins ÷ games, fractions dropped); omitted otherwise. On a league
//     night's lane, team (the player's team) and handicap (what each of
//     their games gets tonight; omitted until the league knows it).
//   - frames: marks as on the text board ("X", "8|/", "8|1", "7|-", "-|/",
//     "8" while in play, "X|7|/" in the tenth), rolls (the pins of each
//     roll), score (the cumulative score, null while it can still change),
//     corrected (true when a ball of the frame was corrected; omitted
//     otherwise), split (true when the first ball left a split, marked
//     "(8)" as lane scoring circles it; omitted otherwise), decks (ball by
//     ball, the pins it left standing, null for a ball entered as a count
//     or a foul; omitted when no ball named one) and fouls (the balls, 1–3,
//     that were fouls; omitted when none).
//   - spectators: connections without a seat.
//   - series: once the lane has finished a game, each player's games and
//     the sum of their totals, this game included; omitted before.
//   - removed: the players the host removed and has not let back
//     (readmit), in any game of the series; omitted when none.
//   - highs: the personal bests the game just finished brought its linked
//     bowlers, from then until the next game: [{"name":"홍길동","game":187}]
//     for a new high game, "series" for a new high series (the best 3
//     games in a row of one night); omitted when none. A bowler's first
//     game or series beats nothing and is not one.
//   - stats: the night's numbers, each bowler's over the lane's series and
//     the game in play, in the order they first bowled — the players of
//     GET /api/lanes/{id}/stats, as [Stats] defines them — so that a page
//     shows them after a ball without asking; omitted until a ball is
//     bowled. They are added up once for each ball, not for each watcher.
//   - teams: on a league night's lane, its two teams, home first:
//     {"name","scratch","total","points","games"}: the game in play's
//     scratch pins and its total with handicap, every place counted (an
//     absent bowler's and an empty place's scores included), the points
//     won tonight and each of tonight's games' totals with handicap, as
//     the league counted the games over; omitted on a lane of friends.
//
// # League nights
//
// A league night opens one lane per match (POST
// /api/leagues/{id}/weeks/{n}/open): both teams' places that bowl are
// seated in roster order, home first, and the first game is under way. A
// join under a place's name with its team's invitation (the opening
// answers one a team: "home_invite", "away_invite") takes that place (its
// phone holds it, as any seat). Without an invitation, or with another
// match's, it is refused invitation_required; with the other team's,
// not_your_team; a name on no place, not_on_roster. Leave gives the place
// back. Each game over goes to the league, and the next starts by itself
// until the night's games are bowled; rematch, readmit and free are not a
// league night's (not_on_roster).
//
// Who scores whom: a bowler enters and corrects their own balls, and
// their teammates' — a place another phone holds or none, connected or
// not: one phone may keep a team's score — and never the other team's
// (not_your_team), not even a place no phone holds. The lane has no host
// among its bowlers (the board has no "host"): start and remove from a
// bowler are refused not_host. The league's secretary has the host's
// powers there, over HTTP with the secretary's key (see Leagues): enters
// or corrects any place's ball of the game in play, skips the bowler up
// once offline for the away time (as any bowler on the lane may), and
// removes a place from the phone that holds it: the place is given back
// as that phone's leave gives it (its frames stay and it bowls on; the
// phone is told removed and watches; another phone may claim it). The
// secretary's corrections are by "secretary" in the lane's history.
//
// ack answers an accepted command that carried an id; seq is that of the
// first board that includes its effect. A command is acknowledged, and its
// board sent, only once the server has stored it: an acknowledged roll
// survives a restart or a crash of the server. If the store does not take
// it in time the answer is the error unavailable and nothing changed; the
// client may send it again (after re-reading the board: rarely, a command
// the store took but could not confirm shows up on the next board):
//
//	{"type":"ack","ref":"7","seq":13}
//
// error answers every refused message; nothing changes and the connection
// stays open (unless the code says the lane closed):
//
//	{"type":"error","code":"not_your_turn","message":"it is ABC's turn, not PJS's","ref":"7"}
//
// # Error codes
//
//	bad_message      not one JSON object, a field of the wrong type (pins "7" or 7.5) or given twice, a missing, extra or unknown field (names match exactly), -0, not UTF-8, a binary frame
//	unknown_type     a type the server does not know
//	invalid_name     a name that is not 1–12 letters (see Names), or a join's name left empty or out; the message says why
//	name_taken       the name is seated on this lane already
//	lane_full        every seat is taken
//	game_started     start once the game has started; join once the game is over, before the rematch
//	not_playing      roll or skip while no game is in play, correct before a ball is bowled
//	not_your_turn    roll by a player who is not up
//	stale_roll       roll for a ball other than the one up (frame and ball): late, ahead of the game, or a ball bowled already with other pins
//	not_host         start, rematch or remove from a player who is not the host (on a league night's lane, start or remove from any bowler); a roll for a connected player, or a correction of another's ball, by someone else; a join with a "host_key" that is not the lane's
//	invalid_pins     pins below 0, above 10, or more than are standing
//	bad_token        resume with a token that holds no seat on this lane
//	not_seated       any command but join and resume from a spectator; a roll, correction or removal naming a player not on the lane
//	already_seated   join or resume from a connection that holds a seat
//	not_finished     rematch before the game is over
//	rate_limited     too many messages too fast
//	spectators_full  the lane has all the watchers it takes: the connection is then closed with 1013, try again later (a seat's resume is never refused for it)
//	lane_closed      the lane has closed (a command to it; or, as a notice, a server that keeps nothing, -memory, is shutting down): it is gone
//	internal         the server failed; the lane is closed
//	unavailable      the store did not take the command in time: nothing changed, send it again
//	storage_full     the server's budget for lanes is full (the message says so): nothing changed, and sending it again will not help until room is made
//	invalid_correction  a correction no game could have (a ball not bowled, pins that do not fit, a ball that would move to another frame): nothing changed
//	not_away         skip while the player up is connected, or offline for less than the away time, or when nobody else has balls left to bowl
//	unknown_bowler   a join with a bowler key no bowler holds (revoked, or its bowler deleted their history): join as a guest, or with "remember" for a new history
//	removed          join under the name of a player the host removed, until the host readmits them
//	creator_away     start, rematch, remove, readmit or free on a lane that waits for its creator, who holds its host key
//	not_on_roster    on a league night's lane: a join under a name none of its places has; a rematch, readmit or free
//	invitation_required  a join without the lane's invitation, or with another (replaced by the host's new_invite, another lane's, on a league lane another match's): the connection stays a spectator
//	not_your_team    on a league night's lane: a join under a place of the other team than the invitation's; a roll or a correction of a ball of the other team's place
//
// A notice is an error message with no ref that says why the server is
// about to close the connection:
//
//	server_restarting  the server is stopping and will be back with every lane as it was: reconnect (with backoff) and resume with the token
//	removed            the host removed this connection's player, or the league's secretary gave its place back: this one is a spectator now, and the token no longer resumes the seat
//	lane_idle          nobody was on the lane for its idle time (5 min; 1 h for a game with a ball bowled; a league night's lane only once its week has closed): it has closed for good, stop reconnecting
//	seat_taken_over    another connection resumed this connection's seat (another tab or phone): this one is a spectator now, or, on a lane full of watchers, is sent spectators_full and closed with 1013; do not resume automatically after it, or the two connections take the seat from each other in turn
//
// # A sample session
//
//	→ {"type":"join","name":"PJS","id":"1"}
//	← {"type":"board",…,"seq":1,"phase":"waiting","host":"PJS","players":[{"name":"PJS","connected":true,"frames":[],"total":0}],…}
//	← {"type":"welcome","ref":"1","seat":0,"name":"PJS","token":"9b2c…"}
//	→ {"type":"start","id":"2"}
//	← {"type":"board",…,"seq":2,"phase":"playing","up":{"seat":0,"frame":1,"ball":1,"standing":10},"host":"PJS",…}
//	← {"type":"ack","ref":"2","seq":2}
//	→ {"type":"roll","pins":11,"frame":1,"ball":1,"id":"3"}
//	← {"type":"error","code":"invalid_pins","message":"roll 1: 11 pins is not a roll, a roll is 0 to 10 pins","ref":"3"}
//	→ {"type":"roll","pins":10,"frame":1,"ball":1,"id":"4"}
//	← {"type":"board",…,"seq":3,"up":{"seat":0,"frame":2,"ball":1,"standing":10},"host":"PJS","players":[{…,"frames":[{"marks":"X","rolls":[10],"score":null}],…}],…}
//	← {"type":"ack","ref":"4","seq":3}
//	→ {"type":"roll","pins":10,"frame":1,"ball":1,"id":"5"}
//	← {"type":"ack","ref":"5","seq":3}
//	→ {"type":"roll","pins":9,"frame":1,"ball":1,"id":"5b"}
//	← {"type":"error","code":"stale_roll","message":"frame 1 ball 1 is not PJS's next ball (that is frame 2 ball 1)","ref":"5b"}
//
// Fair play: BOB's 7 was an 8 (a correction the rules refuse changes
// nothing); BOB's phone then locks while BOB is up, and PJS skips BOB once
// BOB has been offline for the away time:
//
//	→ {"type":"correct","frame":1,"ball":1,"pins":10,"name":"BOB","id":"6"}
//	← {"type":"error","code":"invalid_correction","message":"frame 1 ball 1 cannot be 10: the balls bowled after it would belong to other frames","ref":"6"}
//	→ {"type":"correct","frame":1,"ball":1,"pins":8,"name":"BOB","id":"7"}
//	← {"type":"board",…,"players":[…,{"name":"BOB",…,"frames":[{"marks":"8|/","rolls":[8,2],"score":null,"corrected":true}],…}],…}
//	← {"type":"ack","ref":"7","seq":9}
//	→ {"type":"skip","id":"8"}
//	← {"type":"error","code":"not_away","message":"BOB has been offline for 12s; a player may be skipped after 30s","ref":"8"}
//	→ {"type":"skip","id":"9"}
//	← {"type":"board",…,"up":{"seat":0,"frame":3,"ball":1,"standing":10},"players":[…,{"name":"BOB","connected":false,"away":true,…}],…}
//	← {"type":"ack","ref":"9","seq":11}
//
// # Bowlers
//
// A bowler is remembered without an account: a device holds a key (130
// random bits), which the server keeps only as its SHA-256, never sends
// between the nodes of a cluster, and never logs. Every game a seat linked
// to a bowler bowls to the end goes into their history under the name
// bowled that night, the moment its last ball is bowled, and their
// numbers are kept as each game goes in; a ball of it corrected before
// the next game is set up puts the corrected game in its place, counted
// once, the average and highs following it. Every request
// below but /link and /shared carries the key in the header
// "Authorization: Bowler <key>", never in the URL:
//
//	GET    /api/bowlers/me                the bowler's numbers (Bowler): {"name","games","pins","average","high_game","high_series","strike_pct","spare_pct","first_ball_average","clean_games","splits":{"made","tries"},"single_pins":{"made","tries"},"leaves":[{"pins":[10],"tries":19,"made":14}],"shared"}
//	GET    /api/bowlers/me/games?before=&limit=   the history, newest first, a page at a time (BowlerGames): {"games":[{"lane","lane_name","game","at","name","score","frames","sheet"}],"next":"…"}
//	GET    /api/bowlers/me/games.csv      the whole history as a spreadsheet's file: date (when the game ended, in UTC; a correction keeps it), lane, lane_name, then a lane's games.csv columns
//	GET    /api/bowlers/me/chart.svg      every game's score (the latest 500) and the running average, as an image (image/svg+xml); ?lang=ko
//	POST   /api/bowlers/me/codes          → 201 a one-time code (LinkCode): {"code","expires","url","qr"}, for another device, for 10 minutes, once
//	POST   /api/bowlers/link              {"code":"…"} (no key) → {"bowler_key":"…"} (BowlerKey): the other device's own key; 410 code_used if the code linked a device already, 400 invalid_code if it is unknown or expired
//	DELETE /api/bowlers/me/key            revoke this device's key ("forget me") → 204
//	DELETE /api/bowlers/me                erase the bowler: numbers, history, keys, share → 204. The lanes keep the games under the names bowled, nothing more
//	POST   /api/bowlers/me/share          → 201 a read-only link (Share): {"share","url":".../b/{share}"}, replacing any before
//	DELETE /api/bowlers/me/share          revoke it → 204
//	GET    /api/bowlers/shared/{share}    the numbers, as /me (no key); also …/games and …/chart.svg
//
// average is total pins ÷ games with fractions dropped, as USBC computes
// averages; high_series is the best total of 3 games in a row of one
// lane's series; strike_pct and spare_pct are percentages to one decimal
// of the chances Stats counts; splits, single_pins and leaves count a
// rack's first ball that left pins, where its deck is known, and made when
// the next ball cleared them; leaves are the 10 leaves faced most. A
// game's sheet is its lane's page (kept read-only once the lane closed).
// next is the before of the following page; limit is 1–100, 20 if omitted.
//
// A key that no bowler holds (never made, revoked, or deleted) is answered
// 401 unknown_bowler, and a join with it is refused unknown_bowler: join
// as a guest, or start a new history. One address may try 20 unknown
// keys, codes or shares, then one a second: past that, 429 rate_limited.
//
// # Leagues
//
// A league is a season of weekly nights: its teams and rosters, handicap,
// points, absent and vacancy scores (the rules are package lane/league's,
// written out in lane/bowling/DOMAIN.md, "League"), its schedule, and the
// history of its changes. Anyone with its id reads it. Its secretary,
// whoever holds the key its creation answered, opens and closes its
// nights and enters and corrects its scores, sending the key in the
// header "Authorization: Secretary <key>", never in a URL. The server
// keeps only the key's SHA-256, and never logs it:
//
//	POST /api/leagues                       {"name":"Thursday Mixed","games_per_night":3,"handicap":{"basis":220,"percent":90},"points":{"per_game":2,"per_series":2},"absent_minus":10,"vacancy_score":120,"teams":[{"name":"Pin Pals","bowlers":[{"name":"Kim","average":150},{"name":"Lee"}]},…],"weeks":6} (CreateLeague; handicap, average and weeks optional) → 201, Location: /api/leagues/{id}, {"id","secretary_key"} (CreatedLeague): the key is in this body only
//	GET  /api/leagues/{id}                  the settings, teams and schedule (League): {"id","name",…,"teams":[…],"schedule":[{"week":1,"matches":[{"home":"Pin Pals","away":"Strikers","lane":"k3x9…"}]}],"week":1,"open":true}
//	GET  /api/leagues/{id}/standings        (LeagueStandings) {"week":1,"teams":[{"name","points_won","points_lost","pins_scratch","pins_handicap","high_game","high_series"}],"bowlers":[{"name","team","games","pins","average","handicap","high_game","high_series"}]}
//	GET  /api/leagues/{id}/recap.csv        the weekly recap as a spreadsheet's file (text/csv, UTF-8 with a byte order mark, attachment "tenpin-league-{id}-week-{n}.csv"): sections, a blank row between them, every row as wide as the widest: league, week, night ("closed", "open" for a night in play, "" before the first), as_of; rank, team and the standings' team columns; bowler, team and the standings' bowler columns (average and handicap empty while unknown); week, home, away, home_1…home_{games}, home_series, away_1…, away_series, home_points, away_points: the night's matches, each team's games with handicap (empty until a game counts)
//	GET  /api/leagues/{id}/recap.svg        the standings as an image (image/svg+xml): the league's name, the week and the date of its latest change, and the teams ranked, points won and lost, pins scratch and with handicap, high game and series; ?lang=ko for its words in Korean
//	GET  /api/leagues/{id}/history?after=&limit=   its changes, oldest first, a page at a time (LeagueHistory): {"records":[{"n":1,"at","by":"secretary","kind":"opened","week":1,"absent":["Lee"],"substitutes":[{"for","name","average"}],"lanes":["k3x9…"]},{"n":2,…,"by":"lane k3x9…","kind":"scored","bowler":"Kim","game":1,"score":160}],"next":"…"}
//	POST /api/leagues/{id}/weeks/{n}/open   the secretary's: {"absent":["Lee"],"substitutes":[{"for":"Lee","name":"Jung","average":140}]} (OpenWeek; {} or no body for nobody absent) → {"week":1,"matches":[{"home","away","lane","home_invite","away_invite"}]} (OpenedWeek): each team's invitation to its match's lane, the secretary's alone (never in the league's public answers)
//	GET  /api/leagues/{id}/weeks/{n}/invites  the secretary's: the open week's matches with their lanes and invitations, as the opening answered them (OpenedWeek); 409 wrong_week for a week not open
//	POST /api/leagues/{id}/weeks/{n}/close  the secretary's, no body → the record made (LeagueRecord)
//	POST /api/leagues/{id}/scores           the secretary's: {"week":1,"bowler":"Kim","game":1,"score":160} (LeagueScore) → the record made (LeagueRecord), or 204 with no body if the game has that score already
//	POST /api/leagues/{id}/balls            the secretary's: {"week":1,"bowler":"Kim","game":1,"frame":3,"ball":2,"pins":7} (LeagueBall) → the record made (LeagueRecord)
//	GET  /api/leagues/{id}/secretary        the secretary's: 204 if the key is the league's secretary's (403 not_secretary if not); it changes nothing
//	POST /api/leagues/{id}/weeks/{n}/matches/{m}/roll      the secretary's, on the lane of match m (from 1, in the week's schedule) of the night open: {"name":"Kim","frame":3,"ball":1,"pins":7} (LeagueLaneBall; "deck" or "foul" as a roll's) → the lane's board once stored (Board): any place's ball up, as a roll gives it
//	POST /api/leagues/{id}/weeks/{n}/matches/{m}/correct   the same body: any place's ball of the game in play, as a correct gives it → the board
//	POST /api/leagues/{id}/weeks/{n}/matches/{m}/skip      no body: the bowler up, offline for the away time → the board
//	POST /api/leagues/{id}/weeks/{n}/matches/{m}/remove    {"name":"Kim"} (LeaguePlace): the place given back from the phone that holds it → the board
//
// The schedule is a round robin (teams − 1 weeks, each pair once; weeks
// repeats it, home and away swapped); week is the night in play, open or
// next to open. Nights open in the order of the weeks, each once the one
// before has closed. Opening a night opens one private lane per match,
// in the order of the week's schedule, and the league keeps their ids
// (schedule[].matches[].lane, and the opening's record); a bowler marked
// absent scores their average less absent_minus, unless a substitute
// bowls in their place ("for": a bowler who is then absent, listed in
// absent or not). A night closes once every game of it is scored. A
// score enters a game, or corrects it, on the night in play or a closed
// one: everything after it follows (averages, handicaps, points,
// standings). A ball's correction counts a game already scored again
// from its balls, as the night's lane kept them (a lane's night is kept
// for the server's -keep), with the league's earlier corrections of
// them: refused (invalid_correction) for a game in play (its lane
// corrects it), one not bowled to its end, a ball the rules refuse, or
// a game whose lane is no longer kept. The lane's own sheet stays the
// night as bowled; the league's history says which ball changed. Standings count the night in play as far as it is bowled;
// week is the nights closed, and a bowler's handicap is next night's.
// A record's by is "secretary", or "lane {id}" for a score the night's
// lane sent; kind is opened, scored, corrected (was: the score before;
// frame, ball, pins_was and pins: the ball a ball's correction changed)
// or closed. A history's limit is 1–1000, 200 if omitted; next is the
// after of the following page.
// The recaps count the night in play as far as it is bowled, as the
// standings do, and are exports as a lane's are
// (see HTTP): built once for each change of the league, with an ETag of
// it, 304 to a request that has it, and counted against the address's
// exports a second.
//
// A league lane's commands (roll, correct, skip, remove) are the host's
// powers on the league night's lane, which has no host among its
// bowlers (see League nights); the lane decides them as it decides a
// phone's, and refuses them with a lane's codes (400 stale_roll,
// not_away, invalid_pins, invalid_correction, not_seated for a name on
// no place or a place no phone holds; 503 unavailable if the lane's
// store does not take it), besides a league's: 409 wrong_week for a
// night not open, 404 lane_not_found for a match the night has not or a
// lane closed. In a cluster, the node asked hands the command to the
// node that runs the lane; 503 unavailable while it cannot be reached.
//
// A league's refusals change nothing (and open no lane):
//
//	400 invalid_league       impossible settings, the message saying which and why: an odd number of teams or fewer than 2 or more than 32, a team with no bowler or more than 6, a name twice (as a lane tells names apart), a percent outside 0–100, a basis, absent_minus or vacancy_score outside 0–300, games_per_night outside 1–5, points outside 0–100, an entering average outside 1–300, weeks outside 0–52
//	400 invalid_night        an opening with a bowler absent twice, a name that is no bowler's, two substitutes for one place, a substitute the night cannot take (a league bowler's name, one taken, no lane's name, an average outside 0–300), or a match whose every bowler is absent with no substitute (its lane would seat nobody)
//	400 invalid_score        a score outside 0–300, of a game the night does not have, for an absent bowler, or for nobody of the league or the night
//	401 secretary_required   a secretary's request without "Authorization: Secretary <key>"
//	403 not_secretary        another key; one address may try 20 wrong keys (bowler and secretary keys together), then one a second: 429 rate_limited past that
//	404 league_not_found     no league of that id
//	409 wrong_week           a night opened out of turn (the week before not closed, one open already, the season over), or a score or a closing for a week whose night is not open
//	409 night_incomplete     closing a night with games still to score; the message names some
//	409 too_many_corrections a correction (of a score or a ball) of a game corrected 30 times already: a night's records stay bounded
//
// One address may create 10 leagues, then one every 6 minutes (429
// rate_limited past that); a league that is refused costs nothing.
//
// # HTTP
//
// This is the one reference of the HTTP API; the README and package
// lobby/api point here. The API is served on the same address as the page:
//
//	GET  /api/lanes?limit=&after=    the lobby's list, a page at a time (Lanes): {"lanes":[{"id","name","phase","players":["PJS"],"spectators":0,"frame":1}],"next":"…","total":1}
//	POST /api/lanes                  {"name":"Friday night","private":true} (CreateLane; "private", "give_away" and "open" are optional) → 201, Location: /api/lanes/{id}, and the lane's summary as the list shows it with its "host_key" and its "invite" (CreatedLane): a join with the key makes its player the host, whoever joined first, and the lane waits for that join (see join); any other join must carry the invitation. Both are in this body only: keep them as tokens. With "give_away":true the lane has no key and waits for nobody: its first player seated hosts it. With "open":true it has no invitation: anyone may join (demos, load tests)
//	GET  /api/lanes/{id}             the lane's board: the board message (Board)
//	GET  /api/lanes/{id}/board.txt   the text scoreboard (text/plain), for curl
//	GET  /api/lanes/{id}/games       the lane's series (Games): {"games":[{"game":1,"finished":true,"players":[{"name","frames","total","strikes","spares","opens","left","stats"}],"corrections":[{"name","frame","ball","was","pins","by","at"}]}]}
//	GET  /api/lanes/{id}/stats       the night's numbers (Stats): {"players":[{"name","games","pins","average","high","strikes","strike_chances","spares","spare_chances","opens","first_ball_avg","splits","splits_made","single_pins","single_pins_made","fouls","clean_games"}]}
//	GET  /api/lanes/{id}/games.csv   the series as a spreadsheet's file (text/csv, UTF-8 with a byte order mark): a header row, then a row per bowler per game: game, bowler, the ten frames' marks, total, finished, left, and the game's numbers as stats names them (clean_game for clean_games)
//	GET  /api/lanes/{id}/games/{n}.svg   game n (from 1) as a scorecard image (image/svg+xml): the lane's name and the date, names, marks, running scores and totals; ?lang=ko for its words in Korean
//	GET  /api/lanes/{id}/invite      {"url":"http://192.168.1.20:8080/lanes/k3x9…","urls":[…],"qr":"/api/lanes/k3x9…/qr.png"} (Invite): the lane's link at an address friends' phones can open
//	GET  /api/lanes/{id}/qr.png      a QR code of the invitation's url (image/png): a link to watch; with the header "Tenpin-Invite: <invitation>" (never in a URL, which servers log) the link carries it in its fragment, #invite=…, and seats whoever scans it; 400 bad_request for a header that is not an invitation (26 letters A–Z, 2–7)
//	GET  /ws/lanes/{id}              the lane's WebSocket: see Transport
//	…    /api/leagues…               a league's settings, schedule, nights, scores and standings: see Leagues
//	GET  /api/nodes                  {"nodes":[{"name":"n1","urls":["http://192.168.1.20:8081"]}]} (Nodes): the nodes of the server's cluster alive now, this one first
//	GET  /healthz                    ok (text/plain) while the server's store takes writes, and "full: …" naming the full budgets; else 503 unavailable, or 507 storage_full
//	                                 (to any origin: Access-Control-Allow-Origin: *, for a page on another node to probe it)
//
// Any other method or path under /api/ is answered 404 not_found. A lane
// is found by its id whether it is listed or private, and, in a cluster,
// on whichever node a client asks: that node relays it, or takes over a
// lane that no node runs. JSON answers are sent with Cache-Control:
// no-store (but the list, below); every answer, the page's too, carries
// X-Content-Type-Options: nosniff and Referrer-Policy: no-referrer.
//
// The lobby's list comes a page at a time, oldest lane first (in a
// cluster, whose nodes cannot tell each other's lanes' age, in the order
// of their ids): ?limit= lanes (1 to 200; 50 if omitted) after the lane
// whose id is ?after= (none: from the first). next is the after of the
// following page, omitted on the last; total is how many lanes are
// listed, on every page. A lane that closed between two pages is still a
// valid after; an after that names no lane the server knows of is
// answered 400 bad_request: list again from the first page. A private
// lane is never listed: only its link leads to it (and, to sit, its invitation). The list is built at
// most once a second, so a lane's players and phase may show a second
// late (lanes created or closed show at once); in a cluster, a node that
// does not answer within half a second is left out. The list is gzipped
// for a client that accepts it, and carries a weak ETag and Cache-Control:
// no-cache: a request whose If-None-Match holds the ETag is answered 304.
//
// A lane's exports — games, stats, games.csv, games/{n}.svg — are built
// once for each change of the lane and carry an ETag of it, with
// Cache-Control: no-cache: a request whose If-None-Match holds the ETag is
// answered 304 with no body. One address may ask for 20 exports a second,
// in bursts of 150, and is answered 429 rate_limited past that. The
// server answers a few exports at a time, so that the lanes are never
// kept waiting for them: one that has waited 10 s for its turn is answered
// 503 unavailable, with a Retry-After.
//
// A lane's series, games, is the games the lane has had, oldest first,
// numbered from 1; the game of the moment comes last, finished false
// until it is over. A lane keeps its last 100 finished games, across
// restarts. A player's line: frames as on the board, total, the frames
// that were strikes, spares and open (a tenth frame counts by its first
// two balls), and left, for a player who left or was removed during that
// game. corrections, oldest first, are the balls changed after they were
// bowled: whose (name), which (frame, ball), what it was (was) and became
// (pins), who changed it (by: a player's name, or "secretary" on a
// league night's lane) and when (at, RFC 3339).
//
// A lane that closes (nobody on it for its idle or abandon time) with a
// ball bowled on it is kept, read-only, for the server's -keep (400 days
// by default): GET /api/lanes/{id} answers its last board with closed_at
// (RFC 3339) set, nobody up and nobody connected, and board.txt, games
// (the unfinished game last, finished false), stats, games.csv and
// games/{n}.svg (dated the day it closed) answer as they did while it was
// open. Its WebSocket answers 404 lane_not_found: there is nothing to
// join. A lane closed with no ball bowled is not kept.
//
// An invitation's links are the server's addresses that a phone on the
// same network can open, even when the browser asking is on localhost
// (with none known, the address the request came to); url is the first.
// A QR code takes a few milliseconds to draw and is kept once drawn: one
// address may have new ones drawn 5 a second, in bursts of 20, and is
// answered 429 rate_limited past that.
//
// /api/nodes lists the nodes a client may turn to: each node's name
// (-node) and the addresses at which clients open it, best first. A lone
// server lists itself, with the name "". The page keeps the list, and
// opens its lane on another node when its own stops answering — only one
// whose /healthz has answered the page, never an address it cannot reach —
// taking its seat's token and the lane's invitation along in the
// fragment (#token=…&invite=…), as another node's page has its own storage.
//
// /healthz asks the store whether it takes writes, for at most 2 seconds:
// it answers 200 ok if it does, and 503 unavailable (an [Error], as
// below) if it fails or does not answer in time. Each kind of data the
// store keeps has a budget in bytes (lanes, kept nights, bowlers,
// leagues): while lanes can be played, /healthz answers 200 and names the
// kinds whose budget is full on a second line, "full: kept nights,
// bowlers"; when the lanes' budget is full it answers 507 storage_full. In a cluster the store
// is the stream the nodes share, so a node cut off from the cluster
// answers 503. A server with no store (-memory) always answers ok.
//
// POST bodies are read as strictly as a lane's messages. An HTTP error is
// an [Error], {"type":"error","code":"…","message":"…"}, with the status of
// its code ([Code.Status]):
//
//	400 bad_request              a body that is not one JSON object of the right fields; a bad limit or after
//	400 invalid_lane_name        a lane name that is empty, over 40 characters, has no letter or digit, or has control, bidirectional formatting, invisible (but an emoji's joiner) or non-characters
//	404 not_found                no API at that method and path
//	401 unknown_bowler           a bowler key (or share) that no bowler holds: see Bowlers
//	4xx invalid_league, …        a league's refusals: see Leagues
//	404 lane_not_found           no lane of that id: it may have closed with no ball bowled, or been kept past -keep
//	400 invalid_code             a bowler's one-time code that is unknown or expired
//	410 code_used                a bowler's one-time code that linked a device already: a code links one, once
//	413 too_large                a body over 4 KiB (a league's: 64 KiB; a secretary's command: 8 KiB)
//	415 unsupported_media_type   a POST not sent as application/json: a form or a text/plain body, which another site's page could send, creates nothing
//	421 host_not_allowed         a Host name the server does not answer to (a guard against DNS rebinding), on every request: the page's and the WebSocket's too
//	429 rate_limited             with Retry-After: one address creating lanes too fast, holding its limit of open lanes, asking for new QR codes or exports too fast, creating leagues too fast, trying too many unknown bowler keys or wrong secretary keys, or having too many of its WebSockets refused at once
//	500 internal                 the server failed
//	503 too_many_lanes           the server holds all the lanes it may
//	503 too_many_connections     the server holds all the WebSockets it may (with Retry-After: 5)
//	503 shutting_down            the server is stopping (with Retry-After: 5)
//	503 unavailable              the store did not take the new lane, or does not answer; in a cluster, also a lane that cannot be reached now (with Retry-After: 1)
//	507 storage_full             the budget of that kind of data is full (the message says which): a new lane, league, night or score, a bowler's request that stores something; a closed lane whose night was not kept for it (its link, while the server that closed it runs)
//
// A WebSocket from an address that holds its limit of connections is
// upgraded, sent rate_limited with no ref, and closed with 1013: reconnect
// with backoff. A WebSocket handshake that is not one, or that comes from
// another origin than the server's own (unless the server allows it), is
// answered by the WebSocket library in plain text: 400, 405 or 426, or 403
// for the origin.
package protocol
