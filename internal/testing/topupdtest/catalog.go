package topupdtest

// The test catalog.
const (
	PIDPubg       = "pubg-60"       // pubg top-up, 0.89
	PIDPubgBig    = "pubg-325"      // pubg top-up, 4.45
	PIDPubgOld    = "pubg-old"      // pubg top-up, disabled pack
	PIDPubgManual = "pubg-manual"   // pubg top-up, manual provider, 2.00
	PIDPubgCodes  = "pubg-codes"    // pubg top-up, stock-based, 0.90
	PIDFF         = "ffmena-100"    // Free Fire, userId 5-20 digits, 0.95
	PIDMLBB       = "mlbb-86"       // userId + zoneId, 1.45
	PIDWW         = "ww-60"         // userId + serverId (options), 0.95
	PIDOH         = "oh-60"         // userId + region + moreId, 0.95
	PIDValorant   = "valorant-475"  // Riot ID, 4.60
	PIDKey        = "gamekey-steam" // gamekey, PriceKey
	PIDKeyOld     = "gamekey-old"   // disabled pack of the gamekey line
	PIDGift       = "giftcard-10"   // giftcard, 10.20
	PIDRetired    = "retired-1"     // active pack of a disabled line
	PIDHuge       = "gamekey-huge"  // gamekey pack so dear that quantity × price overflows

	// PriceKey is the price of PIDKey.
	PriceKey = "1.2"
	// PricePubg is the price of PIDPubg.
	PricePubg = "0.89"
	// KeyStock is how many codes LoadCatalog stocks for PIDKey.
	KeyStock = 10
	// ActiveLines and ActivePacks count what the reseller catalog lists
	// after LoadCatalog: disabled lines and packs, and packs of disabled
	// lines, are left out.
	ActiveLines, ActivePacks = 8, 12
)

// LoadCatalog loads the test catalog through the admin API, with 10 codes
// of stock for PIDKey, 5 for PIDGift and 3 for PIDPubgCodes (their codes
// are in Codes).
func (h *T) LoadCatalog() {
	h.TB.Helper()
	field := func(name, label, pattern string) map[string]any {
		f := map[string]any{"field": name, "label": label}
		if pattern != "" {
			f["pattern"] = pattern
		}
		return f
	}
	line := func(slug, product, gameName, game, kind, status string, required ...map[string]any) {
		if required == nil {
			required = []map[string]any{}
		}
		h.PutLine(slug, map[string]any{"productName": product, "gameName": gameName, "game": game, "kind": kind,
			"status": status, "required": required})
	}
	line("pubg", "PUBG Mobile UC", "PUBG Mobile", "pubg", "topup", "active", field("userId", "Player ID", ""))
	line("ffmena", "Free Fire diamonds (MENA)", "Free Fire", "freefire", "topup", "active", field("userId", "Player ID", "^[0-9]{5,20}$"))
	line("mobilelegends", "Mobile Legends diamonds", "Mobile Legends", "mobilelegends", "topup", "active",
		field("userId", "User ID", ""), field("zoneId", "Zone ID", "[0-9]{1,8}"))
	h.PutLine("wutheringwaves", map[string]any{"productName": "Wuthering Waves Lunite", "gameName": "Wuthering Waves",
		"game": "wutheringwaves", "kind": "topup", "status": "active",
		"required":        []map[string]any{field("userId", "UID", ""), field("serverId", "Server", "")},
		"serverIdOptions": []map[string]any{{"value": "america", "label": "America"}, {"value": "europe", "label": "Europe"}}})
	h.PutLine("oncehuman", map[string]any{"productName": "Once Human Crystgin", "gameName": "Once Human",
		"game": "oncehuman", "kind": "topup", "status": "active",
		"required":      []map[string]any{field("userId", "UID", ""), field("region", "Region", ""), field("moreId", "Server ID", "")},
		"regionOptions": []map[string]any{{"value": "eu", "label": "Europe"}, {"value": "na", "label": "North America"}}})
	line("valorant", "Valorant Points", "Valorant", "valorant", "topup", "active", field("userId", "Riot ID", "^[^#]+#[^#]+$"))
	line("gamekey", "Game keys", "Game keys", "gamekey", "gamekey", "active")
	line("giftcard", "Gift cards", "Gift cards", "giftcard", "giftcard", "active")
	line("retired", "Retired game", "Retired", "retired", "topup", "disabled", field("userId", "Player ID", ""))

	pack := func(pid, slug, name, price string, extra map[string]any) {
		p := map[string]any{"slug": slug, "name": name, "category": "Cat " + slug, "priceUsd": USD(price), "status": "active"}
		for k, v := range extra {
			p[k] = v
		}
		h.PutPack(pid, p)
	}
	pack(PIDPubg, "pubg", "60 UC", PricePubg, nil)
	pack(PIDPubgBig, "pubg", "325 UC", "4.45", nil)
	pack(PIDPubgOld, "pubg", "Old UC pack", "1", map[string]any{"status": "disabled"})
	pack(PIDPubgManual, "pubg", "Manual UC pack", "2", map[string]any{"provider": "manual"})
	pack(PIDPubgCodes, "pubg", "UC redeem code", "0.9", map[string]any{"stockBased": true})
	pack(PIDFF, "ffmena", "100 Diamonds", "0.95", nil)
	pack(PIDMLBB, "mobilelegends", "86 Diamonds", "1.45", nil)
	pack(PIDWW, "wutheringwaves", "60 Lunite", "0.95", nil)
	pack(PIDOH, "oncehuman", "60 Crystgin", "0.95", nil)
	pack(PIDValorant, "valorant", "475 VP", "4.6", nil)
	pack(PIDKey, "gamekey", "Steam random key", PriceKey, nil)
	pack(PIDKeyOld, "gamekey", "Old key", "1", map[string]any{"status": "disabled"})
	pack(PIDGift, "giftcard", "Steam Wallet 10 USD", "10.2", nil)
	pack(PIDRetired, "retired", "Retired pack", "1", nil)
	pack(PIDHuge, "gamekey", "Priceless key", "100000000000", nil)
	h.AddStock(PIDKey, KeyStock)
	h.AddStock(PIDGift, 5)
	h.AddStock(PIDPubgCodes, 3)
}
