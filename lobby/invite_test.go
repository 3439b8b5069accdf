package lobby_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	_ "image/png"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"

	"github.com/tenpin/tenpin/lobby"
	"github.com/tenpin/tenpin/lobby/qrcode"
	"github.com/tenpin/tenpin/protocol"
)

// TestInvite: a lane's invitation links to it at the address the server
// was told friends can open, and its QR code, decoded, is that link.
func TestInvite(t *testing.T) {
	s := newServer(t, lobby.Config{URLs: []string{"http://192.168.1.20:8080", "http://10.0.0.7:8080"}})
	id := s.createLane(t, "invite")
	var inv protocol.Invite
	getJSON(t, s.srv.URL+"/api/lanes/"+id+"/invite", &inv)
	want := "http://192.168.1.20:8080/lanes/" + id
	if inv.URL != want || len(inv.URLs) != 2 || inv.URLs[1] != "http://10.0.0.7:8080/lanes/"+id || inv.QR != "/api/lanes/"+id+"/qr.png" {
		t.Fatalf("invite = %+v, want %s first", inv, want)
	}
	if got := decodeQR(t, s.srv.URL+inv.QR); got != want {
		t.Errorf("the QR code reads %q, want %q", got, want)
	}

	res, err := http.Get(s.srv.URL + "/api/lanes/nosuchlane/qr.png")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("the QR code of an unknown lane: %s, want 404", res.Status)
	}
}

// TestInvitedQR: a QR code asked for with the lane's invitation in the
// Tenpin-Invite header carries it in the link's fragment, which no server
// log sees; a header that is no invitation is refused.
func TestInvitedQR(t *testing.T) {
	s := newServer(t, lobby.Config{URLs: []string{"http://192.168.1.20:8080"}})
	created := s.createKeyed(t, "invited")
	want := "http://192.168.1.20:8080/lanes/" + created.ID + "#invite=" + created.Invite
	if got := decodeQRInvited(t, s.srv.URL+"/api/lanes/"+created.ID+"/qr.png", created.Invite); got != want {
		t.Errorf("the invited QR code reads %q, want %q", got, want)
	}
	req, _ := http.NewRequest(http.MethodGet, s.srv.URL+"/api/lanes/"+created.ID+"/qr.png", nil)
	req.Header.Set(protocol.InviteHeader, created.Invite)
	if res, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
		if cc := res.Header.Get("Cache-Control"); cc != "private, no-store" {
			t.Errorf("the invited QR code's Cache-Control: %q, want private, no-store: no shared cache may keep it", cc)
		}
	}
	for _, bad := range []string{"short", created.Invite + "A", strings.ToLower(created.Invite), "ABCDEFGHIJKLMNOPQRSTUVWXY1"} {
		req, _ := http.NewRequest(http.MethodGet, s.srv.URL+"/api/lanes/"+created.ID+"/qr.png", nil)
		req.Header.Set(protocol.InviteHeader, bad)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("a QR code with invitation %q: %s, want 400", bad, res.Status)
		}
	}
}

// TestInviteWithoutURLs: a server not told its addresses invites at the
// address the request came to.
func TestInviteWithoutURLs(t *testing.T) {
	s := newServer(t, lobby.Config{})
	id := s.createLane(t, "invite")
	var inv protocol.Invite
	getJSON(t, s.srv.URL+"/api/lanes/"+id+"/invite", &inv)
	if want := s.srv.URL + "/lanes/" + id; inv.URL != want || decodeQR(t, s.srv.URL+inv.QR) != want {
		t.Errorf("invite = %+v, want %s", inv, want)
	}
}

// decodeQR fetches a PNG and reads the QR code in it.
func decodeQR(t *testing.T, url string) string {
	t.Helper()
	return decodeQRInvited(t, url, "")
}

