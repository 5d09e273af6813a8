package console_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// polishIcon: /favicon.ico answers with the console's icon, kept for a
// while, and the layout links it.
func polishIcon(t *testing.T, b *tab) {
	t.Run("favicon", func(t *testing.T) {
		b.t = t
		r, err := b.h.HTTP.Get(b.h.Admin.URL + "/favicon.ico")
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "image/") ||
			!strings.Contains(r.Header.Get("Cache-Control"), "max-age=") {
			t.Errorf("/favicon.ico: %d %q, cache %q", r.StatusCode, r.Header.Get("Content-Type"), r.Header.Get("Cache-Control"))
		}
		b.open("/console/")
		width, err := run(b, chromedp.Evaluate[int](`new Promise(done => {
			const l = document.querySelector("link[rel=icon]");
			if (!l) { done(-1); return; }
			const i = new Image();
			i.onload = () => done(i.naturalWidth);
			i.onerror = () => done(0);
			i.src = l.href;
		})`, chromedp.EvalAwaitPromise))
		if err != nil || width <= 0 {
			t.Errorf("the layout's icon is %d px wide (%v)", width, err)
		}
	})
}
