package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/tenpin/tenpin/lane/bowling"
)

// runScore prints the text scoreboard of one player's rolls, complete or
// not. An impossible roll is reported on stderr by its 1-based position,
// with exit status 1.
func runScore(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tenpin score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nameFlag := fs.String("name", "PJS", "the player's `name`: 1 to 12 letters of any script, as on a lane")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tenpin score [-name NAME] ROLLS...\n\nPrints the scoreboard of one player's rolls, each the pins knocked down (0 to 10), X, /, - or F.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	name, err := bowling.ParseLaneName(*nameFlag)
	if err != nil {
		return fmt.Errorf("score: -name: %w", err)
	}
	var g bowling.Game
	for i, arg := range fs.Args() {
		standing, fresh := rackOf(&g)
		ball, err := parseBall(arg, standing, fresh)
		if err != nil {
			return fmt.Errorf("score: roll %d: %w", i+1, err)
		}
		if err := g.RollBall(ball); err != nil {
			return fmt.Errorf("score: %w", err)
		}
	}
	_, err = io.WriteString(stdout, bowling.Board(bowling.Player{Name: name, Game: g}))
	return err
}
