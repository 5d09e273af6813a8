package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// demoOpeningCredit is the demo account's opening balance, in whole USD.
const demoOpeningCredit = 1000

// demo loads the demo catalog, stock and account into a database with no
// accounts yet, and prints the account's key and a ready curl line.
func demo(ctx context.Context, store topupd.Store, cfg config, apiAddr, adminAddr net.Addr, out io.Writer) error {
	base := "http://" + dialable(apiAddr)
	fmt.Fprintf(out, "topupd demo: admin token %s (admin API on http://%s)\n", cfg.AdminToken, dialable(adminAddr))
	n, err := store.CountAccounts(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		fmt.Fprintln(out, "topupd demo: the database already has accounts; the demo data was loaded before and its key was shown then")
		return nil
	}
	lines := map[string]*topupd.Line{}
	for _, l := range demoLines() {
		if err := l.Validate(); err != nil {
			return fmt.Errorf("line %s: %w", l.Slug, err)
		}
		if err := store.PutLine(ctx, nil, l); err != nil {
			return err
		}
		lines[l.Slug] = &l
	}
	for _, p := range demoPacks() {
		if err := p.ResolveProvider(lines[p.Slug], true); err != nil { // stock for keys and cards, sim for the rest
			return fmt.Errorf("pack %s: %w", p.PID, err)
		}
		if err := p.Validate(); err != nil {
			return fmt.Errorf("pack %s: %w", p.PID, err)
		}
		if err := store.PutPack(ctx, nil, p); err != nil {
			return err
		}
		if strings.HasPrefix(p.Slug, "gamekey") || strings.HasPrefix(p.Slug, "giftcard") {
			if _, err := store.AddStock(ctx, p.PID, demoCodes(p.PID, 200), time.Now()); err != nil {
				return err
			}
		}
	}
	now := time.Now()
	acct, err := store.CreateAccount(ctx, nil, topupd.Account{ID: topupd.NewID("acc_"), Name: "demo reseller", APIEnabled: true, CreatedAt: now})
	if err != nil {
		return err
	}
	if _, _, err := store.Credit(ctx, nil, acct.ID, topupd.USD(demoOpeningCredit), "demo opening balance", now); err != nil {
		return err
	}
	key, hash := topupd.NewAPIKey()
	if err := store.AddKey(ctx, nil, topupd.APIKey{ID: topupd.NewID("key_"), AccountID: acct.ID, Label: "demo", Prefix: key[:topupd.KeyPrefixLen], CreatedAt: now}, hash); err != nil {
		return err
	}
	fmt.Fprintf(out, "topupd demo: account %s holds %d USD\n", acct.ID, demoOpeningCredit)
	fmt.Fprintf(out, "topupd demo: API key %s (shown this once)\n", key)
	fmt.Fprintf(out, "topupd demo: try  curl -s -H 'X-API-Key: %s' %s/balance\n", key, base)
	return nil
}

