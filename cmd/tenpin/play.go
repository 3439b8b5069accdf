package main

import (
	"bufio"
	"context"
	"errors"
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
	// explain says why a name or a ball was refused.
	explain func(err error) string
}

var languages = map[string]phrases{
	"en": {
		howMany: "How many players? ",
		name: func(seat, players int) string {
			if players == 1 {
				return "Player name (1 to 12 letters): "
			}
			return fmt.Sprintf("Player %d name (1 to 12 letters): ", seat)
		},
		turn: func(name bowling.Name, frame, _ int) string {
			return fmt.Sprintf("%s's turn (frame %d): ", name, frame)
		},
		badCount: "a game has 1 to %d players",
		notANum:  "%q is not a number",
		over:     "Game over:",
		explain:  func(err error) string { return err.Error() },
	},
	"ko": {
		howMany: "플레이어 수는?: ",
		name: func(seat, players int) string {
			if players == 1 {
				return "플레이어 이름은(1~12글자)?: "
			}
			return fmt.Sprintf("%d번 플레이어 이름은(1~12글자)?: ", seat)
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
		explain:  explainKorean,
	},
}

// explainKorean says in Korean why a name or a ball was refused: the
// rules' errors are English, so each kind has its sentence here.
func explainKorean(err error) string {
	var be *ballError
	var re *bowling.RollError
	switch {
	case errors.As(err, &be):
		return fmt.Sprintf("%q: %s", be.answer, map[ballWhy]string{
			notABall:    "투구가 아닙니다: 쓰러뜨린 핀 수(0~10), X, /, - 또는 F를 입력하세요",
			strikeLate:  "X는 스트라이크, 10핀에 던지는 첫 투구입니다. 이번은 두 번째 투구입니다: 쓰러뜨린 핀 수나 /를 입력하세요",
			spareFirst:  "/는 스페어, 두 번째 투구입니다. 이번은 첫 투구입니다: 쓰러뜨린 핀 수나 X를 입력하세요",
			countTooBig: "한 투구는 0~10핀입니다",
		}[be.why])
	case errors.As(err, &re) && errors.Is(err, bowling.ErrTooManyPins):
		return fmt.Sprintf("%d번째 투구: 남은 핀보다 많은 %d핀입니다", re.Roll, re.Pins)
	case errors.Is(err, bowling.ErrInvalidPins):
		return "핀 수가 맞지 않습니다: 0~10핀입니다"
	case errors.Is(err, bowling.ErrNameTaken):
		return "이미 있는 이름입니다: 다른 이름을 입력하세요"
	case errors.Is(err, bowling.ErrInvalidName):
		return "이름은 1~12글자의 문자이고, 단어 사이에만 공백, 하이픈, 아포스트로피를 쓸 수 있습니다(숫자, 이모지, 보이지 않는 문자는 안 됩니다)"
	case errors.Is(err, bowling.ErrGameOver):
		return "게임이 끝났습니다"
	}
	return err.Error()
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
		name, err := bowling.ParseLaneName(line)
		if err == nil {
			err = m.AddName(name)
		}
		if err != nil {
			fmt.Fprintln(c.out, words.explain(err))
			continue
		}
		seat++
	}
	c.board(&m)
	for !m.Over() {
		seat, frame, _ := m.Up()
		p := m.Players()[seat]
		line, err := c.ask(words.turn(p.Name, frame, players))
		if err != nil {
			return err
		}
		standing, fresh := rackOf(&p.Game)
		ball, err := parseBall(line, standing, fresh)
		if err == nil {
			err = m.RollBall(ball)
		}
		if err != nil {
			fmt.Fprintln(c.out, words.explain(err))
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
