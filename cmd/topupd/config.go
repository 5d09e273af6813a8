package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/fulfil"
	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/internal/app"
	"github.com/topupd/topupd/ratelimit"
	"github.com/topupd/topupd/webhooks"
)

// config is everything serve needs, from flags and the environment: the
// app's configuration, and what serve does with it.
type config struct {
	app.Config
	Addr      string
	AdminAddr string
	Demo      bool
	LogLevel  string
	LogFormat string
}

const serveUsage = `usage: topupd serve [flags]

Runs the reseller API and the admin API. Every flag that names an environment
variable also reads it; flags win. A value that cannot be read, from a flag or
from the environment, stops start-up.

secrets, read from the environment only (never from flags, which other users
of the host can see):
  TOPUPD_ADMIN_TOKEN     the admin API's bearer token (the operator root, role
                         owner); empty refuses every admin call (--demo makes one)
  TOPUPD_SECRET_KEY      32 bytes in base64 that seal codes, upstream keys and
                         TOTP secrets; with SQLite, when empty, the key file
                         <db>.key beside the database, made once for a new
                         database; required with PostgreSQL
  TOPUPD_METRICS_TOKEN   a token that may read GET /metrics besides operators'
  TOPUPD_TELEGRAM_TOKEN  the bot's token (also --telegram-token, but a flag is
                         visible in the process list: prefer the variable)

flags:
`

