package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/topupd/topupd/sqlite"
)

// TestVersion: `topupd version` prints the version and the VCS revision,
// or what stands in for them when the build did not record them.
func TestVersion(t *testing.T) {
	t.Parallel()
	schema := strconv.FormatInt(sqlite.SchemaVersion(), 10)
	for _, tc := range []struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{nil, false, "topupd (devel), revision unknown, schema " + schema + ", built with unknown"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, true, "topupd (devel), revision unknown, schema " + schema + ", built with go1.26.8"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "067dc02c"}, {Key: "vcs.modified", Value: "false"}}}, true,
			"topupd v1.4.0, revision 067dc02c, schema " + schema + ", built with go1.26.8"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "067dc02c"}, {Key: "vcs.modified", Value: "true"}}}, true,
			"topupd (devel), revision 067dc02c (modified), schema " + schema + ", built with go1.26.8"},
	} {
		if got := versionLine(tc.info, tc.ok); got != tc.want {
			t.Errorf("versionLine(%+v) = %q, want %q", tc.info, got, tc.want)
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, func(string) string { return "" }, &out, io.Discard); err != nil ||
		!strings.HasPrefix(out.String(), "topupd ") || !strings.Contains(out.String(), ", revision ") {
		t.Errorf("topupd version: %v %q", err, out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"help"}, func(string) string { return "" }, &out, io.Discard); err != nil ||
		!strings.Contains(out.String(), "version") {
		t.Errorf("the usage does not list version: %q", out.String())
	}
}

// TestServeHelp: serve -h and --help print the flags to stdout, and the
// process exits 0.
func TestServeHelp(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"serve", "-h"}, func(string) string { return "" }, &out, &errOut)
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "-redis-timeout duration") ||
		!strings.Contains(out.String(), "(TOPUPD_RATE_PER_SECOND)") || errOut.Len() != 0 {
		t.Errorf("serve -h: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
	for _, arg := range []string{"-h", "--help"} {
		cmd := exec.Command(os.Args[0], "serve", arg)
		cmd.Env = append(os.Environ(), "TOPUPD_TEST_RUN_MAIN=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), "-node-id string") {
			t.Errorf("topupd serve %s: %v\nstdout:\n%s\nstderr:\n%s", arg, err, stdout.String(), stderr.String())
		}
	}
}
