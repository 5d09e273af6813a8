package topupdtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// The Chromium that browser tests drive: one per test binary, started on
// first use; each test gets a browser context of its own (its own
// cookies), so tests may run in parallel.
var browser struct {
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	err    string
}

// chromium finds the browser: TOPUPD_TEST_CHROMIUM, else chromium (as
// Debian names it) or its other names on the PATH.
func chromium() string {
	if p := os.Getenv("TOPUPD_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser returns a fresh browser tab, 1280×800, in a browser context of
// its own, closed when the test ends. Without a Chromium the test is
// skipped with a reason, or fails when TOPUPD_REQUIRE_BROWSER is set (as
// CI sets it). A browser test is end-to-end: go test -short skips it
// before Chromium starts.
func Browser(t testing.TB) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end (a browser): skipped by -short")
	}
	browser.once.Do(startBrowser)
	if browser.err != "" {
		if os.Getenv("TOPUPD_REQUIRE_BROWSER") != "" {
			t.Fatal(browser.err)
		}
		t.Skip(browser.err)
	}
	ctx, cancel := chromedp.NewContext(browser.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("opening a browser tab: %v", err)
	}
	return ctx
}

// startBrowser starts the shared Chromium.
func startBrowser() {
	path := chromium()
	if path == "" {
		browser.err = "no Chromium (apt-get install -y chromium, or set TOPUPD_TEST_CHROMIUM): skipping browser tests"
		return
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1280, 800))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(alloc)
	// The browser lives as long as the context of its first run: ctx itself.
	if err := chromedp.Do(ctx); err != nil {
		cancelBrowser()
		cancelAlloc()
		browser.err = "starting " + path + ": " + err.Error()
		return
	}
	browser.ctx = ctx
	browser.cancel = func() { cancelBrowser(); cancelAlloc() }
}

// CloseBrowser stops the shared Chromium, if one was started: call it
// from TestMain after the tests.
func CloseBrowser() {
	if browser.cancel != nil {
		browser.cancel()
	}
}

// Screenshot saves a full-page PNG of the tab as name under
// TOPUPD_SCREENSHOTS when that is set (docs/console.md's pictures come
// from there), else in the test's temporary directory.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	dir := os.Getenv("TOPUPD_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
