package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTimeZonePicker: times on the console's pages are labelled with
// their zone, UTC by default; picking another zone in the header shows
// them in it, and the choice is remembered on the next page.
func TestTimeZonePicker(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	b.signIn(b.setUp("own", "owner"))
	b.open("/console/actions")
	if got := b.text("#actions tbody"); !strings.Contains(got, " UTC") {
		t.Fatalf("the action log's times without a zone: %q", got)
	}
	b.eval(`document.getElementById("zone").value = "Asia/Tokyo"`)
	b.click("#zone-save")
	if p := b.path(); p != "/console/actions" {
		t.Errorf("after picking a zone: at %s, want back on /console/actions", p)
	}
	if got := b.text("#actions tbody"); !strings.Contains(got, " JST") || strings.Contains(got, " UTC") {
		t.Errorf("the action log's times in Asia/Tokyo: %q", got)
	}
	b.open("/console/operators")
	if got, err := run(b, chromedp.Evaluate[string](`document.getElementById("zone").value`)); err != nil || got != "Asia/Tokyo" {
		t.Errorf("the zone picked on the next page: %q", got)
	}
}