// parseServe reads serve's flags; every flag that names an environment
// variable also reads it, and flags win. It returns flag.ErrHelp, having
// printed the flags to stdout, when -h or --help asks for them.
func parseServe(args []string, getenv func(string) string, stdout, stderr io.Writer) (config, error) {
	var c config
	fe := newCommandFlags("serve", serveUsage)
	fs := fe.fs
	var proxies, nodeID string
	fe.String(&c.Addr, "addr", "TOPUPD_ADDR", ":8080", "reseller API listen address")
	fe.String(&c.AdminAddr, "admin-addr", "TOPUPD_ADMIN_ADDR", "127.0.0.1:8081", "admin API listen address")
	fe.String(&c.DB, "db", "TOPUPD_DB", "topupd.db", "a SQLite file path, or a postgres:// URL")
	fe.String(&c.Redis, "redis", "TOPUPD_REDIS", "", "a redis:// URL for shared rate limits and in-flight hints")
	fe.Duration(&c.RedisTimeout, "redis-timeout", "TOPUPD_REDIS_TIMEOUT", ratelimit.DefaultRedisTimeout,
		"how long each Redis call of the rate limiter (with an order's in-flight hints) may take before the call answers 503 RATE_LIMIT_UNAVAILABLE")
	fe.String(&proxies, "trusted-proxies", "TOPUPD_TRUSTED_PROXIES", "", "comma-separated CIDRs whose X-Forwarded-For is believed")
	fe.Int(&c.RatePerSecond, "rate-per-second", "TOPUPD_RATE_PER_SECOND", topupd.DefaultRatePerSecond, "calls per account in any rolling 1 s")
	fe.Int(&c.RatePerMinute, "rate-per-minute", "TOPUPD_RATE_PER_MINUTE", topupd.DefaultRatePerMinute, "calls per account in any rolling 60 s")
	fe.Int(&c.RateInvalidKeyPerMinute, "rate-invalid-key-per-minute", "TOPUPD_RATE_INVALID_KEY_PER_MINUTE", topupd.DefaultRateInvalidKeyPerMinute,
		"calls without a valid key (or admin token) per client IP in any rolling 60 s; past it they get 429 instead of 401")
	fs.BoolVar(&c.Demo, "demo", false, "on an empty database, load the demo catalog and account and print its key")
	fe.Duration(&c.Deadline, "order-deadline", "", topupd.DefaultOrderDeadline, "how long an order may stay processing before it is cancelled and refunded; one a supplier may have waits past it for the supplier's answer or the operator, with an alert")
	fe.String(&nodeID, "node-id", "TOPUPD_NODE_ID", "", "this node's name in order leases: stable across restarts, unique among running nodes; "+
		"by default node-<hostname>-<addr>-<admin-addr>, which with a port of 0 (a random port) is neither: set it then")
	fe.Duration(&c.RetryBase, "retry-base", "", fulfil.DefaultBackoffBase, "first delay before retrying a supplier after a transient error; it doubles, with jitter")
	fe.Duration(&c.RetryMax, "retry-max", "", fulfil.DefaultBackoffMax, "longest delay between retries of a supplier")
	fe.Duration(&c.CallTimeout, "supplier-timeout", "", fulfil.DefaultCallTimeout, "how long one supplier call may take")
	fe.Duration(&c.Lease, "lease", "", fulfil.DefaultLease, "how long a node holds an order it works on; after a crash, other nodes wait this long (must exceed --supplier-timeout)")
	fe.String(&c.RedisPrefix, "redis-prefix", "TOPUPD_REDIS_PREFIX", "topupd:", "prefix of every Redis key, so that deployments can share a Redis")
	c.LogLevel = "info"
	fe.Var(choiceValue{&c.LogLevel, []string{"debug", "info", "warn", "error"}}, "log-level", "TOPUPD_LOG_LEVEL", "debug, info, warn or error")
	c.LogFormat = "json"
	fe.Var(choiceValue{&c.LogFormat, []string{"json", "text"}}, "log-format", "TOPUPD_LOG_FORMAT", "json (one object a line, for machines) or text (for people)")
	fe.String(&c.TelegramToken, "telegram-token", "TOPUPD_TELEGRAM_TOKEN", "", "the messaging app bot's token from BotFather; empty means no bot")
	fe.String(&c.TelegramAPI, "telegram-api", "TOPUPD_TELEGRAM_API", "https://api.telegram.org", "base URL of the Bot API, for a local Bot API server or a stand-in in tests")
	simSwitch := "" // off, or on with --demo
	fe.Var(choiceValue{&simSwitch, []string{"on", "off"}}, "sim", "TOPUPD_SIM",
		"on or off: whether the built-in sim supplier may fulfil orders, completing top-ups that nobody delivers; off refuses sim packs (default off, on with --demo)")
	allowPrivate := "off"
	fe.Var(choiceValue{&allowPrivate, []string{"on", "off"}}, "webhook-allow-private", "TOPUPD_WEBHOOK_ALLOW_PRIVATE",
		"on or off: on lets webhook endpoints use http:// and loopback, private and link-local addresses (private deployments, tests)")
	fe.Int(&c.WebhookConcurrency, "webhook-concurrency", "TOPUPD_WEBHOOK_CONCURRENCY", webhooks.DefaultConcurrency,
		"how many webhook deliveries this node attempts at once")
	fe.String(&c.ConsoleURL, "console-url", "TOPUPD_CONSOLE_URL", "",
		"the console's public base URL, used in setup links (default http://<admin-addr>/console/); when it is https://…, the console's cookies are Secure")
	if err := fe.parse(args, getenv, stdout, stderr); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	c.SimOff = simSwitch == "off" || (simSwitch == "" && !c.Demo)
	c.WebhookAllowPrivate = allowPrivate == "on"
	if c.WebhookConcurrency < 1 {
		return c, fmt.Errorf("--webhook-concurrency (TOPUPD_WEBHOOK_CONCURRENCY) must be at least 1")
	}
	if c.SimOff && c.Demo {
		return c, fmt.Errorf("--demo needs --sim on: the demo catalog is fulfilled by sim")
	}
	c.AdminToken = getenv("TOPUPD_ADMIN_TOKEN")
	c.SecretKey = getenv("TOPUPD_SECRET_KEY")
	c.MetricsToken = getenv("TOPUPD_METRICS_TOKEN")
	var err error
	if c.TrustedProxies, err = httpapi.ParseTrustedProxies(proxies); err != nil {
		return c, fmt.Errorf("--trusted-proxies: %w", err)
	}
	if c.RatePerSecond < 1 || c.RatePerMinute < 1 || c.RateInvalidKeyPerMinute < 1 {
		return c, fmt.Errorf("--rate-per-second, --rate-per-minute and --rate-invalid-key-per-minute must be at least 1")
	}
	if c.RedisTimeout <= 0 {
		return c, fmt.Errorf("--redis-timeout (TOPUPD_REDIS_TIMEOUT) must be above 0")
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
	if c.ConsoleURL != "" {
		if u, err := url.Parse(c.ConsoleURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("--console-url (TOPUPD_CONSOLE_URL): %q is not an http:// or https:// URL", c.ConsoleURL)
		}
	}
	c.Exclusive, c.RequireRedis = true, true // one server per SQLite file; no start without the Redis named
	c.NodeID = nodeID
	if c.NodeID == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "localhost"
		}
		c.NodeID = defaultNodeID(host, c.Addr, c.AdminAddr)
	}
	return c, nil
}

// commandFlags are one command's flags, each flag that names an
// environment variable reading it too: help (-h) goes to stdout, a usage
// error to stderr.
type commandFlags struct {
	*flagEnv
	fs  *flag.FlagSet
	out bytes.Buffer
}

// newCommandFlags starts a command's flags; its usage is usage, then the flags.
func newCommandFlags(name, usage string) *commandFlags {
	c := &commandFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	c.fs.SetOutput(&c.out)
	c.fs.Usage = func() {
		fmt.Fprint(c.fs.Output(), usage)
		printFlags(c.fs)
	}
	c.flagEnv = &flagEnv{fs: c.fs}
	return c
}

// parse reads the environment, then args (flags win): it returns
// flag.ErrHelp once the usage is on stdout, a bad flag's error once the
// usage is on stderr, or an environment variable that cannot be read.
func (c *commandFlags) parse(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	envErr := c.apply(getenv)
	err := c.fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		io.Copy(stdout, &c.out)
		return err
	}
	io.Copy(stderr, &c.out)
	if err != nil {
		return err
	}
	return envErr
}

