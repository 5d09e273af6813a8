// Command topupd runs the topupd reseller API and admin API.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) { // the help asked for was printed
		err = nil
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "topupd:", oneLine(err.Error()))
		stop()
		os.Exit(1)
	}
}

// oneLine puts a message on one line, for a log or a terminal: some errors
// (a failed PostgreSQL dial lists each address tried) span several.
func oneLine(msg string) string {
	lines := strings.FieldsFunc(msg, func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}