// decodeQRInvited is decodeQR with the invitation the code should carry
// in the protocol.InviteHeader ("" for none).
func decodeQRInvited(t *testing.T, url, invite string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if invite != "" {
		req.Header.Set(protocol.InviteHeader, invite)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("GET %s: %s %s", url, res.Status, res.Header.Get("Content-Type"))
	}
	var buf bytes.Buffer
	buf.ReadFrom(res.Body)
	text, err := readQR(buf.Bytes())
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return text
}

// readQR reads the QR code a PNG image is. The image is the code alone,
// drawn module by module with its quiet zone: it is read as such
// (PURE_BARCODE). gozxing's detector, which looks for a code in a
// photograph, misjudges the size of some codes drawn so (that of
// .../lanes/qwjhk88ifa: "dimension = 19"), whose modules read right.
func readQR(png []byte) (string, error) {
	img, _, err := image.Decode(bytes.NewReader(png))
	if err != nil {
		return "", fmt.Errorf("not an image: %w", err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		return "", err
	}
	hints := map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: true}
	result, err := zxqr.NewQRCodeReader().Decode(bmp, hints)
	if err != nil {
		return "", fmt.Errorf("no QR code in the image: %w", err)
	}
	return result.GetText(), nil
}

// TestQRCodesRead: codes of links to lanes read back as the links, those
// that gozxing's detector misjudged among them.
func TestQRCodesRead(t *testing.T) {
	for _, id := range []string{"qwjhk88ifa", "k3x9mdq2vb", "0000000000", "zzzzzzzzzz"} {
		link := "http://192.168.1.20:8080/lanes/" + id
		png, err := qrcode.PNG(link)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := readQR(png); err != nil || got != link {
			t.Errorf("the code of %s reads %q, %v", link, got, err)
		}
	}
}

