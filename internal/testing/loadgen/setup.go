package loadgen

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// NewRunID returns a short random id that makes this run's slugs, PIDs,
// trxids, credit references and codes unique on the server.
func NewRunID() string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// CheckLoopback refuses a URL whose host is not a loopback address: the
// generator only ever drives a server on this machine.
func CheckLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%s: want an http:// URL", raw)
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s: the bench only drives a server on a loopback address (127.0.0.1, ::1 or localhost)", raw)
}

// pack is one of the run's own packs.
type pack struct {
	PID   string
	Kind  OrderKind
	Price client.Money
	// stock numbering, for the codes of stocked packs
	nextCode atomic.Int64
}

// catalog is the run's own small catalog: one line of each order kind.
type catalog struct {
	runID string
	packs map[OrderKind][]*pack
	lines map[string]map[string]any // slug -> the line as created
}

func (c *catalog) stocked() []*pack {
	return append(append([]*pack{}, c.packs[KindGamekey]...), c.packs[KindGiftcard]...)
}

// setupCatalog creates the run's lines and packs through the admin API.
func setupCatalog(ctx context.Context, admin *client.Admin, runID string) (*catalog, error) {
	digits := []map[string]string{{"field": "userId", "label": "Player ID", "pattern": "[0-9]{5,20}"}}
	zone := []map[string]string{digits[0], {"field": "zoneId", "label": "Zone ID", "pattern": "[0-9]{1,8}"}}
	type lineDef struct {
		kind      OrderKind
		slug      string
		line      map[string]any
		packNames []string
		prices    []string
	}
	p := "lg-" + runID
	defs := []lineDef{
		{KindTopup, p + "-topup", map[string]any{"productName": "Loadgen gems " + runID, "gameName": "Loadgen", "game": "loadgen",
			"kind": "topup", "status": "active", "required": digits}, []string{"60 Gems", "325 Gems"}, []string{"0.89", "4.45"}},
		{KindZone, p + "-zone", map[string]any{"productName": "Loadgen zone diamonds " + runID, "gameName": "Loadgen Zones", "game": "loadgenzone",
			"kind": "topup", "status": "active", "required": zone}, []string{"86 Diamonds", "172 Diamonds"}, []string{"1.45", "2.85"}},
		{KindGamekey, p + "-key", map[string]any{"productName": "Loadgen game keys " + runID, "gameName": "Loadgen", "game": "gamekey",
			"kind": "gamekey", "status": "active", "required": []any{}}, []string{"60 UC code"}, []string{"0.90"}},
		{KindGiftcard, p + "-card", map[string]any{"productName": "Loadgen gift cards " + runID, "gameName": "Gift cards", "game": "giftcard",
			"kind": "giftcard", "status": "active", "required": []any{}}, []string{"Gift card 10 USD"}, []string{"10.20"}},
	}
	cat := &catalog{runID: runID, packs: map[OrderKind][]*pack{}, lines: map[string]map[string]any{}}
	for _, d := range defs {
		if err := admin.Do(ctx, "PUT", "/admin/services/"+d.slug, d.line, nil); err != nil {
			return nil, fmt.Errorf("creating line %s: %w", d.slug, err)
		}
		cat.lines[d.slug] = d.line
		for i, name := range d.packNames {
			price, err := client.ParseMoney(d.prices[i])
			if err != nil {
				return nil, err
			}
			pid := fmt.Sprintf("%s-%d", d.slug, i+1)
			body := map[string]any{"slug": d.slug, "name": name, "category": "Loadgen", "priceUsd": price, "status": "active"}
			if d.kind == KindTopup || d.kind == KindZone {
				body["provider"] = topupd.ProviderSim // keys and cards are stock
			}
			if err := admin.Do(ctx, "PUT", "/admin/products/"+pid, body, nil); err != nil {
				if e, ok := err.(*client.Error); ok && e.Code == string(topupd.ESimDisabled) {
					return nil, fmt.Errorf("creating pack %s: the server's sim supplier is off: bench needs a test server started with --sim on (or --demo): %w", pid, err)
				}
				return nil, fmt.Errorf("creating pack %s: %w", pid, err)
			}
			cat.packs[d.kind] = append(cat.packs[d.kind], &pack{PID: pid, Kind: d.kind, Price: price})
		}
	}
	return cat, nil
}

// addStock adds n fresh codes to a stocked pack and returns what is available.
func addStock(ctx context.Context, admin *client.Admin, runID string, p *pack, n int) (int, error) {
	available := 0
	for n > 0 {
		batch := min(n, 10_000)
		codes := make([]string, batch)
		for i := range codes {
			codes[i] = fmt.Sprintf("LG%s-%s-%07d", strings.ToUpper(runID), strings.ToUpper(string(p.Kind[:3])), p.nextCode.Add(1))
		}
		var out struct {
			Added, Duplicates, Available int
		}
		if err := admin.Do(ctx, "POST", "/admin/products/"+p.PID+"/stock", map[string]any{"codes": codes}, &out); err != nil {
			return 0, fmt.Errorf("adding stock to %s: %w", p.PID, err)
		}
		available = out.Available
		n -= batch
	}
	return available, nil
}

// account is one of the run's reseller accounts, and what its client
// knows of its orders.
type account struct {
	idx int
	id  string
	key string
	c   *client.Client

	seq       atomic.Int64 // numbers the account's trxids
	exhausted atomic.Bool  // its pacing has no slot left before the end of the run

	mu      sync.Mutex
	warm    []Action    // the first actions, before the mix takes over
	kinds   []OrderKind // the kinds of the warm-up orders
	pending []*tracked  // orders seen processing, oldest first
	recent  []*tracked  // the newest confirmed orders (a ring of recentKept)
	placed  int         // confirmed orders
}

// tracked is an order the account's client placed and got an answer for.
type tracked struct {
	id       string
	req      client.OrderRequest
	lastPoll time.Time
}

// recentKept is how many of its newest orders an account remembers for
// polls and replays.
const recentKept = 64

// openingCredit is what each account is credited with, far more than a run spends.
var openingCredit = client.USD(1_000_000)

// setupAccounts creates n accounts, each with a key and an opening credit.
func setupAccounts(ctx context.Context, admin *client.Admin, runID string, n int) ([]*account, error) {
	out := make([]*account, n)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	var mu sync.Mutex
	err := forEach(ctx, 8, idx, func(ctx context.Context, i int) error {
		var acct struct{ ID string }
		if err := admin.Do(ctx, "POST", "/admin/accounts", map[string]any{"name": fmt.Sprintf("loadgen %s #%d", runID, i)}, &acct); err != nil {
			return fmt.Errorf("creating an account: %w", err)
		}
		var key struct{ APIKey string }
		if err := admin.Do(ctx, "POST", "/admin/accounts/"+acct.ID+"/keys", nil, &key); err != nil {
			return fmt.Errorf("creating a key: %w", err)
		}
		credit := map[string]any{"amountUsd": openingCredit, "reference": fmt.Sprintf("loadgen-%s-%d", runID, i)}
		if err := admin.Do(ctx, "POST", "/admin/accounts/"+acct.ID+"/credits", credit, nil); err != nil {
			return fmt.Errorf("crediting %s: %w", acct.ID, err)
		}
		mu.Lock()
		out[i] = &account{idx: i, id: acct.ID, key: key.APIKey}
		mu.Unlock()
		return nil
	})
	return out, err
}
