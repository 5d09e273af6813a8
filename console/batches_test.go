package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// consoleAs returns a caller of the console as a new operator with a
// role, signed in with a session made in the store (no browser): it
// answers the status and the page, following no redirect.
func consoleAs(t *testing.T, h *topupdtest.T, name, role string) func(method, path string, form url.Values) (int, string) {
	t.Helper()
	h.NewOperator(name, role)
	id, hash := topupd.NewSecret()
	if err := h.Store.CreateSession(context.Background(), topupd.ConsoleSession{ID: hash, Operator: name, CSRF: "tok-" + name, IP: "127.0.0.1", CreatedAt: h.Now()}); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return func(method, path string, form url.Values) (int, string) {
		t.Helper()
		var body io.Reader
		if form != nil {
			form.Set("csrf", "tok-"+name)
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, h.Admin.URL+path, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		req.AddCookie(&http.Cookie{Name: "topupd_session", Value: id})
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		page, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(page)
	}
}

// TestConsoleBatches: the stock page marks packs low by their lowStockAt
// (set from the pack's stock page) or else by the default; the pack's
// stock page lists its batches; chunks the script sends make one batch
// with the form's cost and note; a void asks to be confirmed, then
// withdraws the unsold codes; only the owner may export them; the
// dashboard lists the pack low on stock.
func TestConsoleBatches(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog() // 10 keys (not low by the default), 5 cards (low)
	own := consoleAs(t, h, "own", "owner")
	sup := consoleAs(t, h, "sup", "support")
	pid := topupdtest.PIDKey

	if status, page := own("GET", "/console/stock", nil); status != 200 || !strings.Contains(page, `id="low-`+topupdtest.PIDGift+`">low`) ||
		!strings.Contains(page, `id="low-`+pid+`">ok`) {
		t.Fatalf("the stock page: %d\n%.2000s", status, page)
	}
	if status, _ := own("POST", "/console/stock/"+pid+"/level", url.Values{"lowStockAt": {"12"}}); status != http.StatusSeeOther {
		t.Fatalf("setting the level: %d", status)
	}
	if status, page := own("GET", "/console/stock", nil); status != 200 || !strings.Contains(page, `id="low-`+pid+`">low`) {
		t.Errorf("the stock page after the level 12 with 10 codes: %d", status)
	}
	if _, page := own("GET", "/console/", nil); !strings.Contains(page, `<td><a href="/console/stock/`+pid+`">`+pid+`</a></td>`) {
		t.Errorf("the dashboard does not list %s low on stock", pid)
	}

	// The script's chunks: the first starts the batch, the next name it.
	send := func(body map[string]any) *http.Response {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", h.Admin.URL+"/console/stock/chunk", strings.NewReader(string(b)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CSRF-Token", "tok-own")
		req.AddCookie(sessionCookie(t, h, "own"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	chunk := func(body map[string]any) client.StockResult {
		t.Helper()
		resp := send(body)
		defer resp.Body.Close()
		var res client.StockResult
		if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != 200 {
			t.Fatalf("a chunk: %d, %v", resp.StatusCode, err)
		}
		return res
	}
	for _, bad := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"pid": pid, "codes": []string{"A\x00B"}}, "INVALID_BODY: a \\u0000 escape (a NUL byte) is not text"},
		{map[string]any{"pid": pid, "codes": []string{"A"}, "note": "\x00"}, "INVALID_BODY: a \\u0000 escape (a NUL byte) is not text"},
		{map[string]any{"pid": pid, "codes": []string{"code"}}, "INVALID_BODY: codes: 1 to 1000000 codes"},
		{map[string]any{"pid": "nosuch", "codes": []string{"A"}}, "NOT_FOUND: pack nosuch"},
	} {
		resp := send(bad.body)
		var got struct{ Error string }
		err := json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if want := map[bool]int{true: 404, false: 400}[bad.body["pid"] == "nosuch"]; err != nil || resp.StatusCode != want || got.Error != bad.want {
			t.Errorf("a chunk %v: %d %q, %v; want %d %q", bad.body, resp.StatusCode, got.Error, err, want, bad.want)
		}
	}
	codes := make([]string, 6)
	for i := range codes {
		codes[i] = fmt.Sprintf("CONSOLE-%d-%s", i, topupd.NewID(""))
		h.Logs.Secret(codes[i], "a code uploaded from the console")
	}
	first := chunk(map[string]any{"pid": pid, "codes": codes[:3], "costUsd": "0.40", "note": "from the console"})
	next := chunk(map[string]any{"pid": pid, "codes": codes[3:], "batchId": first.BatchID})
	if first.BatchID == 0 || next.BatchID != first.BatchID || next.Available != 16 {
		t.Fatalf("two chunks: %+v, %+v", first, next)
	}
	batches, err := h.AdminClient.Batches(t.Context(), pid)
	if err != nil || len(batches) != 2 || batches[0].ID != first.BatchID || batches[0].Added != 6 || batches[0].Note != "from the console" ||
		batches[0].CostUSD == nil || *batches[0].CostUSD != 4_000 || batches[0].Operator != "own" {
		t.Fatalf("the batches after two chunks: %+v, %v", batches, err)
	}
	id := fmt.Sprint(first.BatchID)
	if status, page := own("GET", "/console/stock/"+pid, nil); status != 200 || !strings.Contains(page, `id="batch-`+id+`"`) ||
		!strings.Contains(page, "from the console") || !strings.Contains(page, "/console/stock/batches/"+id+"/codes.txt") {
		t.Errorf("the pack's stock page: %d\n%.3000s", status, page)
	}
	if _, page := sup("GET", "/console/stock/"+pid, nil); strings.Contains(page, "codes.txt") || strings.Contains(page, ">Void<") {
		t.Errorf("support's view of the pack's stock page offers what its role may not do")
	}
	if status, _ := sup("GET", "/console/stock/batches/"+id+"/codes.txt", nil); status != http.StatusForbidden {
		t.Errorf("support exporting codes: %d, want 403", status)
	}
	status, text := own("GET", "/console/stock/batches/"+id+"/codes.txt", nil)
	if status != 200 || text != strings.Join(codes, "\n")+"\n" {
		t.Errorf("the owner's export: %d %q", status, text)
	}

	if status, page := own("POST", "/console/stock/batches/"+id+"/void", url.Values{"pid": {pid}}); status != 200 || !strings.Contains(page, "Void batch "+id) {
		t.Fatalf("a void before confirming: %d\n%.1000s", status, page)
	}
	if b, _ := h.AdminClient.Batches(t.Context(), pid); b[0].Voided {
		t.Fatal("voided without confirming")
	}
	if status, _ := own("POST", "/console/stock/batches/"+id+"/void", url.Values{"pid": {pid}, "confirmed": {"yes"}}); status != http.StatusSeeOther {
		t.Fatalf("the confirmed void: %d", status)
	}
	if b, _ := h.AdminClient.Batches(t.Context(), pid); !b[0].Voided || b[0].Withdrawn != 6 {
		t.Errorf("the batch after the void: %+v", b[0])
	}
	if status, page := own("GET", "/console/stock/"+pid, nil); status != 200 || !strings.Contains(page, "6 withdrawn") || !strings.Contains(page, `id="available">10<`) {
		t.Errorf("the pack's stock page after the void: %d\n%.3000s", status, page)
	}
}

// sessionCookie makes a console session for an operator who exists.
func sessionCookie(t *testing.T, h *topupdtest.T, name string) *http.Cookie {
	t.Helper()
	id, hash := topupd.NewSecret()
	if err := h.Store.CreateSession(context.Background(), topupd.ConsoleSession{ID: hash, Operator: name, CSRF: "tok-" + name, IP: "127.0.0.1", CreatedAt: h.Now()}); err != nil {
		t.Fatal(err)
	}
	return &http.Cookie{Name: "topupd_session", Value: id}
}
