package console_test

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/benchdata"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// BenchmarkPages renders every console page, as an owner sees it, over
// 1,000,000 orders of the last 60 days on SQLite: each sub-benchmark is
// one page, fetched over HTTP with its session (ns/op is the time to the
// last byte).
func BenchmarkPages(b *testing.B) {
	h := topupdtest.New(b)
	h.LoadCatalog()
	var accounts []string
	for range 50 {
		accounts = append(accounts, h.NewAccount("100", nil).ID)
	}
	db, err := sql.Open("sqlite", "file:"+h.DB+"?_pragma=busy_timeout(60000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	end := time.Now().UTC()
	if err := benchdata.Seed(context.Background(), db, benchdata.Orders{N: 1_000_000, From: end.AddDate(0, 0, -60), To: end, Accounts: accounts}); err != nil {
		b.Fatal(err)
	}
	h.NewOperator("own", "owner")
	id, hash := topupd.NewSecret()
	if err := h.Store.CreateSession(context.Background(), topupd.ConsoleSession{ID: hash, Operator: "own", CSRF: "c", IP: "127.0.0.1", CreatedAt: h.Now()}); err != nil {
		b.Fatal(err)
	}
	get := func(b *testing.B, path string) string {
		req, _ := http.NewRequest("GET", h.Admin.URL+path, nil)
		req.AddCookie(&http.Cookie{Name: "topupd_session", Value: id})
		resp, err := h.HTTP.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		page := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") // else a CSV download
		if err != nil || resp.StatusCode != 200 || (page && !strings.Contains(string(body), `id="whoami"`)) {
			b.Fatalf("GET %s: %d %v\n%.2000s", path, resp.StatusCode, err, body)
		}
		return string(body)
	}
	acc := accounts[7]
	next := regexp.MustCompile(`id="next-page" href="/console/orders\?([^"]+)"`).FindStringSubmatch(get(b, "/console/orders?account="+acc))
	if next == nil {
		b.Fatal("no next page of an account's orders")
	}
	day := end.AddDate(0, 0, -20).Format(time.DateOnly)
	for _, p := range []struct{ name, path string }{
		{"dashboard", "/console/"},
		{"orders", "/console/orders"},
		{"orders-of-account", "/console/orders?account=" + acc},
		{"orders-of-account-page-2", "/console/orders?" + strings.ReplaceAll(next[1], "&amp;", "&")},
		{"orders-by-trxid", "/console/orders?q=t-123457"},
		{"orders-by-trxid-start", "/console/orders?q=T-12345"},
		{"orders-of-player", "/console/orders?player=51234"},
		{"orders-csv-of-pack-on-a-day", "/console/orders.csv?pid=" + benchdata.PID(3) + "&from=" + day + "&to=" + day},
		{"orders-processing", "/console/orders?status=processing"},
		{"orders-of-pack-on-a-day", "/console/orders?pid=" + benchdata.PID(3) + "&from=" + day + "&to=" + day},
		{"order", "/console/orders/ord_500000"},
		{"accounts", "/console/accounts"},
		{"account", "/console/accounts/" + acc},
		{"catalog", "/console/catalog"},
		{"stock", "/console/stock"},
		{"suppliers", "/console/suppliers"},
		{"reports-by-day", "/console/reports"},
		{"reports-by-account", "/console/reports?groupBy=account"},
		{"reports-by-pack", "/console/reports?groupBy=pack"},
		{"account-webhooks", "/console/accounts/" + acc + "/webhooks"},
		{"tiers", "/console/catalog/tiers"},
		{"pack", "/console/catalog/packs/" + topupdtest.PIDPubg},
		{"lockouts", "/console/operators/lockouts"},
		{"own-sign-in", "/console/me"},
		{"operators", "/console/operators"},
		{"actions", "/console/actions"},
		{"settings", "/console/settings"},
	} {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				get(b, p.path)
			}
		})
	}
}