// usage writes the command's usage to w.
func (c *commandFlags) usage(w io.Writer) {
	c.fs.Usage()
	io.Copy(w, &c.out)
}

// defaultNodeID names a node after its host and its two listen addresses,
// which no two processes running on one host share (unless a port is 0) and
// which a restart keeps: node-<host>-<addr>-<admin-addr>, with every
// character other than a letter, digit, dot or dash made an underscore.
func defaultNodeID(host, addr, adminAddr string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
				return r
			}
			return '_'
		}, s)
	}
	return "node-" + clean(host) + "-" + clean(addr) + "-" + clean(adminAddr)
}

// flagEnv defines flags that may also be set by an environment variable,
// read as strictly as the flag: a value that cannot be read is an error
// naming both, never a silent default.
type flagEnv struct {
	fs   *flag.FlagSet
	vars [][2]string // flag name, environment variable, in definition order
}

// Var defines a flag of any Value; env, when not empty, names its variable.
func (f *flagEnv) Var(v flag.Value, name, env, usage string) {
	if env != "" {
		usage += " (" + env + ")"
		f.vars = append(f.vars, [2]string{name, env})
	}
	f.fs.Var(v, name, usage)
}

// String defines a string flag.
func (f *flagEnv) String(p *string, name, env, def, usage string) {
	*p = def
	f.Var(stringValue{p}, name, env, usage)
}

// Int defines a whole-number flag.
func (f *flagEnv) Int(p *int, name, env string, def int, usage string) {
	*p = def
	f.Var(intValue{p}, name, env, usage)
}

// Uint64 defines a flag of a whole number from 0.
func (f *flagEnv) Uint64(p *uint64, name, env string, def uint64, usage string) {
	*p = def
	f.Var(uint64Value{p}, name, env, usage)
}

// Duration defines a duration flag (such as 200ms, 2s or 1m30s).
func (f *flagEnv) Duration(p *time.Duration, name, env string, def time.Duration, usage string) {
	*p = def
	f.Var(durationValue{p}, name, env, usage)
}

// apply sets every flag whose variable is set; call it before fs.Parse so
// that flags win. It returns the first value it could not read, naming the
// variable and its flag, e.g. `TOPUPD_RATE_PER_SECOND (--rate-per-second):
// "abc" is not a whole number`.
func (f *flagEnv) apply(getenv func(string) string) error {
	for _, v := range f.vars {
		if s := getenv(v[1]); s != "" {
			if err := f.fs.Set(v[0], s); err != nil {
				return fmt.Errorf("%s (--%s): %q is %w", v[1], v[0], s, err)
			}
		}
	}
	return nil
}

// printFlags writes fs's flags the way flag.PrintDefaults does, naming
// the kind of value each of this file's flag values takes.
func printFlags(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		k, ours := f.Value.(interface{ kind() string })
		if ours {
			name = k.kind()
		}
		fmt.Fprintf(fs.Output(), "  -%s", f.Name)
		if name != "" {
			fmt.Fprintf(fs.Output(), " %s", name)
		}
		fmt.Fprintf(fs.Output(), "\n    \t%s", strings.ReplaceAll(usage, "\n", "\n    \t"))
		switch {
		case f.DefValue == "" || f.DefValue == "0" || f.DefValue == "0s" || f.DefValue == "false":
		case name == "string" || name == "word":
			fmt.Fprintf(fs.Output(), " (default %q)", f.DefValue)
		default:
			fmt.Fprintf(fs.Output(), " (default %s)", f.DefValue)
		}
		fmt.Fprintln(fs.Output())
	})
}

// The values below read a flag strictly; their errors complete "<value> is …".

type stringValue struct{ p *string }

func (stringValue) kind() string { return "string" }

func (v stringValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v stringValue) Set(s string) error { *v.p = s; return nil }

type intValue struct{ p *int }

func (intValue) kind() string { return "int" }

func (v intValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("out of range")
	}
	if err != nil {
		return errors.New("not a whole number")
	}
	*v.p = n
	return nil
}

type uint64Value struct{ p *uint64 }

func (uint64Value) kind() string { return "uint" }

func (v uint64Value) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatUint(*v.p, 10)
}

func (v uint64Value) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("out of range")
	}
	if err != nil {
		return errors.New("not a whole number from 0")
	}
	*v.p = n
	return nil
}

type durationValue struct{ p *time.Duration }

func (durationValue) kind() string { return "duration" }

func (v durationValue) String() string {
	if v.p == nil {
		return "0s"
	}
	return v.p.String()
}

func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration such as 200ms, 2s or 1m30s")
	}
	*v.p = d
	return nil
}

// choiceValue is one of a few words, matched without regard to case.
type choiceValue struct {
	p     *string
	words []string
}

func (choiceValue) kind() string { return "word" }

func (v choiceValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v choiceValue) Set(s string) error {
	for _, w := range v.words {
		if strings.EqualFold(s, w) {
			*v.p = w
			return nil
		}
	}
	return fmt.Errorf("not one of %s", strings.Join(v.words, ", "))
}
