package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Chaos runs a topupd server as a child process on a database and two
// loopback ports fixed for its whole life, and kills it with SIGKILL every
// Every, restarting it at once on the same database and ports, as a power
// cut and a supervisor would.
type Chaos struct {
	// Exe and Args start the server: Args are appended after
	// "serve --db <Dir>/chaos.db --addr ... --admin-addr ...".
	Exe  string
	Args []string
	// Env is the child's environment (the token is added to it).
	Env   []string
	Dir   string // holds chaos.db and chaos.log
	Token string
	Every time.Duration

	apiPort, adminPort int
	log                *os.File

	mu       sync.Mutex
	cmd      *exec.Cmd
	exited   chan struct{}
	kills    int
	restarts int
	downtime time.Duration
}

// freePorts finds n free loopback ports, held open together so they differ.
func freePorts(n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// API is the reseller API's URL.
func (c *Chaos) API() string { return "http://127.0.0.1:" + strconv.Itoa(c.apiPort) }

// AdminURL is the admin API's URL.
func (c *Chaos) AdminURL() string { return "http://127.0.0.1:" + strconv.Itoa(c.adminPort) }

// DB is the database file.
func (c *Chaos) DB() string { return filepath.Join(c.Dir, "chaos.db") }

// LogPath is where the server's output goes.
func (c *Chaos) LogPath() string { return filepath.Join(c.Dir, "chaos.log") }

// Start picks the ports, starts the server and waits until it answers.
func (c *Chaos) Start(ctx context.Context) error {
	if c.Exe == "" || c.Dir == "" || c.Every <= 0 {
		return errors.New("chaos: Exe, Dir and Every are required")
	}
	ports, err := freePorts(2)
	if err != nil {
		return fmt.Errorf("chaos: finding free ports: %w", err)
	}
	c.apiPort, c.adminPort = ports[0], ports[1]
	if c.log, err = os.OpenFile(c.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
		return err
	}
	return c.start(ctx)
}

// start runs the server once and waits until its admin API answers.
func (c *Chaos) start(ctx context.Context) error {
	args := append([]string{"serve", "--db", c.DB(),
		"--addr", "127.0.0.1:" + strconv.Itoa(c.apiPort), "--admin-addr", "127.0.0.1:" + strconv.Itoa(c.adminPort), "--sim", "on"}, c.Args...)
	cmd := exec.Command(c.Exe, args...)
	cmd.Env = append(append([]string{}, c.Env...), "TOPUPD_ADMIN_TOKEN="+c.Token)
	cmd.Stdout, cmd.Stderr = c.log, c.log
	fmt.Fprintf(c.log, "--- %s chaos: starting %s\n", time.Now().Format(time.RFC3339Nano), c.Exe)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("chaos: starting the server: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	c.mu.Lock()
	c.cmd, c.exited = cmd, exited
	c.mu.Unlock()
	return c.waitReady(ctx, exited)
}

// waitReady polls GET /admin/healthz until it answers 200, for up to 60 s.
func (c *Chaos) waitReady(ctx context.Context, exited <-chan struct{}) error {
	hc := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.AdminURL()+"/admin/healthz", nil)
		req.Header.Set("Authorization", "Bearer "+c.Token)
		if resp, err := hc.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-exited:
			return fmt.Errorf("chaos: the server exited while starting; see %s", c.LogPath())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("chaos: the server did not answer within 60s; see %s", c.LogPath())
		}
	}
}

// kill ends the server with SIGKILL and waits until it is gone.
func (c *Chaos) kill() {
	c.mu.Lock()
	cmd, exited := c.cmd, c.exited
	c.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Kill()
	<-exited
	fmt.Fprintf(c.log, "--- %s chaos: SIGKILL\n", time.Now().Format(time.RFC3339Nano))
}

// Run kills and restarts the server every Every until ctx ends. When it
// returns the server is running (or the error says why it could not be
// restarted).
func (c *Chaos) Run(ctx context.Context) error {
	t := time.NewTicker(c.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		down := time.Now()
		c.kill()
		c.mu.Lock()
		c.kills++
		c.mu.Unlock()
		// The restart must not be cut short by the end of the load: the
		// checks need the server.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 90*time.Second)
		err := c.start(rctx)
		cancel()
		c.mu.Lock()
		c.downtime += time.Since(down)
		if err == nil {
			c.restarts++
		}
		c.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// Stats says what was done so far.
func (c *Chaos) Stats() ChaosStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ChaosStats{EverySec: c.Every.Seconds(), Kills: c.kills, Restarts: c.restarts, DowntimeSec: c.downtime.Seconds(),
		DB: c.DB(), Log: c.LogPath()}
}

// Stop ends the server gracefully (SIGTERM, then SIGKILL after 30 s).
func (c *Chaos) Stop() {
	c.mu.Lock()
	cmd, exited := c.cmd, c.exited
	c.mu.Unlock()
	if cmd != nil {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}
	if c.log != nil {
		c.log.Close()
	}
}
