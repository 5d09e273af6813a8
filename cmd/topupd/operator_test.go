package main

import (
	"bytes"
	"context"

	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/app"
)

// TestOperatorCommand: topupd operator add creates an operator and prints
// their token and a setup link on the admin address; setup-link prints a
// fresh one; both are in the action log as root's, from the command line;
// a taken name, an unknown operator and a missing role are errors.
func TestOperatorCommand(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "op.db")
	getenv := func(string) string { return "" }
	cli := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append([]string{"operator"}, args...), getenv, &out, &errOut)
		return out.String(), err
	}
	out, err := cli("add", "kim", "--role", "finance", "--db", db, "--admin-addr", "10.1.2.3:8081")
	if err != nil {
		t.Fatalf("operator add: %v", err)
	}
	link := regexp.MustCompile(`http://10\.1\.2\.3:8081/console/setup/[A-Za-z0-9_-]{43}`)
	if !strings.Contains(out, "admin API token, shown this once: tpo_") || !link.MatchString(out) {
		t.Errorf("operator add printed:\n%s", out)
	}
	if out, err := cli("setup-link", "kim", "--db", db, "--console-url", "https://ops.example.com/console"); err != nil ||
		!regexp.MustCompile(`https://ops\.example\.com/console/setup/[A-Za-z0-9_-]{43}`).MatchString(out) {
		t.Errorf("operator setup-link: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"add", "kim", "--role", "viewer"}, {"setup-link", "nobody"}, {"add", "lee"}, {"remove", "kim"}} {
		if _, err := cli(append(args, "--db", db)...); err == nil {
			t.Errorf("operator %v: no error", args)
		}
	}
	tool, err := app.OpenTool(context.Background(), app.Config{DB: db}, "http://x")
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	acts, err := tool.Service.Actions(context.Background(), tool.Actor, topupd.ActionsQuery{Operator: "root"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range acts.Actions {
		got = append(got, a.Action+" "+a.Target+" "+a.Actor.RequestID)
	}
	if want := "operator.setup-link kim cli,operator.setup-link kim cli,operator.create kim cli"; strings.Join(got, ",") != want {
		t.Errorf("the action log: %q, want %q", strings.Join(got, ","), want)
	}
}
