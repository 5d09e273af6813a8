package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/topupd/topupd/sqlite"
)

const usage = `usage: topupd <command> [flags]

commands:
  serve    run the reseller API and the admin API (see topupd serve -h)
  bench    load a running topupd through the client and check its books (see topupd bench -h)
  operator add an operator, or give one a console setup link (see topupd operator -h)
  backup   copy a SQLite database and its key while a server runs on it (see topupd backup -h)
  version  print the version and the VCS revision this binary was built from
`

const versionUsage = `usage: topupd version

Prints the version, the VCS revision and the schema version this binary
migrates a database to (the same on SQLite and PostgreSQL), and the Go
version it was built with.
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
	case "backup":
		return runBackup(ctx, args[1:], getenv, stdout, stderr)
	case "version", "--version":
		if len(args) > 1 && isHelp(args[1]) {
			fmt.Fprint(stdout, versionUsage)
			return flag.ErrHelp
		}
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

// build is what a binary knows of its own making.
type build struct {
	// Version is the module version, "(devel)" when built from a work tree.
	Version string
	// Revision is the VCS revision, "unknown" when the build did not record
	// one (as with -buildvcs=false or go test); Modified says the tree had
	// local changes.
	Revision string
	Modified bool
	// Go is the Go version it was built with.
	Go string
}

// buildOf reads a build from its build info.
func buildOf(info *debug.BuildInfo, ok bool) build {
	b := build{Version: "(devel)", Revision: "unknown", Go: "unknown"}
	if ok && info != nil {
		if info.Main.Version != "" {
			b.Version = info.Main.Version
		}
		if info.GoVersion != "" {
			b.Go = info.GoVersion
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && s.Value != "":
				b.Revision = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				b.Modified = true
			}
		}
	}
	return b
}

// thisBuild is the running binary's build.
func thisBuild() build { return buildOf(debug.ReadBuildInfo()) }

// commit is the revision, with " (modified)" after it when the tree had
// local changes.
func (b build) commit() string {
	if b.Modified {
		return b.Revision + " (modified)"
	}
	return b.Revision
}

// versionLine describes a build: the module version, the VCS revision, the
// schema version this binary migrates a database to, and the Go version.
func versionLine(info *debug.BuildInfo, ok bool) string {
	b := buildOf(info, ok)
	return fmt.Sprintf("topupd %s, revision %s, schema %d, built with %s", b.Version, b.commit(), schemaVersion(), b.Go)
}

// schemaVersion is the schema version this binary migrates a database to,
// the same on SQLite and PostgreSQL (a test holds them to it).
func schemaVersion() int64 { return sqlite.SchemaVersion() }
