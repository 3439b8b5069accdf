package natscluster

import (
	"testing"
	"time"

	"github.com/tenpin/tenpin/lane"
)

// TestPublishesOnlyWhatIsRelayed: a lane's boards are published for other
// nodes only while one of its clients is relayed there, so lanes whose
// clients all sit on their lanes' nodes send no board between nodes.
func TestPublishesOnlyWhatIsRelayed(t *testing.T) {
	p := startPair(t, "relayedlane") // n2 relays it to a client
	cl, err := p.n1.Claim("quietlane")
	if err != nil {
		t.Fatal(err)
	}
	cl.Bind(lane.New("quietlane", "quietlane", lane.Config{})) // no client anywhere
	sub, err := p.n2.nc.SubscribeSync(subjBoard + ">")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.n2.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	// One publisher's messages arrive in order: had the quiet lane's
	// board been published, it would come first.
	p.n1.Publish("quietlane", []byte("quiet"), 1)
	p.n1.Publish("relayedlane", []byte("relayed"), 99)
	m, err := sub.NextMsg(10 * time.Second)
	if err != nil {
		t.Fatalf("no board published: %v", err)
	}
	if string(m.Data) != "relayed" {
		t.Errorf("published first: %q on %s; want the relayed lane's board alone", m.Data, m.Subject)
	}
}
