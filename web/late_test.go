package web_test

import (
	"testing"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/protocol"
)

// A friend who arrives at frame 4 joins from the page: the join form is
// there while the game is played, says the frames missed come first, and
// seats them late.
func TestALateFriendJoinsFromThePage(t *testing.T) {
	s := serve(t, lobby.Config{})
	page := browser(t)()
	show(t, page, phone)
	tb := newTable(t, s, page, "Late", "", "AAA", "BBB")
	tb.play(func(b *protocol.Board) bool { return b.Up.Frame == 4 })
	until(t, page, "the join form, mid-game", `document.querySelector("#join-form").checkVisibility() && document.querySelector("#join-late").checkVisibility()`)
	join(t, page, "Sam", "Sam")
	until(t, page, "Sam seated late", `document.querySelector('#board tr[data-player="Sam"] .late') !== null && !document.querySelector("#join-form").checkVisibility()`)
}
