package console_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// filePoster posts the reconciliations' file form as an operator made
// already (consoleAs), in a session of its own: the status, the page
// and where it sends the browser.
func filePoster(t *testing.T, h *topupdtest.T, name string) func(upstream string, fields url.Values, file string) (int, string, string) {
	t.Helper()
	id, hash := topupd.NewSecret()
	csrf := "file-tok-" + name
	if err := h.Store.CreateSession(context.Background(), topupd.ConsoleSession{ID: hash, Operator: name, CSRF: csrf, IP: "127.0.0.1", CreatedAt: h.Now()}); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return func(upstream string, fields url.Values, file string) (int, string, string) {
		t.Helper()
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		mw.WriteField("csrf", csrf)
		for k, vs := range fields {
			for _, v := range vs {
				mw.WriteField(k, v)
			}
		}
		fw, _ := mw.CreateFormFile("file", "theirs.csv")
		io.WriteString(fw, file)
		mw.Close()
		req, _ := http.NewRequest("POST", h.Admin.URL+"/console/suppliers/upstreams/"+upstream+"/reconciliations/file", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.AddCookie(&http.Cookie{Name: "topupd_session", Value: id})
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		page, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(page), resp.Header.Get("Location")
	}
}

// TestReconciliationRoles: against an upstream with no order of ours,
// every line of the supplier's file is missing_here. A viewer and support
// may not run a reconciliation or close one (403, nothing stored or
// changed); finance runs one. Every role reads the pages, and only a role
// that may reconcile sees the forms and the Close button; closing with
// mismatches open is a 409 that says why.
func TestReconciliationRoles(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.Settings(map[string]any{"reconcileAt": nil})
	ctx := context.Background()
	if err := h.Store.PutUpstream(ctx, nil, topupd.Upstream{Name: "filed", BaseURL: "http://127.0.0.1:1", APIKey: "k-filed"}); err != nil {
		t.Fatal(err)
	}
	fin, sup, vic := consoleAs(t, h, "fin", "finance"), consoleAs(t, h, "sup", "support"), consoleAs(t, h, "vic", "viewer")
	finFile, supFile, vicFile := filePoster(t, h, "fin"), filePoster(t, h, "sup"), filePoster(t, h, "vic")
	today := h.Now().UTC().Format(time.DateOnly)
	fields := url.Values{"from": {today}, "to": {today}, "reference": {"reference"}, "amount": {"amount"}, "upstream": {"filed"}, "source": {"csv"}}
	file := "reference,amount\ntheirs-1,1.25\ntheirs-2,0.5\ntheirs-3,2\n"

	for name, post := range map[string]func(string, url.Values, string) (int, string, string){"viewer": vicFile, "support": supFile} {
		if status, page, _ := post("filed", fields, file); status != http.StatusForbidden {
			t.Errorf("%s sending a file: %d %.300s", name, status, page)
		}
	}
	pull := url.Values{"from": {today}, "to": {today}, "upstream": {"filed"}, "source": {"pull"}}
	if status, page := vic("POST", "/console/suppliers/upstreams/filed/reconciliations", pull); status != http.StatusForbidden {
		t.Errorf("a viewer pulling: %d %.300s", status, page)
	}
	if got := reconsNow(t, h, "filed"); len(got) != 0 {
		t.Fatalf("runs stored after the refusals: %+v", got)
	}
	status, page, loc := finFile("filed", fields, file)
	stored := reconsNow(t, h, "filed")
	if status != http.StatusSeeOther || len(stored) != 1 || loc != "/console/reconciliations/"+stored[0].ID {
		t.Fatalf("finance sending a file: %d to %q, %d stored; %.500s", status, loc, len(stored), page)
	}
	id := stored[0].ID
	rec, err := h.Store.Reconciliation(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, m := range rec.Mismatches {
		kinds = append(kinds, m.Reference+" "+m.Kind+" "+m.Theirs.Dollars())
	}
	want := []string{"theirs-1 missing_here 1.25", "theirs-2 missing_here 0.50", "theirs-3 missing_here 2.00"}
	if fmt.Sprint(kinds) != fmt.Sprint(want) || rec.Operator != "fin" || rec.Source != topupd.ReconCSV || rec.Matched != 0 ||
		rec.Totals.TheirCost != money(t, "3.75") || rec.Totals.OurOrders != 0 || rec.Totals.TheirOrders != 3 {
		t.Errorf("the run stored: %+v, mismatches %v; want %v", rec, kinds, want)
	}

	for name, get := range map[string]func(string, string, url.Values) (int, string){"viewer": vic, "support": sup, "finance": fin} {
		forms := name == "finance"
		status, list := get("GET", "/console/reconciliations", nil)
		if status != http.StatusOK || !strings.Contains(list, id) || !strings.Contains(list, "3 open mismatches") {
			t.Errorf("the reconciliations page for %s: %d %.500s", name, status, list)
		}
		if strings.Contains(list, `id="file-form-filed"`) != forms || strings.Contains(list, `id="pull-form-filed"`) != forms {
			t.Errorf("the reconciliations page for %s: forms shown %v, want %v", name, !forms, forms)
		}
		status, one := get("GET", "/console/reconciliations/"+id, nil)
		if status != http.StatusOK || strings.Count(one, `data-kind="missing_here"`) != 3 || !strings.Contains(one, "$3.75") {
			t.Errorf("the reconciliation's page for %s: %d %.500s", name, status, one)
		}
		if strings.Contains(one, `id="close-recon"`) != forms {
			t.Errorf("the reconciliation's page for %s: a Close button %v, want %v", name, !forms, forms)
		}
		if status, page := get("GET", "/console/suppliers", nil); status != http.StatusOK || !strings.Contains(page, `href="/console/reconciliations"`) {
			t.Errorf("the suppliers page for %s links no reconciliations: %d", name, status)
		}
	}
	if status, page := vic("POST", "/console/reconciliations/"+id+"/close", url.Values{}); status != http.StatusForbidden {
		t.Errorf("a viewer closing: %d %.300s", status, page)
	}
	status, closing := fin("POST", "/console/reconciliations/"+id+"/close", url.Values{})
	if status != http.StatusConflict || !strings.Contains(closing, "cannot be closed while a mismatch is open, and it has 3 mismatches open") {
		t.Errorf("finance closing with mismatches open: %d %.800s", status, closing)
	}
	if rec, err := h.Store.Reconciliation(ctx, id); err != nil || rec.State != topupd.ReconOpen {
		t.Errorf("after the refusals: %+v, %v", rec, err)
	}
	if status, page := vic("GET", "/console/reconciliations/rec_nosuch", nil); status != http.StatusNotFound {
		t.Errorf("an unknown reconciliation: %d %.300s", status, page)
	}
}
