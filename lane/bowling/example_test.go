package bowling_test

import (
	"errors"
	"fmt"

	"github.com/tenpin/tenpin/lane/bowling"
)

func ExampleGame() {
	var g bowling.Game
	for _, pins := range []int{10, 8, 2, 8, 1} {
		if err := g.Roll(pins); err != nil {
			fmt.Println(err)
			return
		}
	}
	for _, f := range g.Frames()[:4] {
		score, ok := f.Score()
		fmt.Printf("frame %d: %-4q score %d known %v\n", f.Number, f.Marks(), score, ok)
	}
	fmt.Println("total", g.Total(), "frame in play", g.CurrentFrame())
	// Output:
	// frame 1: "X"  score 20 known true
	// frame 2: "8|/" score 38 known true
	// frame 3: "8|1" score 47 known true
	// frame 4: ""   score 0 known false
	// total 47 frame in play 4
}

func ExampleGame_Roll_refused() {
	var g bowling.Game
	_ = g.Roll(7)
	err := g.Roll(5)
	fmt.Println(err)
	fmt.Println(errors.Is(err, bowling.ErrTooManyPins), g.Standing())
	// Output:
	// roll 2: 5 pins but only 3 standing
	// true 3
}

func ExampleReplay() {
	g, err := bowling.Replay([]int{10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10})
	fmt.Println(g.Total(), g.Over(), err)
	// Output:
	// 300 true <nil>
}

func ExampleParseName() {
	name, err := bowling.ParseName("pjs")
	fmt.Println(name, err)
	_, err = bowling.ParseName("P1")
	fmt.Println(err)
	// Output:
	// PJS <nil>
	// bowling: invalid name: "P1" has 2 characters, a name is exactly 3 English letters
}

func ExampleMatch() {
	m, err := bowling.NewMatch("PJS", "KIM")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pins := range []int{10, 8, 2} {
		seat, frame, _ := m.Up()
		fmt.Printf("%s bowls %d in frame %d\n", m.Players()[seat].Name, pins, frame)
		_ = m.Roll(pins)
	}
	fmt.Println(m.RollAs("KIM", 3))
	fmt.Print(m.Board())
	// Output:
	// PJS bowls 10 in frame 1
	// KIM bowls 8 in frame 1
	// KIM bowls 2 in frame 1
	// bowling: not your turn: it is PJS's turn, not KIM's
	// | NAME |  01  |  02  |  03  |  04  |  05  |  06  |  07  |  08  |  09  |  10  |
	// |  PJS |  X   |      |      |      |      |      |      |      |      |      |
	// |      |      |      |      |      |      |      |      |      |      |      |
	// |  KIM |  8|/ |      |      |      |      |      |      |      |      |      |
	// |      |      |      |      |      |      |      |      |      |      |      |
}

func ExampleBoard() {
	g, _ := bowling.Replay([]int{10, 8, 2, 8, 1})
	fmt.Print(bowling.Board(bowling.Player{Name: "PJS", Game: g}))
	// Output:
	// | NAME |  01  |  02  |  03  |  04  |  05  |  06  |  07  |  08  |  09  |  10  |
	// |  PJS |  X   |  8|/ |  8|1 |      |      |      |      |      |      |      |
	// |      |  20  |  38  |  47  |      |      |      |      |      |      |      |
}

func ExampleParseLaneName() {
	for _, s := range []string{"홍길동", "Anne-Marie", "O’Neil", "pjs", "Zoë", "Mary  Ann", "Jo\u202E", "Stephanie-Joy"} {
		name, err := bowling.ParseLaneName(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s (%d columns)\n", name, name.Width())
	}
	fmt.Println(bowling.Name("Zoë").Same("ZOË"))
	// Output:
	// 홍길동 (6 columns)
	// Anne-Marie (10 columns)
	// O'Neil (6 columns)
	// pjs (3 columns)
	// Zoë (3 columns)
	// bowling: invalid name: "Mary  Ann" has a space after a space, words are separated by one space, hyphen or apostrophe
	// bowling: invalid name: "Jo\u202e" has U+202E, a bidirectional formatting character that could disguise the name
	// bowling: invalid name: "Stephanie-Joy" has 13 characters, a name is at most 12
	// true
}

func ExampleDeck_Split() {
	for _, pins := range [][]int{{7, 10}, {5, 6}, {2, 8}, {1, 2, 10}, {10}} {
		d, err := bowling.NewDeck(pins...)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-6s split %v\n", d, d.Split())
	}
	_, err := bowling.NewDeck(7, 11)
	fmt.Println(err)
	// Output:
	// 7-10   split true
	// 5-6    split true
	// 2-8    split false
	// 1-2-10 split false
	// 10     split false
	// bowling: invalid pins: there is no pin 11, pins are numbered 1 to 10
}
