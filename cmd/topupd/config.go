package main

import (
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"time"

	"github.com/topupd/topupd/httpapi"
)

// config is everything serve needs, from flags and the environment.
type config struct {
	Addr           string
	AdminAddr      string
	DB             string
	Redis          string
	AdminToken     string
	SecretKey      string
	TrustedProxies []netip.Prefix
	RatePerSecond  int
	RatePerMinute  int
	Demo           bool
	Deadline       time.Duration
	LogLevel       string
	NodeID         string
	RetryBase      time.Duration
	RetryMax       time.Duration
	CallTimeout    time.Duration
	Lease          time.Duration
	RedisPrefix    string
}

// parseServe reads serve's flags; every flag defaults to its environment
// variable, and flags win.
func parseServe(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	envInt := func(name string, def int) int {
		if v := getenv(name); v != "" {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
		return def
	}
	var proxies string
	fs.StringVar(&c.Addr, "addr", env("TOPUPD_ADDR", ":8080"), "reseller API listen address (TOPUPD_ADDR)")
	fs.StringVar(&c.AdminAddr, "admin-addr", env("TOPUPD_ADMIN_ADDR", "127.0.0.1:8081"), "admin API listen address (TOPUPD_ADMIN_ADDR)")
	fs.StringVar(&c.DB, "db", env("TOPUPD_DB", "topupd.db"), "a SQLite file path, or a postgres:// URL (TOPUPD_DB)")
	fs.StringVar(&c.Redis, "redis", env("TOPUPD_REDIS", ""), "a redis:// URL for shared rate limits and in-flight locks (TOPUPD_REDIS)")
	fs.StringVar(&proxies, "trusted-proxies", env("TOPUPD_TRUSTED_PROXIES", ""), "comma-separated CIDRs whose X-Forwarded-For is believed (TOPUPD_TRUSTED_PROXIES)")
	fs.IntVar(&c.RatePerSecond, "rate-per-second", envInt("TOPUPD_RATE_PER_SECOND", 40), "calls per account in any rolling 1 s (TOPUPD_RATE_PER_SECOND)")
	fs.IntVar(&c.RatePerMinute, "rate-per-minute", envInt("TOPUPD_RATE_PER_MINUTE", 200), "calls per account in any rolling 60 s (TOPUPD_RATE_PER_MINUTE)")
	fs.BoolVar(&c.Demo, "demo", false, "on an empty database, load the demo catalog and account and print its key")
	fs.DurationVar(&c.Deadline, "order-deadline", 30*time.Minute, "how long an order may stay processing before it is cancelled and refunded")
	host, _ := os.Hostname()
	fs.StringVar(&c.NodeID, "node-id", env("TOPUPD_NODE_ID", "node-"+host), "this node's name in order leases: stable across restarts, unique among running nodes (TOPUPD_NODE_ID)")
	fs.DurationVar(&c.RetryBase, "retry-base", time.Second, "first delay before retrying a supplier after a transient error; it doubles, with jitter")
	fs.DurationVar(&c.RetryMax, "retry-max", 5*time.Minute, "longest delay between retries of a supplier")
	fs.DurationVar(&c.CallTimeout, "supplier-timeout", 20*time.Second, "how long one supplier call may take")
	fs.DurationVar(&c.Lease, "lease", 30*time.Second, "how long a node holds an order it works on; after a crash, other nodes wait this long (must exceed --supplier-timeout)")
	fs.StringVar(&c.RedisPrefix, "redis-prefix", env("TOPUPD_REDIS_PREFIX", "topupd:"), "prefix of every Redis key, so that deployments can share a Redis (TOPUPD_REDIS_PREFIX)")
	fs.StringVar(&c.LogLevel, "log-level", env("TOPUPD_LOG_LEVEL", "info"), "debug, info, warn or error (TOPUPD_LOG_LEVEL)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	c.AdminToken = getenv("TOPUPD_ADMIN_TOKEN")
	c.SecretKey = getenv("TOPUPD_SECRET_KEY")
	var err error
	if c.TrustedProxies, err = httpapi.ParseTrustedProxies(proxies); err != nil {
		return c, fmt.Errorf("--trusted-proxies: %w", err)
	}
	if c.RatePerSecond < 1 || c.RatePerMinute < 1 {
		return c, fmt.Errorf("--rate-per-second and --rate-per-minute must be at least 1")
	}
	if c.RetryBase <= 0 || c.RetryMax < c.RetryBase {
		return c, fmt.Errorf("--retry-base must be above 0 and at most --retry-max")
	}
	if c.Lease <= c.CallTimeout {
		return c, fmt.Errorf("--lease must exceed --supplier-timeout")
	}
	if c.Deadline < time.Second {
		return c, fmt.Errorf("--order-deadline must be at least 1s")
	}
	return c, nil
}
