// Command tenpin is a multiplayer ten-pin bowling server, with a console
// game and a scorer for the terminal.
//
// Usage:
//
//	tenpin [serve] [-addr localhost:8080]   run the server (the default)
//	tenpin score [-name ABC] ROLLS...       print the board of one player's rolls
//	tenpin play [-lang en|ko]               play at the console, one or more players
//	tenpin load [flags]                     drive simulated players against a server
//	tenpin nemesis [flags]                  kill and pause the nodes of a cluster under load, and check every roll
//	tenpin failover [flags]                 kill -9 a node or a NATS server of a cluster under load, and measure the stall
//
// Run "tenpin COMMAND -h" for a command's flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitError carries the status a command wants to exit with. Its message,
// if any, has already been printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// exitCode prints err (unless it was printed already) and returns the
// process's exit status for it.
func exitCode(err error, stderr io.Writer) int {
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ee):
		return ee.code
	}
	fmt.Fprintf(stderr, "tenpin: %v\n", err)
	return 1
}

// commands maps each subcommand to the function that runs it.
var commands = map[string]func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error{
	"serve":    runServe,
	"score":    runScore,
	"play":     runPlay,
	"load":     runLoad,
	"nemesis":  runNemesis,
	"failover": runFailover,
}

const usage = `usage:
  tenpin [serve] [-addr localhost:8080]   run the server (the default)
  tenpin score [-name ABC] ROLLS...   print the board of one player's rolls
  tenpin play [-lang en|ko]           play at the console, one or more players
  tenpin load [-url ws://localhost:8080] [-lanes N] …   drive simulated players against a server
  tenpin nemesis [-duration 1m] …     kill and pause the nodes of a cluster under load, and check every roll
  tenpin failover [-kill node] …      kill -9 a node or a NATS server of a cluster under load, and measure the stall
`

// run is the whole program, apart from the process: its arguments (without
// the program name), its standard streams, and a context that ends on
// SIGINT or SIGTERM.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !isHelp(args[0]) {
		return runServe(ctx, args, stdin, stdout, stderr) // a bare tenpin serves
	}
	if isHelp(args[0]) {
		fmt.Fprint(stderr, usage)
		return nil
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "tenpin: unknown command %q\n%s", args[0], usage)
		return exitError{2}
	}
	return cmd(ctx, args[1:], stdin, stdout, stderr)
}

func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// parseFlags parses a subcommand's flags, printing usage on error. A bad
// flag exits with status 2, as the flag package does.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return exitError{2}
	}
	return err
}
