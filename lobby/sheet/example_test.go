package sheet_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tenpin/tenpin/lobby/sheet"
	"github.com/tenpin/tenpin/protocol"
)

func ExampleCSV() {
	score := 30
	games := protocol.Games{Games: []protocol.Game{{
		Game: 1, Finished: false,
		Players: []protocol.GamePlayer{{
			Name:   "PJS",
			Frames: []protocol.Frame{{Marks: "X", Rolls: []int{10}, Score: &score}, {Marks: "-|/", Rolls: []int{0, 10}}},
			Stats:  protocol.PlayerStats{Strikes: 1, StrikeChances: 2, Spares: 1, SpareChances: 1},
		}},
	}}}
	var buf bytes.Buffer
	if err := sheet.CSV(&buf, games); err != nil {
		panic(err)
	}
	fmt.Print(strings.TrimPrefix(buf.String(), "\uFEFF")) // the byte order mark is for spreadsheets
	// Output:
	// game,bowler,1,2,3,4,5,6,7,8,9,10,total,finished,left,strikes,strike_chances,spares,spare_chances,opens,first_ball_avg,splits,splits_made,single_pins,single_pins_made,fouls,clean_game
	// 1,PJS,X,'-|/,,,,,,,,,0,false,false,1,2,1,1,0,,0,0,0,0,0,false
}
