// Command topupd runs the topupd reseller API and admin API.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
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
		fmt.Fprintln(os.Stderr, "topupd:", err)
		stop()
		os.Exit(1)
	}
}
