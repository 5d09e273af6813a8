package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/app"
)

const operatorUsage = `usage: topupd operator add NAME --role ROLE [flags]
       topupd operator setup-link NAME [flags]

add creates an operator (owner, finance, support or viewer) and prints their
admin API token and a one-time console setup link, valid 24 h, where they set
a password and enrol TOTP. setup-link prints a fresh link for an operator,
retiring any earlier unused one. Both act on the database directly, as root,
through the admin API's own operations, and are in the action log.

flags:
`

// runOperator runs topupd operator.
func runOperator(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fe := newCommandFlags("operator", operatorUsage)
	fs := fe.fs
	var cfg app.Config
	var role, adminAddr string
	fe.String(&cfg.DB, "db", "TOPUPD_DB", "topupd.db", "a SQLite file path, or a postgres:// URL")
	fe.String(&adminAddr, "admin-addr", "TOPUPD_ADMIN_ADDR", "127.0.0.1:8081", "the admin API's address, where the console is")
	fe.String(&cfg.ConsoleURL, "console-url", "TOPUPD_CONSOLE_URL", "", "the console's public address, when it is not http://<admin-addr>/console/")
	fs.StringVar(&role, "role", "", "add: the operator's role: owner, finance, support or viewer")
	if slices.ContainsFunc(args, isHelp) || len(args) > 0 && args[0] == "help" { // before anything opens the database
		fe.usage(stdout)
		return flag.ErrHelp
	}
	if len(args) < 2 || (args[0] != "add" && args[0] != "setup-link") {
		fe.usage(stderr)
		return errors.New("operator: add NAME or setup-link NAME")
	}
	verb, name := args[0], args[1]
	if err := fe.parse(args[2:], getenv, stdout, stderr); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("operator: unexpected argument %q", fs.Arg(0))
	case verb == "add" && role == "":
		return errors.New("operator add: --role is required")
	}
	cfg.SecretKey = getenv("TOPUPD_SECRET_KEY")
	tool, err := app.OpenTool(ctx, cfg, "http://"+adminAddr)
	if err != nil {
		return err
	}
	defer tool.Close()
	if verb == "add" {
		_, token, err := tool.Service.CreateOperator(ctx, tool.Actor, name, topupd.Role(role))
		if err != nil {
			return fmt.Errorf("operator add: %w", plain(err))
		}
		fmt.Fprintf(stdout, "operator %s (%s) added\nadmin API token, shown this once: %s\n", name, role, token)
	}
	link, err := tool.Service.CreateSetupLink(ctx, tool.Actor, name, tool.Base+"/console/")
	if err != nil {
		return fmt.Errorf("operator %s: %w", verb, plain(err))
	}
	fmt.Fprintf(stdout, "console setup link, valid until %s (once): %s\n", link.ExpiresAt.UTC().Format("2006-01-02 15:04 MST"), link.URL)
	return nil
}

// isHelp reports an argument that asks for the usage.
func isHelp(arg string) bool { return arg == "-h" || arg == "--help" || arg == "-help" }

// plain puts a refusal of the service layer in the operator's words: its
// explanation, without the code the admin API answers with ("CONFLICT:
// operator bob exists" is "operator bob exists").
func plain(err error) error {
	var e *topupd.Error
	if !errors.As(err, &e) || e.Code == topupd.EInternal {
		return err
	}
	switch {
	case e.Code == topupd.ENotFound && e.Detail != "":
		return errors.New("there is no " + e.Detail)
	case e.Detail != "":
		return errors.New(e.Detail)
	}
	return errors.New(strings.ToLower(e.Code.Message()))
}
