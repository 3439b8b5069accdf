package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/tenpin/tenpin/lane/bowling"
)

// runScore prints the text scoreboard of one player's rolls, complete or
// not. An impossible roll is reported on stderr by its 1-based position,
// with exit status 1.
func runScore(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tenpin score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nameFlag := fs.String("name", "PJS", "the player's `name`, three English letters")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tenpin score [-name ABC] ROLLS...\n\nPrints the scoreboard of one player's rolls, each the pins knocked down (0 to 10).")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	name, err := bowling.ParseName(*nameFlag)
	if err != nil {
		return fmt.Errorf("score: -name: %w", err)
	}
	var g bowling.Game
	for i, arg := range fs.Args() {
		pins, err := strconv.Atoi(arg)
		if err != nil {
			return fmt.Errorf("score: roll %d: %q is not a number of pins", i+1, arg)
		}
		if err := g.Roll(pins); err != nil {
			return fmt.Errorf("score: %w", err)
		}
	}
	_, err = io.WriteString(stdout, bowling.Board(bowling.Player{Name: name, Game: g}))
	return err
}