func BenchmarkQRPNG(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := qrcode.PNG("http://192.168.1.20:8080/lanes/k3x9mdq2vb"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestQRCodesPerAddress: drawing a QR code costs milliseconds, so one
// address may have only so many new ones drawn; codes drawn already are
// served to anyone, at no cost.
func TestQRCodesPerAddress(t *testing.T) {
	const lanes = lobby.QRBurst + 40
	s := newServer(t, lobby.Config{CreateBurst: lanes, URLs: []string{"http://192.168.1.20:8080"}})
	var ids []string
	for i := range lanes {
		ids = append(ids, s.createLane(t, fmt.Sprint("lane ", i)))
	}
	status := func(id string) (int, string) {
		res, err := http.Get(s.srv.URL + "/api/lanes/" + id + "/qr.png")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode, res.Header.Get("Retry-After")
	}
	began := time.Now()
	drawn, refused := 0, 0
	for _, id := range ids {
		switch code, retry := status(id); {
		case code == http.StatusOK:
			drawn++
		case code == http.StatusTooManyRequests && retry != "":
			refused++
		default:
			t.Fatalf("QR code %s: %d, Retry-After %q", id, code, retry)
		}
	}
	// The burst, and what the rate gave back while they were drawn (a
	// draw is slow under the race detector).
	allowed := lobby.QRBurst + int(time.Since(began).Seconds()*lobby.QRRate) + 1
	if refused == 0 || drawn > allowed || drawn < lobby.QRBurst {
		t.Errorf("%d new QR codes asked for: %d drawn, %d refused; want at least %d and at most %d drawn, the rest refused with Retry-After", lanes, drawn, refused, lobby.QRBurst, allowed)
	}
	if code, _ := status(ids[0]); code != http.StatusOK {
		t.Errorf("a QR code drawn already, past the limit: %d, want 200", code)
	}
}

// TestNodesOfALoneServer: a server that is no node of a cluster is the
// only node it names, with the addresses friends can open.
func TestNodesOfALoneServer(t *testing.T) {
	s := newServer(t, lobby.Config{URLs: []string{"http://192.168.1.20:8080"}})
	var nodes protocol.Nodes
	getJSON(t, s.srv.URL+"/api/nodes", &nodes)
	if len(nodes.Nodes) != 1 || nodes.Nodes[0].Name != "" || len(nodes.Nodes[0].URLs) != 1 || nodes.Nodes[0].URLs[0] != "http://192.168.1.20:8080" {
		t.Errorf("GET /api/nodes = %+v, want this server alone", nodes)
	}
}

// TestANewInvitationShutsACrawlerOut: a crawler that has a lane's
// invitation takes a seat again under a new name as fast as the host
// removes it; once the host issues a new invitation, it cannot, while
// the friends seated keep their seats, a friend given the new one joins,
// and a seat is resumed by its token with no invitation at all.
func TestANewInvitationShutsACrawlerOut(t *testing.T) {
	s := newServer(t, lobby.Config{})
	created := s.createKeyed(t, "Friday")
	if len(created.Invite) < 20 {
		t.Fatalf("invitation %q: want a long random code", created.Invite)
	}
	id := created.ID
	host, friend, crawler := s.dial(t, id), s.dial(t, id), s.dial(t, id)
	host.send(t, `{"type":"join","name":"Ann","host_key":"`+created.HostKey+`","id":"ann"}`)
	host.expectAck(t, "ann")
	welcome := friend.joinInvited(t, "Bo", created.Invite)

	crawler.send(t, `{"type":"join","name":"Bota","invite":"`+created.Invite+`","id":"a"}`)
	crawler.expectAck(t, "a")
	host.send(t, `{"type":"remove","name":"Bota","id":"r1"}`)
	host.expectAck(t, "r1")
	crawler.send(t, `{"type":"join","name":"Botb","invite":"`+created.Invite+`","id":"b"}`)
	crawler.expectAck(t, "b") // the invitation it has still seats it

	host.send(t, `{"type":"new_invite","id":"new"}`)
	ack := host.waitFor(t, "the new invitation", func(m msg) bool { return m.Ref == "new" })
	var a protocol.Ack
	if err := json.Unmarshal([]byte(ack.raw), &a); err != nil || a.Type != protocol.TypeAck || len(a.Invite) < 20 || a.Invite == created.Invite {
		t.Fatalf("new_invite answered %s, want an ack with a new invitation", ack.raw)
	}
	host.send(t, `{"type":"remove","name":"Botb","id":"r2"}`)
	host.expectAck(t, "r2")
	crawler.send(t, `{"type":"join","name":"Botc","invite":"`+created.Invite+`","id":"c"}`)
	crawler.expectError(t, "c", string(protocol.CodeInvitationRequired))

	friend.send(t, `{"type":"new_invite","id":"not"}`)
	friend.expectError(t, "not", string(protocol.CodeNotHost))
	crawler.send(t, `{"type":"new_invite","id":"spec"}`)
	crawler.expectError(t, "spec", string(protocol.CodeNotSeated))
	crawler.send(t, `{"type":"new_invite"}`)
	if m := crawler.waitFor(t, "a new_invite without an id refused", func(m msg) bool { return m.Type == protocol.TypeError }); m.Code != protocol.CodeBadMessage {
		t.Errorf("a new_invite without an id: %s, want bad_message", m.raw)
	}

	late := s.dial(t, id)
	late.joinInvited(t, "Cy", a.Invite)
	b := host.boardWith(t, "Cy seated", func(m msg) bool {
		return slices.ContainsFunc(m.Players, func(p protocol.Player) bool { return p.Name == "Cy" })
	})
	var seated []string
	for _, p := range b.Players {
		if !p.Left {
			seated = append(seated, p.Name)
		}
	}
	if !slices.Equal(seated, []string{"Ann", "Bo", "Cy"}) {
		t.Errorf("seated %q, want Ann, Bo and Cy", seated)
	}
	friend.conn.CloseNow()
	again := s.dial(t, id)
	again.send(t, `{"type":"resume","token":"`+welcome.Token+`","id":"back"}`)
	again.expectAck(t, "back")
}
