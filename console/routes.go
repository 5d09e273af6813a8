package console

import (
	"io/fs"
	"net/http"

	"github.com/topupd/topupd"
)

// routes lists the whole console: each page with the permission its role
// needs, as the admin API asks for the same work.
func (c *Console) routes() {
	m := c.mux
	assets, _ := fs.Sub(files, "assets")
	m.Handle("GET /console/assets/", http.StripPrefix("/console/assets/", longCache(http.FileServerFS(assets))))
	m.HandleFunc("GET /favicon.ico", favicon)
	m.HandleFunc("GET /console/login", c.loginForm)
	m.HandleFunc("POST /console/login", c.login)
	m.HandleFunc("GET /console/setup/{token}", c.setupPage)
	m.HandleFunc("POST /console/setup/{token}", c.setup)
	m.Handle("POST /console/logout", c.signedIn(topupd.PermRead, c.logout))

	read := func(pattern string, h handler) { m.Handle(pattern, c.signedIn(topupd.PermRead, h)) }
	may := func(pattern string, p topupd.Permission, h handler) { m.Handle(pattern, c.signedIn(p, h)) }
	read("GET /console/{$}", c.dashboard)
	read("POST /console/zone", c.setZone)
	read("GET /console/orders", c.orders)
	may("POST /console/orders", topupd.PermCodeSearch, c.searchByCode)
	read("GET /console/orders.csv", c.ordersCSV)
	read("GET /console/orders/{id}", c.order)
	may("POST /console/orders/{id}/{action}", topupd.PermOrders, c.orderAction)
	may("POST /console/orders/{id}/codes", topupd.PermOrderCodes, c.orderCodes)
	read("GET /console/accounts", c.accounts)
	may("POST /console/accounts", topupd.PermAccounts, c.createAccount)
	read("GET /console/accounts/{id}", c.account)
	may("POST /console/accounts/{id}/credit", topupd.PermCredit, c.credit)
	may("POST /console/accounts/{id}/flags", topupd.PermAccounts, c.flags)
	may("POST /console/accounts/{id}/allowlist", topupd.PermAccounts, c.allowlist)
	may("POST /console/accounts/{id}/terms", topupd.PermPrices, c.terms)
	may("POST /console/accounts/{id}/prices", topupd.PermPrices, c.setAccountPrice)
	may("POST /console/accounts/{id}/prices/{pid}/remove", topupd.PermPrices, c.removeAccountPrice)
	may("POST /console/accounts/{id}/keys", topupd.PermAccounts, c.createKey)
	may("POST /console/accounts/{id}/keys/{keyId}/revoke", topupd.PermAccounts, c.revokeKey)
	may("GET /console/accounts/{id}/statement.csv", topupd.PermReports, c.statementCSV)
	may("POST /console/accounts/{id}/chat-links", topupd.PermAccounts, c.chatLink)
	may("POST /console/accounts/{id}/chats/{chatId}/unlink", topupd.PermAccounts, c.unlinkChat)
	read("GET /console/accounts/{id}/webhooks", c.webhooks)
	may("POST /console/accounts/{id}/webhooks", topupd.PermAccounts, c.createWebhook)
	read("GET /console/webhooks/{eid}", c.webhook)
	may("POST /console/webhooks/{eid}/{action}", topupd.PermAccounts, c.webhookAction)
	read("GET /console/deposits", c.deposits)
	may("POST /console/deposits/{id}/confirm", topupd.PermCredit, c.confirmDeposit)
	may("POST /console/deposits/{id}/reject", topupd.PermCredit, c.rejectDeposit)
	m.Handle("POST /console/deposits/import", c.limitUpload(c.signedIn(topupd.PermCredit, c.importStatement)))
	read("GET /console/disputes", c.disputes)
	may("POST /console/disputes/{id}/claim", topupd.PermDisputes, c.setClaim)
	may("POST /console/disputes/{id}/claim/clear", topupd.PermDisputes, c.clearClaim)
	read("GET /console/catalog", c.catalog)
	may("GET /console/catalog/lines/{slug}", topupd.PermCatalog, c.line)
	may("POST /console/catalog/lines/{slug}", topupd.PermCatalog, c.saveLine)
	may("POST /console/catalog/lines/{slug}/status", topupd.PermCatalog, c.lineStatus)
	may("GET /console/catalog/packs/{pid}", topupd.PermCatalog, c.pack)
	may("POST /console/catalog/packs/{pid}", topupd.PermCatalog, c.savePack)
	may("POST /console/catalog/packs/{pid}/status", topupd.PermCatalog, c.packStatus)
	may("POST /console/catalog/packs/{pid}/suppliers", topupd.PermCatalog, c.savePackSuppliers)
	read("GET /console/catalog/tiers", c.tiers)
	may("POST /console/catalog/tiers", topupd.PermPrices, c.createTier)
	read("GET /console/catalog/tiers/{name}", c.tier)
	may("POST /console/catalog/tiers/{name}", topupd.PermPrices, c.saveTier)
	read("GET /console/pricing", c.pricing)
	may("POST /console/pricing/preview", topupd.PermPrices, c.previewRule)
	may("POST /console/pricing/rules", topupd.PermPrices, c.saveRule)
	may("POST /console/pricing/rules/{name}/delete", topupd.PermPrices, c.deleteRule)
	may("POST /console/pricing/held/{pid}/apply", topupd.PermPrices, c.applyHeld)
	may("POST /console/pricing/held/{pid}/discard", topupd.PermPrices, c.discardHeld)
	may("POST /console/pricing/changes/{id}/delete", topupd.PermPrices, c.deletePriceChange)
	read("GET /console/stock", c.stock)
	m.Handle("POST /console/stock", c.limitUpload(c.signedIn(topupd.PermCatalog, c.uploadStock)))
	may("POST /console/stock/chunk", topupd.PermCatalog, c.stockChunk)
	may("POST /console/stock/paste", topupd.PermCatalog, c.pasteStock)
	read("GET /console/stock/{pid}", c.stockPackPage)
	may("POST /console/stock/{pid}/level", topupd.PermCatalog, c.setLowStockAt)
	may("POST /console/stock/batches/{id}/void", topupd.PermCatalog, c.voidBatch)
	may("GET /console/stock/batches/{id}/codes.txt", topupd.PermExportCodes, c.exportBatch)
	read("GET /console/suppliers", c.suppliers)
	may("POST /console/suppliers/upstreams", topupd.PermCatalog, c.putUpstream)
	may("POST /console/suppliers/upstreams/{name}/delete", topupd.PermCatalog, c.deleteUpstream)
	may("POST /console/suppliers/upstreams/{name}/check", topupd.PermCheckSuppliers, c.checkUpstream)
	may("POST /console/suppliers/upstreams/{name}/thresholds", topupd.PermCatalog, c.setUpstreamThresholds)
	may("POST /console/suppliers/upstreams/{name}/deposits", topupd.PermCredit, c.addUpstreamDeposit)
	may("POST /console/suppliers/upstreams/{name}/reconciliations", topupd.PermReconcile, c.reconcilePull)
	m.Handle("POST /console/suppliers/upstreams/{name}/reconciliations/file", c.limitUpload(c.signedIn(topupd.PermReconcile, c.reconcileFile)))
	read("GET /console/reconciliations", c.reconciliations)
	read("GET /console/reconciliations/{id}", c.reconciliation)
	may("POST /console/reconciliations/{id}/close", topupd.PermReconcile, c.closeReconciliation)
	may("POST /console/reconciliations/{id}/mismatches/{mid}/resolve", topupd.PermReconcile, c.resolveMismatch)
	may("GET /console/reports", topupd.PermReports, c.reports)
	may("GET /console/reports.csv", topupd.PermReports, c.reportCSV)
	may("GET /console/operators", topupd.PermOperators, c.operators)
	may("GET /console/operators/lockouts", topupd.PermOperators, c.lockouts)
	may("POST /console/operators/lockouts/unlock", topupd.PermOperators, c.unlock)
	may("POST /console/operators", topupd.PermOperators, c.addOperator)
	may("POST /console/operators/{name}", topupd.PermOperators, c.patchOperator)
	may("POST /console/operators/{name}/setup-link", topupd.PermOperators, c.setupLink)
	read("GET /console/actions", c.actions)
	read("GET /console/me", c.me)
	read("POST /console/me/password", c.changePassword)
	read("GET /console/me/totp", c.totpPage)
	read("POST /console/me/totp", c.renewTOTP)
	read("POST /console/me/recovery", c.renewRecovery)
	read("GET /console/settings", c.settings)
	may("POST /console/settings", topupd.PermSettings, c.setSetting)
	may("POST /console/settings/rules", topupd.PermSettings, c.setRules)
	read("GET /console/", c.notFound)
}

// notFound answers a console path that is no page.
func (c *Console) notFound(w http.ResponseWriter, r *http.Request, s *session) error {
	c.fail(w, r, s, http.StatusNotFound, "There is no such page.")
	return nil
}

// iconPath is the console's icon among its assets.
const iconPath = "/console/assets/favicon.svg"

// favicon sends a browser's /favicon.ico to the console's icon, for a week.
func favicon(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=604800")
	http.Redirect(w, r, iconPath, http.StatusMovedPermanently)
}

// longCache lets browsers keep the icon for a week; the style sheet and
// the script, whose names do not change with their content, are checked
// each time.
func longCache(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if "/console/assets/"+r.URL.Path == iconPath {
			w.Header().Set("Cache-Control", "public, max-age=604800")
		}
		h.ServeHTTP(w, r)
	})
}