// dialable turns a listen address such as [::]:8080 into one curl can reach.
func dialable(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if host == "" || host == "::" || host == "0.0.0.0" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// demoCodes makes n random codes that look like real keys.
func demoCodes(pid string, n int) []string {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	codes := make([]string, n)
	b := make([]byte, 15)
	for i := range codes {
		if _, err := rand.Read(b); err != nil {
			panic(err)
		}
		var sb strings.Builder
		for j, c := range b {
			if j > 0 && j%5 == 0 {
				sb.WriteByte('-')
			}
			sb.WriteByte(alphabet[int(c)%len(alphabet)])
		}
		codes[i] = sb.String()
	}
	return codes
}

func req(field, label, pattern string) topupd.RequiredField {
	return topupd.RequiredField{Field: field, Label: label, Pattern: pattern}
}

func opts(values ...string) []topupd.Option {
	out := make([]topupd.Option, 0, len(values)/2)
	for i := 0; i+1 < len(values); i += 2 {
		out = append(out, topupd.Option{Value: values[i], Label: values[i+1]})
	}
	return out
}

// demoLines covers every line slug of the spec's order-shape table.
func demoLines() []topupd.Line {
	userID := req(topupd.FieldUserID, "Player ID", "")
	ffID := req(topupd.FieldUserID, "Player ID", `^[0-9]{5,20}$`)
	qty := req(topupd.FieldQuantity, "Quantity", `^[1-9][0-9]{0,2}$`)
	line := func(slug, product, gameName, game string, kind topupd.LineKind, fields ...topupd.RequiredField) topupd.Line {
		return topupd.Line{Slug: slug, ProductName: product, GameName: gameName, Game: game, Kind: kind, Status: topupd.StatusActive, Required: fields}
	}
	lines := []topupd.Line{
		line("pubg", "PUBG Mobile UC", "PUBG Mobile", "pubg", topupd.KindTopup, userID),
		line("pubgsubscription", "PUBG Mobile Prime & Prime Plus", "PUBG Mobile", "pubg", topupd.KindSubscription, userID),
		line("pubgucspecial", "PUBG Mobile UC special offers", "PUBG Mobile", "pubg", topupd.KindTopup, userID),
		line("pubgcncn", "PUBG Mobile CN web top-up", "PUBG Mobile", "pubg", topupd.KindTopup, userID),
		line("ffmena", "Free Fire diamonds (MENA)", "Free Fire", "freefire", topupd.KindTopup, ffID),
		line("ffcis", "Free Fire diamonds (CIS)", "Free Fire", "freefire", topupd.KindTopup, ffID),
		line("ffbd", "Free Fire diamonds (Bangladesh)", "Free Fire", "freefire", topupd.KindTopup, ffID),
		line("fflatam", "Free Fire diamonds (LATAM)", "Free Fire", "freefire", topupd.KindTopup, ffID),
		line("valorant", "Valorant Points", "Valorant", "valorant", topupd.KindTopup, req(topupd.FieldUserID, "Riot ID (name#tag)", `^[^#]+#[^#]+$`)),
		line("wutheringwaves", "Wuthering Waves Lunite", "Wuthering Waves", "wutheringwaves", topupd.KindTopup, userID, req(topupd.FieldServerID, "Server", "")),
		line("identityv", "Identity V Echoes", "Identity V", "identityv", topupd.KindTopup, userID, req(topupd.FieldServerID, "Server", "")),
		line("oncehuman", "Once Human Crystgin", "Once Human", "oncehuman", topupd.KindTopup, userID, req(topupd.FieldRegion, "Region", ""), req(topupd.FieldMoreID, "Server ID", "")),
		line("mobilelegends", "Mobile Legends diamonds", "Mobile Legends: Bang Bang", "mobilelegends", topupd.KindTopup, userID, req(topupd.FieldZoneID, "Zone ID", `^[0-9]{1,8}$`)),
		line("gamekey", "Game keys", "Game keys", "gamekey", topupd.KindGamekey, qty),
		line("gamekeypubg", "PUBG Mobile UC redeem codes", "PUBG Mobile", "gamekey", topupd.KindGamekey, qty),
		line("giftcard", "Gift cards", "Gift cards", "giftcard", topupd.KindGiftcard, qty),
	}
	for i := range lines {
		switch lines[i].Slug {
		case "wutheringwaves":
			lines[i].ServerIDOptions = opts("america", "America", "europe", "Europe", "asia", "Asia", "sea", "SEA", "hmt", "HK/MO/TW")
		case "identityv":
			lines[i].ServerIDOptions = opts("asia", "Asia", "naeu", "NA-EU")
		case "oncehuman":
			lines[i].RegionOptions = opts("eu", "Europe", "na", "North America", "asia", "Asia", "sea", "Southeast Asia")
		}
	}
	return lines
}

// demoPacks are realistic packs and wholesale prices for every demo line.
func demoPacks() []topupd.Pack {
	var packs []topupd.Pack
	add := func(slug, category string, items ...string) {
		for i := 0; i+2 < len(items)+1; i += 3 {
			price, err := topupd.ParseMoney(items[i+2])
			if err != nil {
				panic(err)
			}
			packs = append(packs, topupd.Pack{PID: items[i], Slug: slug, Name: items[i+1], Category: category,
				Price: price, Status: topupd.StatusActive})
		}
	}
	add("pubg", "UC", "pubg-60", "60 UC", "0.89", "pubg-325", "325 UC", "4.45", "pubg-660", "660 UC", "8.85",
		"pubg-1800", "1800 UC", "22.10", "pubg-3850", "3850 UC", "44.20", "pubg-8100", "8100 UC", "88.40")
	add("pubgsubscription", "Subscription", "pubgsub-prime", "Prime (1 month)", "0.95", "pubgsub-primeplus", "Prime Plus (1 month)", "9.40")
	add("pubgucspecial", "UC offers", "pubgspecial-firstpurchase", "First purchase bonus pack", "0.95", "pubgspecial-weekly", "Weekly deal pack", "1.90")
	add("pubgcncn", "UC (CN)", "pubgcn-60", "60 UC (CN)", "0.92", "pubgcn-300", "300 UC (CN)", "4.50", "pubgcn-680", "680 UC (CN)", "9.80")
	for _, region := range []string{"ffmena", "ffcis", "ffbd", "fflatam"} {
		add(region, "Diamonds", region+"-100", "100 Diamonds", "0.95", region+"-310", "310 Diamonds", "2.85",
			region+"-520", "520 Diamonds", "4.70", region+"-1060", "1060 Diamonds", "9.30")
	}
	add("valorant", "VP", "valorant-475", "475 VP", "4.60", "valorant-1000", "1000 VP", "9.20", "valorant-2050", "2050 VP", "18.40")
	add("wutheringwaves", "Lunite", "ww-60", "60 Lunite", "0.95", "ww-300", "300+30 Lunite", "4.60", "ww-monthly", "Lunite Subscription", "4.60")
	add("identityv", "Echoes", "idv-60", "60 Echoes", "0.95", "idv-185", "185 Echoes", "2.85", "idv-workshop", "Fashion Workshop pass", "9.40")
	add("oncehuman", "Crystgin", "oh-60", "60 Crystgin", "0.95", "oh-300", "300+30 Crystgin", "4.70", "oh-980", "980+110 Crystgin", "14.20")
	add("mobilelegends", "Diamonds", "mlbb-86", "86 Diamonds", "1.45", "mlbb-172", "172 Diamonds", "2.85",
		"mlbb-257", "257 Diamonds", "4.25", "mlbb-weekly", "Weekly Diamond Pass", "1.40")
	add("gamekey", "Keys", "gamekey-steam-random", "Steam random key", "1.20")
	add("gamekeypubg", "UC codes", "gamekeypubg-60", "PUBG 60 UC code", "0.90", "gamekeypubg-325", "PUBG 325 UC code", "4.50")
	add("giftcard", "Gift cards", "giftcard-steam-10", "Steam Wallet 10 USD", "10.20", "giftcard-googleplay-25", "Google Play 25 USD", "25.40")
	return packs
}

// randomToken returns a random admin token.
func randomToken() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
