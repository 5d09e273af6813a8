package main

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// parseWith runs parseServe with env as the whole environment.
func parseWith(args []string, env map[string]string) (config, error) {
	return parseServe(args, func(k string) string { return env[k] }, io.Discard, io.Discard)
}

// TestConfigBadEnvironment: a value that cannot be read in an environment
// variable stops start-up with a message naming the variable, its flag and
// the value, even when the flag is given too.
func TestConfigBadEnvironment(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env, value, flag, want string
		args                   []string
	}{
		{"TOPUPD_RATE_PER_SECOND", "abc", "--rate-per-second", "is not a whole number", nil},
		{"TOPUPD_RATE_PER_MINUTE", "1e3", "--rate-per-minute", "is not a whole number", nil},
		{"TOPUPD_RATE_PER_MINUTE", "99999999999999999999", "--rate-per-minute", "is out of range", nil},
		{"TOPUPD_RATE_PER_SECOND", "abc", "--rate-per-second", "is not a whole number", []string{"--rate-per-second", "5"}},
		{"TOPUPD_REDIS_TIMEOUT", "5", "--redis-timeout", "is not a duration", nil},
		{"TOPUPD_LOG_LEVEL", "verbose", "--log-level", "is not one of debug, info, warn, error", nil},
		{"TOPUPD_SIM", "maybe", "--sim", "is not one of on, off", nil},
		{"TOPUPD_LOG_FORMAT", "xml", "--log-format", "is not one of json, text", nil},
		{"TOPUPD_RATE_INVALID_KEY_PER_MINUTE", "lots", "--rate-invalid-key-per-minute", "is not a whole number", nil},
	} {
		_, err := parseWith(tc.args, map[string]string{tc.env: tc.value})
		want := tc.env + " (" + tc.flag + "): \"" + tc.value + "\" " + tc.want
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%q %v: %v, want an error with %q", tc.env, tc.value, tc.args, err, want)
		}
	}
}

// TestConfigBadFlags: a value that cannot be read in a flag stops start-up
// with a message naming the flag; --log-level is checked too.
func TestConfigBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--rate-per-second", "abc"},
		{"--redis-timeout", "5"},
		{"--redis-timeout", "0s"},
		{"--redis-timeout", "-1s"},
		{"--lease", "10"},
		{"--log-level", "verbose"},
		{"--log-level", ""},
		{"--sim", "maybe"},
		{"--log-format", "logfmt"},
		{"--rate-invalid-key-per-minute", "0"},
	} {
		_, err := parseWith(args, nil)
		if err == nil || !strings.Contains(err.Error(), strings.TrimLeft(args[0], "-")) {
			t.Errorf("serve %q: %v, want an error naming %s", args, err, args[0])
		}
	}
}

// TestConfigValues: defaults, the environment, and flags that win over it.
func TestConfigValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args         []string
		env          map[string]string
		timeout      time.Duration
		level        string
		perSec, perM int
	}{
		{nil, nil, 200 * time.Millisecond, "info", 40, 200},
		{nil, map[string]string{"TOPUPD_REDIS_TIMEOUT": "2s", "TOPUPD_LOG_LEVEL": "WARN", "TOPUPD_RATE_PER_SECOND": "7"}, 2 * time.Second, "warn", 7, 200},
		{[]string{"--redis-timeout", "3s", "--log-level", "debug", "--rate-per-minute", "9"},
			map[string]string{"TOPUPD_REDIS_TIMEOUT": "2s", "TOPUPD_LOG_LEVEL": "error", "TOPUPD_RATE_PER_MINUTE": "8"}, 3 * time.Second, "debug", 40, 9},
	} {
		c, err := parseWith(tc.args, tc.env)
		if err != nil {
			t.Errorf("serve %q with %v: %v", tc.args, tc.env, err)
			continue
		}
		if c.RateInvalidKeyPerMinute != 120 {
			t.Errorf("serve %q with %v: %d calls without a valid key a minute, want the default 120", tc.args, tc.env, c.RateInvalidKeyPerMinute)
		}
		if c.RedisTimeout != tc.timeout || c.LogLevel != tc.level || c.RatePerSecond != tc.perSec || c.RatePerMinute != tc.perM {
			t.Errorf("serve %q with %v: redis timeout %v, log level %q, rates %d/%d; want %v, %q, %d/%d",
				tc.args, tc.env, c.RedisTimeout, c.LogLevel, c.RatePerSecond, c.RatePerMinute, tc.timeout, tc.level, tc.perSec, tc.perM)
		}
	}
}

