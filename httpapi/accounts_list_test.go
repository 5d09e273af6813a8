package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestListAccounts: accounts newest first, found by id or a part of the
// name, paged by cursor without a gap or a repeat; bad parameters are 400
// naming them, a cursor of another list included.
func TestListAccounts(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	var ids []string
	for i := range 7 {
		name := "shop beta"
		if i%2 == 0 {
			name = "Alpha_shop %"
		}
		ids = append(ids, h.AdminOK(http.StatusCreated, "POST", "/admin/accounts", map[string]any{"name": name}).Str("id"))
	}
	list := func(query string) ([]string, string) {
		t.Helper()
		r := h.AdminOK(http.StatusOK, "GET", "/admin/accounts"+query, nil)
		var got []string
		for _, a := range r.Body["accounts"].([]any) {
			got = append(got, a.(map[string]any)["id"].(string))
		}
		next, _ := r.Body["nextCursor"].(string)
		return got, next
	}
	var paged []string
	for cursor := ""; ; {
		page, next := list("?limit=3" + cursor)
		paged = append(paged, page...)
		if next == "" {
			break
		}
		cursor = "&cursor=" + next
	}
	if want := reversed(ids); strings.Join(paged, ",") != strings.Join(want, ",") {
		t.Errorf("paged by 3: %v, want newest first %v", paged, want)
	}
	if got, _ := list("?q=PHA_SHOP%20%25"); len(got) != 4 {
		t.Errorf("q=PHA_SHOP %%: %d accounts, want 4: case does not matter", len(got))
	}
	if got, _ := list("?q=pha_shop%20%25"); len(got) != 4 {
		t.Errorf("q=pha_shop %%: %d accounts, want 4 (the wildcards in q are plain characters)", len(got))
	}
	if got, _ := list("?q=%25"); len(got) != 4 {
		t.Errorf("q=%%: %d accounts, want the 4 whose name holds a %%", len(got))
	}
	if got, _ := list("?q=" + ids[3]); len(got) != 1 || got[0] != ids[3] {
		t.Errorf("q=<id>: %v", got)
	}
	for _, q := range []string{"?limit=0", "?limit=10000", "?cursor=o:5", "?cursor=a:acc_nobody", "?cursor=nonsense", "?name=x", "?q=a&q=b"} {
		if r := h.AdminDo("GET", "/admin/accounts"+q, nil); r.Status != 400 || r.Str("code") != "INVALID_REQUEST" {
			t.Errorf("GET /admin/accounts%s: %v, want 400 INVALID_REQUEST", q, r)
		}
	}
	for _, q := range []string{"?cursor=a:" + ids[0], "?cursor=x:1"} {
		if r := h.AdminDo("GET", "/admin/orders"+q, nil); r.Status != 400 {
			t.Errorf("GET /admin/orders%s: %v, want 400 (another list's cursor)", q, r)
		}
	}
}

// reversed returns s back to front.
func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[len(s)-1-i] = x
	}
	return out
}

// TestListKeys: an account's keys, newest first, with their label and
// prefix, when last used (to the minute) and when revoked; never a key.
func TestListKeys(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	a := h.NewAccount("1", nil)
	bot := h.AdminOK(http.StatusCreated, "POST", "/admin/accounts/"+a.ID+"/keys", map[string]any{"label": "shop bot"})
	h.Logs.Secret(bot.Str("apiKey"), "the bot's key")
	keys := func() []map[string]any {
		var out []map[string]any
		for _, k := range h.AdminOK(http.StatusOK, "GET", "/admin/accounts/"+a.ID+"/keys", nil).Body["keys"].([]any) {
			out = append(out, k.(map[string]any))
		}
		return out
	}
	ks := keys()
	if len(ks) != 2 || ks[0]["keyId"] != bot.Str("keyId") || ks[0]["label"] != "shop bot" || ks[0]["prefix"] != bot.Str("apiKey")[:8] ||
		ks[0]["lastUsedAt"] != nil || ks[0]["revokedAt"] != nil || ks[1]["keyId"] != a.KeyID {
		t.Fatalf("keys: %v", ks)
	}
	h.Do("GET", "/balance", bot.Str("apiKey"), nil)
	h.AdminOK(http.StatusOK, "DELETE", "/admin/keys/"+a.KeyID, nil)
	ks = keys()
	used, _ := ks[0]["lastUsedAt"].(string)
	if used == "" || !strings.HasSuffix(used, ":00Z") || ks[1]["revokedAt"] == nil || ks[1]["lastUsedAt"] != nil {
		t.Errorf("after a call with the bot's key and revoking the other: %v", ks)
	}
	raw := string(h.AdminOK(http.StatusOK, "GET", "/admin/accounts/"+a.ID+"/keys", nil).Raw)
	if strings.Contains(raw, bot.Str("apiKey")) || strings.Contains(raw, a.Key) {
		t.Errorf("a key is shown: %s", raw)
	}
	if r := h.AdminDo("GET", "/admin/accounts/acc_nobody/keys", nil); r.Status != 404 {
		t.Errorf("keys of no account: %v", r)
	}
	if r := h.AdminDo("POST", "/admin/accounts/"+a.ID+"/keys", map[string]any{"label": strings.Repeat("x", 101)}); r.Status != 400 {
		t.Errorf("a 101-character label: %v", r)
	}
}
