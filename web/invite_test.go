package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenpin/tenpin/lobby"
)

// refusedInvitation is what the lane's page says, beside the name, of a
// join the lane refused for want of its invitation (invitation_required).
const refusedInvitation = "This lane seats only who has its invitation: open the link or QR code that the host shares. You can watch from here."

// tryJoin types name, in place of what the join form held, and sends it.
func tryJoin(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	do(t, ctx, "join as "+name,
		chromedp.WaitVisible(chromedp.CSS("#join-name")),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#join-name").value = ""`),
		chromedp.SendKeys(chromedp.CSS("#join-name"), name),
		chromedp.Click(chromedp.CSS("#join")))
}

// seated is the names on the page's board, in seat order.
const seated = `[...document.querySelectorAll("#board tr[data-row=marks]")].map(tr => tr.dataset.player).join(" ")`

// watchingRefused holds when the page shows the refusal of its join for
// want of the invitation, with the board of players as want, and no seat.
func watchingRefused(want string) string {
	return fmt.Sprintf(`document.querySelector("#join-error").textContent === %s && window.tenpin.state.seat === null && %s === %s && !document.querySelector("#join-form").hidden`,
		js(refusedInvitation), seated, js(want))
}

// TestInvitationSeatsFriends plays issue 43 on a friends' lane, through
// the pages: a phone that opens the lane from the lobby's list watches
// and cannot sit; a phone with the host's link joins; the host removes a
// crawler that came in with that link and makes a new invitation, after
// which the crawler, holding the old link, cannot sit again under another
// name, while a friend with the new link can, and nobody seated loses
// their seat.
func TestInvitationSeatsFriends(t *testing.T) {
	s := serve(t, lobby.Config{})
	open := browser(t)
	host := open()
	do(t, host, "create a lane",
		chromedp.Navigate(s.url+"/"),
		chromedp.WaitVisible(chromedp.CSS("#create-name")),
		chromedp.SendKeys(chromedp.CSS("#create-name"), "Friends"),
		chromedp.Click(chromedp.CSS(`#create-form button[type=submit]`)))
	until(t, host, "the lane page", `location.pathname.startsWith("/lanes/") && document.querySelector("#conn").classList.contains("ok")`)
	id := strings.TrimPrefix(eval[string](t, host, `location.pathname`), "/lanes/")
	oldLink := sharedLink(t, host)
	if !strings.HasPrefix(oldLink, s.url+"/lanes/"+id+"#invite=") {
		t.Fatalf("the host's page shares %s, want the lane's link with its invitation", oldLink)
	}
	join(t, host, "Ann", "Ann")
	until(t, host, "the New invitation button, the host's", `document.querySelector("#invite-title").textContent === "Invite friends" && !document.querySelector("#new-invite-part").hidden && document.querySelector("#new-invite").textContent === "New invitation"`)

	// (a) A stranger opens the lane from the lobby's list: it watches; its
	// join is refused, said beside the name, and it stays a watcher.
	stranger := open()
	do(t, stranger, "the lobby", chromedp.Navigate(s.url+"/"))
	until(t, stranger, "the lane listed", `document.querySelectorAll("#lanes tbody a").length === 1`)
	do(t, stranger, "open the listed lane", chromedp.Click(chromedp.CSS("#lanes tbody a")))
	until(t, stranger, "the lane, watched", `location.pathname === "/lanes/`+id+`" && document.querySelector("#conn").classList.contains("ok") && `+seated+` === "Ann"`)
	until(t, stranger, "the link to watch and its QR code shared", `document.querySelector("#invite-title").textContent === "Share this lane to watch" && document.querySelector("#share-url").value === `+js(s.url+"/lanes/"+id)+` && document.querySelector("#qr").getAttribute("src") === `+js(qrData(t, s, id, "")))
	if !eval[bool](t, stranger, `document.querySelector("#new-invite-part").hidden`) {
		t.Error("a watcher is offered a new invitation")
	}
	tryJoin(t, stranger, "Sam")
	until(t, stranger, "the stranger refused, watching", watchingRefused("Ann"))
	until(t, host, "the host sees no stranger", seated+` === "Ann"`)

	// (b) A friend with the host's link joins.
	bob := open()
	do(t, bob, "open the host's link", chromedp.Navigate(oldLink))
	join(t, bob, "Bob", "Bob")
	if got := eval[string](t, bob, `location.href`); got != s.url+"/lanes/"+id {
		t.Errorf("the friend's address bar shows %s, want the invitation taken out of it", got)
	}
	if got := eval[string](t, bob, `document.querySelector("#share-url").value`); got != oldLink {
		t.Errorf("the friend's page shares %s, want the invitation's link %s", got, oldLink)
	}

	// (c) A crawler that got the link joins; the host removes it.
	crawler := open()
	do(t, crawler, "open the host's link", chromedp.Navigate(oldLink))
	join(t, crawler, "Zed", "Zed")
	until(t, host, "Zed seated", seated+` === "Ann Bob Zed"`)
	do(t, host, "remove Zed",
		chromedp.Click(chromedp.CSS(`#board tr[data-player="Zed"] button.name`)),
		chromedp.WaitVisible(chromedp.CSS("#remove")),
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		chromedp.Click(chromedp.CSS("#remove")))
	until(t, crawler, "the crawler removed, watching", `window.tenpin.state.seat === null && `+seated+` === "Ann Bob"`)

	// The host makes a new invitation: the page says the old link seats
	// nobody, and shares the new one.
	do(t, host, "New invitation", chromedp.Click(chromedp.CSS("#new-invite")))
	until(t, host, "the new invitation, said", `document.querySelector("#new-invite-done").textContent.startsWith("New invitation made: the old link and QR code no longer seat anyone.") && document.querySelector("#share-url").value.includes("#invite=") && document.querySelector("#share-url").value !== `+js(oldLink))
	newLink := sharedLink(t, host)
	newCode := newLink[strings.Index(newLink, "#invite=")+len("#invite="):]
	until(t, host, "the new invitation's QR code", `document.querySelector("#qr").dataset.invite === "true" && document.querySelector("#qr").getAttribute("src") === `+js(qrData(t, s, id, newCode)))
	if got := eval[string](t, host, `localStorage.getItem("tenpin-invite-" + `+js(id)+`)`); got != newCode {
		t.Errorf("the host's page keeps the invitation %q, want the new %q", got, newCode)
	}
	if got, want := eval[string](t, host, `document.querySelector("#tv-link").getAttribute("href")`), "/lanes/"+id+"/tv#invite="+newCode; got != want {
		t.Errorf("the TV link is %s, want %s", got, want)
	}

	// The crawler, its page still holding the old link, tries a new name:
	// refused, and its page forgets the invitation that no longer seats.
	tryJoin(t, crawler, "Zee")
	until(t, crawler, "the crawler refused under a new name", watchingRefused("Ann Bob"))
	until(t, crawler, "the old link no longer shared", `document.querySelector("#share-url").value === `+js(s.url+"/lanes/"+id)+` && !localStorage.getItem("tenpin-invite-" + `+js(id)+`)`)
	// Opening the old link again, afresh, changes nothing.
	do(t, crawler, "open the old link again", chromedp.Navigate("about:blank"), chromedp.Navigate(oldLink))
	until(t, crawler, "the lane, watched", `document.querySelector("#conn").classList.contains("ok") && `+seated+` === "Ann Bob"`)
	tryJoin(t, crawler, "Zoe")
	until(t, crawler, "the crawler refused again", watchingRefused("Ann Bob"))

	// The stranger, watching, is sent the new link and opens it in the
	// same tab (only the fragment changes: the page stays, and takes the
	// invitation); it joins. Those seated kept their seats.
	do(t, stranger, "the new link in the watching tab", chromedp.Navigate(newLink))
	until(t, stranger, "the new invitation taken", `document.querySelector("#share-url").value === `+js(newLink)+` && location.href === `+js(s.url+"/lanes/"+id)+` && document.querySelector("#qr").dataset.invite === "true"`)
	cy := stranger
	do(t, cy, "clear the name", chromedp.Evaluate[chromedp.Void](`document.querySelector("#join-name").value = ""`))
	join(t, cy, "Cy", "Cy")
	for name, p := range map[string]context.Context{"Ann": host, "Bob": bob, "Cy": cy} {
		until(t, p, name+" seated among Ann, Bob and Cy", `window.tenpin.state.seat === `+js(name)+` && `+seated+` === "Ann Bob Cy"`)
	}
	// The host's TV link shows the new invitation's QR code.
	tv := open()
	do(t, tv, "the lane's TV, with the invitation", chromedp.Navigate(s.url+"/lanes/"+id+"/tv#invite="+newCode))
	until(t, tv, "the TV's QR code, the invitation's", `document.querySelector(".tv-qr").dataset.invite === "true" && document.querySelector(".tv-qr").getAttribute("src") === `+js(qrData(t, s, id, newCode))+` && document.querySelector(".tv-scan").textContent === "Scan to join"`)
	watchTV := open()
	do(t, watchTV, "the lane's TV, without", chromedp.Navigate(s.url+"/lanes/"+id+"/tv"))
	until(t, watchTV, "the TV's QR code, to watch", `document.querySelector(".tv-qr").dataset.invite === "false" && !document.querySelector(".tv-qr").hidden && document.querySelector(".tv-scan").textContent === "Scan to watch"`)
}

// TestInvitationRefusedInKorean: the refusal is said in the page's
// language.
func TestInvitationRefusedInKorean(t *testing.T) {
	s := serve(t, lobby.Config{})
	id := createLane(t, s, "초대")
	p := browser(t)()
	do(t, p, "Korean, then the lane without its invitation",
		chromedp.Navigate(s.url+"/"),
		chromedp.Evaluate[chromedp.Void](`localStorage.setItem("tenpin-lang", "ko")`),
		chromedp.Navigate(s.url+"/lanes/"+id))
	tryJoin(t, p, "Jo")
	until(t, p, "the refusal, in Korean", `document.querySelector("#join-error").textContent === "이 레인은 초대받은 사람만 앉을 수 있습니다: 호스트가 공유하는 링크나 큐알 코드를 여세요. 여기서는 관전할 수 있습니다." && window.tenpin.state.seat === null`)
}