// TestConfigNodeID: the default node id differs between two processes on
// one host (their listen addresses differ) and stays the same for the same
// arguments, as after a restart; --node-id and TOPUPD_NODE_ID win.
func TestConfigNodeID(t *testing.T) {
	t.Parallel()
	id := func(env map[string]string, args ...string) string {
		t.Helper()
		c, err := parseWith(args, env)
		if err != nil {
			t.Fatalf("serve %q: %v", args, err)
		}
		return c.NodeID
	}
	a := id(nil, "--addr", ":8080")
	b := id(nil, "--addr", ":8090")
	if a == b {
		t.Errorf("two nodes on one host with --addr :8080 and :8090 share the id %q", a)
	}
	if again := id(nil, "--addr", ":8080"); again != a {
		t.Errorf("the same arguments gave %q, then %q", a, again)
	}
	if c := id(nil, "--addr", ":8080", "--admin-addr", "127.0.0.1:9091"); c == a {
		t.Errorf("another admin address gave the same id %q", c)
	}
	if e := id(map[string]string{"TOPUPD_ADDR": ":8080"}); e != a {
		t.Errorf("TOPUPD_ADDR=:8080 gave %q, --addr :8080 gave %q", e, a)
	}
	if host, _ := os.Hostname(); host != "" && a != defaultNodeID(host, ":8080", "127.0.0.1:8081") {
		t.Errorf("default id %q, want %q", a, defaultNodeID(host, ":8080", "127.0.0.1:8081"))
	}
	if got := id(map[string]string{"TOPUPD_NODE_ID": "node-env"}, "--addr", ":8080"); got != "node-env" {
		t.Errorf("TOPUPD_NODE_ID=node-env gave %q", got)
	}
	if got := id(map[string]string{"TOPUPD_NODE_ID": "node-env"}, "--node-id", "node-flag"); got != "node-flag" {
		t.Errorf("--node-id node-flag with TOPUPD_NODE_ID set gave %q", got)
	}
	for _, tc := range []struct{ host, addr, admin, want string }{
		{"box", ":8080", "127.0.0.1:8081", "node-box-_8080-127.0.0.1_8081"},
		{"box.example", "[::1]:8080", "localhost:9000", "node-box.example-___1__8080-localhost_9000"},
		{"böx", "10.0.0.2:8080", "10.0.0.2:8081", "node-b_x-10.0.0.2_8080-10.0.0.2_8081"},
	} {
		if got := defaultNodeID(tc.host, tc.addr, tc.admin); got != tc.want {
			t.Errorf("defaultNodeID(%q, %q, %q) = %q, want %q", tc.host, tc.addr, tc.admin, got, tc.want)
		}
	}
}

// TestBenchBadEnvironment: bench reads its numbers and durations from the
// environment as strictly as serve.
func TestBenchBadEnvironment(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ env, value string }{
		{"TOPUPD_BENCH_ACCOUNTS", "seven"},
		{"TOPUPD_BENCH_CONCURRENCY", "8.5"},
		{"TOPUPD_BENCH_DURATION", "30"},
		{"TOPUPD_BENCH_SEED", "-1"},
		{"TOPUPD_RATE_PER_SECOND", "forty"},
	} {
		env := map[string]string{"TOPUPD_ADMIN_TOKEN": "tok", tc.env: tc.value}
		_, err := parseBench(nil, func(k string) string { return env[k] }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.env) || !strings.Contains(err.Error(), `"`+tc.value+`"`) {
			t.Errorf("bench with %s=%q: %v, want an error naming both", tc.env, tc.value, err)
		}
	}
}

// TestConfigInvalidKeyRate: --rate-invalid-key-per-minute and its variable
// set the limit on calls without a valid key; the flag wins.
func TestConfigInvalidKeyRate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want int
	}{
		{nil, map[string]string{"TOPUPD_RATE_INVALID_KEY_PER_MINUTE": "30"}, 30},
		{[]string{"--rate-invalid-key-per-minute", "500"}, map[string]string{"TOPUPD_RATE_INVALID_KEY_PER_MINUTE": "30"}, 500},
	} {
		c, err := parseWith(tc.args, tc.env)
		if err != nil || c.RateInvalidKeyPerMinute != tc.want {
			t.Errorf("serve %q with %v: %d, %v; want %d", tc.args, tc.env, c.RateInvalidKeyPerMinute, err, tc.want)
		}
	}
}
