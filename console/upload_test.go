package console_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/topupdtest"
)

// TestUploadHundredThousand: the plain upload form (no script, no
// browser) takes a .txt file of 100,000 codes and adds them all; the
// reseller catalog shows them. A file with no codes, and a post without
// the session's token, are refused and add nothing.
func TestUploadHundredThousand(t *testing.T) {
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
		resp, err := http.DefaultClient.Do(req) // no timeout: 100,000 codes take long under -race

		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		page, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(page)
	}
	var sb strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&sb, "CARD-%06d-%s\r\n", i, topupd.NewID(""))
	}
	a := h.NewAccount("", nil)
	if status, page := post("forged", sb.String()); status != http.StatusForbidden {
		t.Errorf("without the session's token: %d %.300s", status, page)
	}
	if status, _ := post("tok", "\n\ncode\n"); status != http.StatusBadRequest {
		t.Errorf("a file with no codes: %d", status)
	}
	if got := h.Stock(a)[topupdtest.PIDGift]; got != "5" {
		t.Fatalf("the stock after refused uploads: %s", got)
	}
	status, page := post("tok", sb.String())
	if want := "Done: 100000 added, 0 duplicates, 100005 available."; status != http.StatusOK || !strings.Contains(page, want) {
		t.Errorf("100,000 codes: %d, want %q in\n%.500s", status, want, page)
	}
	if got := h.Stock(a)[topupdtest.PIDGift]; got != "100005" {
		t.Errorf("the catalog's stock: %s", got)
	}
}
