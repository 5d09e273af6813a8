package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
)

const usage = `usage: topupd <command> [flags]

commands:
  serve    run the reseller API and the admin API (see topupd serve -h)
  bench    load a running topupd through the client and check its books (see topupd bench -h)
  operator add an operator, or give one a console setup link (see topupd operator -h)
  version  print the version and the VCS revision this binary was built from
`

// run is the whole program: main only supplies the process's context,
// arguments, environment and output, so that tests can run it too. A help
// request (serve -h) prints the flags to stdout and returns flag.ErrHelp,
// which main turns into exit status 0.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command")
	}
	switch args[0] {
	case "serve":
		cfg, err := parseServe(args[1:], getenv, stdout, stderr)
		if err != nil {
			return err
		}
		return serve(ctx, cfg, stdout, stderr)
	case "bench":
		return runBench(ctx, args[1:], getenv, stdout, stderr)
	case "operator":
		return runOperator(ctx, args[1:], getenv, stdout, stderr)
	case "version", "--version":
		if len(args) > 1 {
			return fmt.Errorf("version: unexpected argument %q", args[1])
		}
		info, ok := debug.ReadBuildInfo()
		fmt.Fprintln(stdout, versionLine(info, ok))
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

// versionLine describes a build: the module version ("(devel)" when built
// from a work tree), the VCS revision ("unknown" when the build did not
// record one, as with -buildvcs=false or go test) and whether the tree had
// local changes, and the Go version.
func versionLine(info *debug.BuildInfo, ok bool) string {
	version, revision, modified, goVersion := "(devel)", "unknown", "", "unknown"
	if ok && info != nil {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && s.Value != "":
				revision = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				modified = " (modified)"
			}
		}
	}
	return fmt.Sprintf("topupd %s, revision %s%s, built with %s", version, revision, modified, goVersion)
}
