package main

import (
	"context"
	"errors"
	"fmt"
	"io"
)

const usage = `usage: topupd <command> [flags]

commands:
  serve    run the reseller API and the admin API (see topupd serve -h)
  bench    load a running topupd through the client and check its books (see topupd bench -h)
`

// run is the whole program: main only supplies the process's context,
// arguments, environment and output, so that tests can run it too.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command")
	}
	switch args[0] {
	case "serve":
		cfg, err := parseServe(args[1:], getenv, stderr)
		if err != nil {
			return err
		}
		return serve(ctx, cfg, stdout, stderr)
	case "bench":
		return runBench(ctx, args[1:], getenv, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
