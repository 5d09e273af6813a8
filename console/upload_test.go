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

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/service"
)

// TestUploadBigFile: the plain upload form (no script, no browser) takes
// a .txt file of more codes than one admin API call may send
// (service.MaxStockCodes) and adds them all in one transaction, one
// stock.add in the action log; the reseller catalog shows them. A file
// with no codes, and a post without the session's token, are refused and
// add nothing. (The store suite checks that an upload is one change.)
func TestUploadBigFile(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	h.NewOperator("own", "owner")
	id, hash := topupd.NewSecret()
	if err := h.Store.CreateSession(context.Background(), topupd.ConsoleSession{ID: hash, Operator: "own", CSRF: "tok", IP: "127.0.0.1", CreatedAt: h.Now()}); err != nil {
		t.Fatal(err)
	}
	post := func(csrf, file string) (int, string) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		mw.WriteField("csrf", csrf)
		mw.WriteField("pid", topupdtest.PIDGift)
		fw, _ := mw.CreateFormFile("file", "codes.txt")
		io.WriteString(fw, file)
		mw.Close()
		req, _ := http.NewRequest("POST", h.Admin.URL+"/console/stock", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.AddCookie(&http.Cookie{Name: "topupd_session", Value: id})
		resp, err := http.DefaultClient.Do(req) // no timeout: a big file takes long under -race
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		page, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(page)
	}
	var sb strings.Builder
	n := service.MaxStockCodes + 2_000
	for i := range n {
		fmt.Fprintf(&sb, "CARD-%06d-%s\r\n", i, topupd.NewID(""))
	}
	a := h.NewAccount("", nil)
	if status, page := post("forged", sb.String()); status != http.StatusForbidden {
		t.Errorf("without the session's token: %d %.300s", status, page)
	}
	if status, page := post("tok", "\n\ncode\n"); status != http.StatusBadRequest || !strings.Contains(page, "The file had no codes: nothing was added; "+topupdtest.PIDGift+" holds 5 available.") {
		t.Errorf("a file with no codes: %d %.500s", status, page)
	}
	if got := h.Stock(a)[topupdtest.PIDGift]; got != "5" {
		t.Fatalf("the stock after refused uploads: %s", got)
	}
	status, page := post("tok", sb.String())
	if want := fmt.Sprintf("Done: %d added, 0 duplicates, %d available.", n, n+5); status != http.StatusOK || !strings.Contains(page, want) {
		t.Errorf("%d codes: %d, want %q in\n%.500s", n, status, want, page)
	}
	if got := h.Stock(a)[topupdtest.PIDGift]; got != fmt.Sprint(n+5) {
		t.Errorf("the catalog's stock: %s", got)
	}
	acts, err := h.AdminClient.Actions(t.Context(), url.Values{"action": {"stock.add"}, "operator": {"own"}})
	if err != nil || len(acts.Actions) != 1 || acts.Actions[0].After["added"] != float64(n) {
		t.Errorf("the upload in the action log: %+v, %v; want one entry", acts, err)
	}
}
