package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestEveryHelp: every command's -h (or --help) prints its usage to stdout
// and exits 0, touching no file: run in an empty folder, the folder stays
// empty (operator setup-link -h once created topupd.db). serve -h lists
// the secrets it reads from the environment.
func TestEveryHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-h"}, {"help"}, {"serve", "-h"}, {"serve", "--help"}, {"operator", "-h"}, {"operator", "add", "-h"},
		{"operator", "setup-link", "-h"}, {"operator", "setup-link", "alice", "-h"}, {"operator", "add", "bob", "--role", "owner", "--help"},
		{"backup", "-h"}, {"backup", "--db", "x.db", "-h"}, {"bench", "-h"}, {"version", "-h"}, {"version", "--help"},
	} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], args...)
		cmd.Dir = dir
		cmd.Env = []string{"TOPUPD_TEST_RUN_MAIN=1", "PATH=" + os.Getenv("PATH"), "HOME=" + dir}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil || !strings.HasPrefix(stdout.String(), "usage: topupd") {
			t.Errorf("topupd %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("topupd %s wrote %s", strings.Join(args, " "), entries[0].Name())
		}
		if args[0] == "serve" {
			for _, secret := range []string{"TOPUPD_ADMIN_TOKEN", "TOPUPD_SECRET_KEY", "TOPUPD_METRICS_TOKEN", "TOPUPD_TELEGRAM_TOKEN"} {
				if !strings.Contains(stdout.String(), secret) {
					t.Errorf("topupd %s does not name the secret %s", strings.Join(args, " "), secret)
				}
			}
		}
	}
}

// TestOperatorErrorsInPlainWords: the operator command's refusals say what
// is wrong in words, not in the admin API's HTTP status and code.
func TestOperatorErrorsInPlainWords(t *testing.T) {
	t.Parallel()
	db := t.TempDir() + "/ops.db"
	if r := runToEnd(t, nil, "operator", "add", "bob", "--role", "owner", "--db", db); r.code != 0 {
		t.Fatalf("operator add: %d %s", r.code, r.stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"operator", "add", "bob", "--role", "owner", "--db", db}, "operator add: operator bob exists"},
		{[]string{"operator", "add", "al", "--role", "king", "--db", db}, "operator add: role: owner, finance, support or viewer"},
		{[]string{"operator", "setup-link", "nobody", "--db", db}, "operator setup-link: there is no operator nobody"},
	} {
		r := runToEnd(t, nil, c.args...)
		wantRefused(t, strings.Join(c.args[:3], " "), r, c.want)
		for _, http := range []string{"409", "400", "404", "CONFLICT", "INVALID_BODY", "NOT_FOUND"} {
			if strings.Contains(r.stderr, http) {
				t.Errorf("topupd %s speaks HTTP (%s): %s", strings.Join(c.args, " "), http, r.stderr)
			}
		}
	}
}
