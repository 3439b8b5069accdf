package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tenpin/tenpin/lane/bowling"
)

// maxConsolePlayers bounds the console game: more rows than this no longer
// fit a terminal screen under one header.
const maxConsolePlayers = 8

// phrases are the console game's words in one language.
type phrases struct {
	howMany  string
	name     func(seat, players int) string
	turn     func(name bowling.Name, frame, players int) string
	badCount string
	notANum  string
	over     string
}

var languages = map[string]phrases{
	"en": {
		howMany: "How many players? ",
		name: func(seat, players int) string {
			if players == 1 {
				return "Player name (3 English letters): "
			}
			return fmt.Sprintf("Player %d name (3 English letters): ", seat)
		},
		turn: func(name bowling.Name, frame, _ int) string {
			return fmt.Sprintf("%s's turn (frame %d): ", name, frame)
		},
		badCount: "a game has 1 to %d players",
		notANum:  "%q is not a number",
		over:     "Game over:",
	},
	"ko": {
		howMany: "플레이어 수는?: ",
		name: func(seat, players int) string {
			if players == 1 {
				return "플레이어 이름은(3 english letters)?: "
			}
			return fmt.Sprintf("%d번 플레이어 이름은(3 english letters)?: ", seat)
		},
		turn: func(name bowling.Name, frame, players int) string {
			if players == 1 {
				return fmt.Sprintf("%d프레임 투구 : ", frame)
			}
			return fmt.Sprintf("%s %d프레임 투구 : ", name, frame)
		},
		badCount: "플레이어는 1명에서 %d명까지입니다",
		notANum:  "%q 은(는) 숫자가 아닙니다",
		over:     "게임 종료:",
	},
}

// runPlay is the seeds' console game: it asks for the players, prompts
// whoever is up for their pins, redraws the board after every roll and ends
// with the final board. Bad input is answered with the reason and asked
// again; the end of input ends the game quietly.
func runPlay(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tenpin play", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lang := fs.String("lang", "en", "the prompts' `language`: en or ko")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tenpin play [-lang en|ko]\n\nPlays a game at the console for one or more players.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	words, ok := languages[*lang]
	if !ok {
		return fmt.Errorf("play: -lang %q: the languages are en and ko", *lang)
	}
	c := &console{ctx: ctx, out: stdout, lines: readLines(ctx, stdin), echo: !isTerminal(stdin)}
	err := c.play(words)
	if err == io.EOF {
		fmt.Fprintln(stdout)
		return nil
	}
	return err
}

// console is one game's dialogue: lines in, prompts and boards out.
type console struct {
	ctx   context.Context
	out   io.Writer
	lines <-chan string
	echo  bool // print each answer after its prompt, as a terminal would
}

// isTerminal reports whether r is a terminal, which echoes what is typed.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// readLines delivers stdin line by line until it ends or ctx is done, so
// that a blocked read never keeps the program from stopping.
func readLines(ctx context.Context, r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	return lines
}

// ask prints a prompt and returns the next line, trimmed.
func (c *console) ask(prompt string) (string, error) {
	fmt.Fprint(c.out, prompt)
	select {
	case line, ok := <-c.lines:
		if !ok {
			return "", io.EOF
		}
		if c.echo {
			fmt.Fprintln(c.out, line)
		}
		return strings.TrimSpace(line), nil
	case <-c.ctx.Done():
		fmt.Fprintln(c.out)
		return "", exitError{130}
	}
}

// askNumber asks until the answer is a whole number.
func (c *console) askNumber(prompt string, words phrases) (int, error) {
	for {
		line, err := c.ask(prompt)
		if err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(line)
		if err == nil {
			return n, nil
		}
		fmt.Fprintf(c.out, words.notANum+"\n", line)
	}
}

// board draws the scoreboard and a blank line, as the seeds do.
func (c *console) board(m *bowling.Match) {
	fmt.Fprint(c.out, m.Board(), "\n")
}

func (c *console) play(words phrases) error {
	players := 0
	for players < 1 || players > maxConsolePlayers {
		n, err := c.askNumber(words.howMany, words)
		if err != nil {
			return err
		}
		players = n
		if players < 1 || players > maxConsolePlayers {
			fmt.Fprintf(c.out, words.badCount+"\n", maxConsolePlayers)
		}
	}
	var m bowling.Match
	for seat := 1; seat <= players; {
		line, err := c.ask(words.name(seat, players))
		if err != nil {
			return err
		}
		if _, err := m.Add(line); err != nil {
			fmt.Fprintln(c.out, err)
			continue
		}
		seat++
	}
	c.board(&m)
	for !m.Over() {
		seat, frame, _ := m.Up()
		name := m.Players()[seat].Name
		pins, err := c.askNumber(words.turn(name, frame, players), words)
		if err != nil {
			return err
		}
		if err := m.Roll(pins); err != nil {
			fmt.Fprintln(c.out, err)
			continue
		}
		c.board(&m)
	}
	fmt.Fprint(c.out, words.over)
	for _, p := range m.Players() {
		fmt.Fprintf(c.out, " %s %d", p.Name, p.Game.Total())
	}
	fmt.Fprintln(c.out)
	return nil
}
