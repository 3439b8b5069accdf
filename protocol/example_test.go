package protocol_test

import (
	"encoding/json"
	"fmt"

	"github.com/tenpin/tenpin/protocol"
)

func ExampleDecode() {
	r, err := protocol.Decode([]byte(`{"type":"roll","pins":7,"frame":3,"ball":2,"id":"12"}`))
	fmt.Println(r.Type, *r.Pins, *r.Frame, *r.Ball, r.ID, err)

	_, err = protocol.Decode([]byte(`{"type":"roll","pins":"7"}`))
	fmt.Println(err)
	// Output:
	// roll 7 3 2 12 <nil>
	// bad_message: not a tenpin message: "pins" must be a whole number, not a JSON string
}

func ExampleBoard() {
	score := 20
	b := protocol.Board{
		Type: protocol.TypeBoard, Lane: "k3x9", Name: "Friday night", Seq: 4, Phase: protocol.PhasePlaying,
		Up: &protocol.Up{Seat: 0, Frame: 2, Ball: 2, Standing: 2}, Host: "PJS",
		Players: []protocol.Player{{Name: "PJS", Connected: true, Total: 20, Frames: []protocol.Frame{
			{Marks: "X", Rolls: []int{10}, Score: &score},
			{Marks: "8", Rolls: []int{8}},
		}}},
	}
	out, _ := json.Marshal(b)
	fmt.Println(string(out))
	// Output:
	// {"type":"board","lane":"k3x9","name":"Friday night","seq":4,"phase":"playing","up":{"seat":0,"frame":2,"ball":2,"standing":2},"host":"PJS","players":[{"name":"PJS","connected":true,"frames":[{"marks":"X","rolls":[10],"score":20},{"marks":"8","rolls":[8],"score":null}],"total":20}],"spectators":0}
}

func ExampleErrorf() {
	e := protocol.Errorf(protocol.CodeNotYourTurn, "it is %s's turn", "ABC")
	e.Ref = "7"
	out, _ := json.Marshal(e)
	fmt.Println(string(out))
	// Output:
	// {"type":"error","code":"not_your_turn","message":"it is ABC's turn","ref":"7"}
}
