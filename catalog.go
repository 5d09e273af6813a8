package topupd

import (
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
)

// LineKind says how a service line is fulfilled.
type LineKind string

// The kinds of service line.
const (
	KindTopup        LineKind = "topup"
	KindSubscription LineKind = "subscription"
	KindGamekey      LineKind = "gamekey"
	KindGiftcard     LineKind = "giftcard"
)

// Status values of lines and packs.
const (
	StatusActive   = "active"
	StatusDisabled = "disabled"
)

// Provider names a pack may carry.
const (
	ProviderSim      = "sim"
	ProviderManual   = "manual"
	ProviderUpstream = "upstream"
	// ProviderStock fills a pack's orders from its own codes: every pack
	// that draws from stock, unless an upstream fulfils it.
	ProviderStock = "stock"
)

// Order body fields a line may require.
const (
	FieldUserID   = "userId"
	FieldZoneID   = "zoneId"
	FieldServerID = "serverId"
	FieldRegion   = "region"
	FieldMoreID   = "moreId"
	// FieldQuantity is the order's quantity: key and gift-card lines may
	// declare it required (a missing quantity is then INVALID REQUEST).
	FieldQuantity = "quantity"
)

// MaxQuantity is the most keys or cards one order may ask for.
const MaxQuantity = 500

// LowStock is the count of codes below which an active pack that draws
// from stock is low on stock: the console shows it, and operators' chats
// are alerted.
const LowStock = 10

// RequiredField is one account field a line's orders must carry.
type RequiredField struct {
	Field   string `json:"field"`
	Label   string `json:"label"`
	Pattern string `json:"pattern,omitempty"`
}

// Option is one allowed value of a server or region field.
type Option struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// Line is a service line (a game or product family), the data that decides
// which fields its orders need.
type Line struct {
	Slug            string
	ProductName     string
	GameName        string
	Game            string
	Kind            LineKind
	Status          string
	Required        []RequiredField
	ServerIDOptions []Option
	RegionOptions   []Option
}

// Pack is one orderable product of a line, identified by its PID.
type Pack struct {
	PID         string
	Slug        string
	Name        string
	Category    string
	Price       Money
	Status      string
	StockBased  bool
	Provider    string
	Upstream    string
	UpstreamPID string
	// Cost is what one unit costs the business; 0 when not set.
	Cost Money
	// LowStockAt, when set, is the stock level at or below which the pack
	// is low on stock.
	LowStockAt *int
	// Suppliers, when set, are tried in order instead of the single
	// Provider/Upstream/UpstreamPID, which then mirror Suppliers[0].
	Suppliers []Supplier
	// PricePinned keeps the pack's price as set by hand: no pricing rule
	// prices it.
	PricePinned bool
}

// Supplier is one of the suppliers a pack may be fulfilled by.
type Supplier struct {
	Provider    string `json:"provider"`
	Upstream    string `json:"upstream,omitempty"`
	UpstreamPID string `json:"upstreamPid,omitempty"`
	// Cost is what one unit costs from this supplier; 0: the pack's cost.
	Cost Money `json:"costUsd,omitempty"`
}

// MaxSuppliers is the most suppliers one pack may list.
const MaxSuppliers = 8

// identRe is what slugs, PIDs and provider names may look like.
var identRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$`)

// ValidIdent reports whether s may be used as a slug or PID.
func ValidIdent(s string) bool { return identRe.MatchString(s) }

// Validate checks a line as the admin API receives it.
func (l *Line) Validate() error {
	if !ValidIdent(l.Slug) {
		return Errorf(EInvalidBody, "slug: letters, digits and ._:- only, at most 100")
	}
	if strings.TrimSpace(l.ProductName) == "" || strings.TrimSpace(l.GameName) == "" || !ValidIdent(l.Game) {
		return Errorf(EInvalidBody, "productName, gameName and game are required")
	}
	switch l.Kind {
	case KindTopup, KindSubscription, KindGamekey, KindGiftcard:
	default:
		return Errorf(EInvalidBody, "kind: one of topup, subscription, gamekey, giftcard")
	}
	if l.Status != StatusActive && l.Status != StatusDisabled {
		return Errorf(EInvalidBody, "status: active or disabled")
	}
	seen := map[string]bool{}
	for _, r := range l.Required {
		switch r.Field {
		case FieldUserID, FieldZoneID, FieldServerID, FieldRegion, FieldMoreID, FieldQuantity:
		default:
			return Errorf(EInvalidBody, "required: unknown field %q", r.Field)
		}
		if seen[r.Field] {
			return Errorf(EInvalidBody, "required: %q twice", r.Field)
		}
		seen[r.Field] = true
		if r.Pattern != "" {
			if _, err := compilePattern(r.Pattern); err != nil {
				return Errorf(EInvalidBody, "required %s: bad pattern: %v", r.Field, err)
			}
		}
	}
	for _, o := range append(append([]Option{}, l.ServerIDOptions...), l.RegionOptions...) {
		if o.Value == "" {
			return Errorf(EInvalidBody, "options: every option needs a value")
		}
	}
	return nil
}

// Stocked reports whether the line's packs always draw from stock.
func (l *Line) Stocked() bool { return l.Kind == KindGamekey || l.Kind == KindGiftcard }

// Validate checks a pack as the admin API receives it.
func (p *Pack) Validate() error {
	if !ValidIdent(p.PID) || !ValidIdent(p.Slug) {
		return Errorf(EInvalidBody, "pid and slug: letters, digits and ._:- only, at most 100")
	}
	if strings.TrimSpace(p.Name) == "" {
		return Errorf(EInvalidBody, "name is required")
	}
	if p.Price <= 0 {
		return Errorf(EInvalidBody, "priceUsd must be above 0")
	}
	if err := WholeCents("priceUsd", p.Price); err != nil {
		return err
	}
	if p.Status != StatusActive && p.Status != StatusDisabled {
		return Errorf(EInvalidBody, "status: active or disabled")
	}
	if p.Cost < 0 {
		return Errorf(EInvalidBody, "costUsd must not be below 0")
	}
	if p.LowStockAt != nil && *p.LowStockAt < 0 {
		return Errorf(EInvalidBody, "lowStockAt must not be below 0")
	}
	if len(p.Suppliers) > MaxSuppliers {
		return Errorf(EInvalidBody, "suppliers: at most %d", MaxSuppliers)
	}
	seen := map[Supplier]bool{}
	for i, s := range p.Suppliers {
		if err := s.validate(); err != nil {
			return Errorf(EInvalidBody, "suppliers[%d]: %s", i, err.Detail)
		}
		key := Supplier{Provider: s.Provider, Upstream: s.Upstream, UpstreamPID: s.UpstreamPID}
		if seen[key] {
			return Errorf(EInvalidBody, "suppliers[%d]: listed twice", i)
		}
		seen[key] = true
	}
	if len(p.Suppliers) > 0 {
		first := p.Suppliers[0]
		if p.Provider != first.Provider || p.Upstream != first.Upstream || p.UpstreamPID != first.UpstreamPID {
			return Errorf(EInvalidBody, "provider, upstream and upstreamPid must be those of suppliers[0], or left out")
		}
	}
	if err := (&Supplier{Provider: p.Provider, Upstream: p.Upstream, UpstreamPID: p.UpstreamPID}).validate(); err != nil {
		return err
	}
	return nil
}

// validate checks one supplier: a known provider, and an upstream with its PID.
func (s *Supplier) validate() *Error {
	if s.Cost < 0 {
		return Errorf(EInvalidBody, "costUsd must not be below 0")
	}
	switch s.Provider {
	case ProviderSim, ProviderManual, ProviderStock:
	case ProviderUpstream:
		if s.Upstream == "" || s.UpstreamPID == "" {
			return Errorf(EInvalidBody, "provider upstream needs upstream and upstreamPid")
		}
	default:
		return Errorf(EInvalidBody, "provider: stock, manual, upstream or sim")
	}
	return nil
}

// ResolveProvider settles who fulfils a pack of line l whose provider the
// operator may have left empty: a pack that draws from stock is stock (a
// sim named for it, from before the stock provider, is stock too while sim
// is on), any other pack is sim while sim is on and PROVIDER_REQUIRED while
// it is off. A stock provider for a pack that does not draw from stock is
// INVALID_BODY, and so is manual for one that does: its orders are filled
// from its codes.
func (p *Pack) ResolveProvider(l *Line, simOn bool) error {
	stocked := l.Stocked() || p.StockBased
	switch {
	case p.Provider == "" && stocked, p.Provider == ProviderSim && stocked && simOn && len(p.Suppliers) == 0:
		p.Provider = ProviderStock
	case p.Provider == "" && simOn:
		p.Provider = ProviderSim
	case p.Provider == "":
		return Errorf(EProviderRequired, "the sim supplier is off (--sim off): a top-up pack needs a provider: manual or upstream")
	case p.Provider == ProviderStock && !stocked:
		return Errorf(EInvalidBody, "provider stock: the pack does not draw from stock (set stockBased, or use a gamekey or giftcard line)")
	case p.Provider == ProviderManual && stocked:
		return Errorf(EInvalidBody, "provider manual: the pack draws from stock, so its orders are filled from its codes (provider stock) or by an upstream")
	}
	return nil
}

// SupplierList returns the suppliers an order of the pack may go to, in
// order: the list when set, otherwise the single provider, at the pack's cost.
func (p *Pack) SupplierList() []Supplier {
	if len(p.Suppliers) > 0 {
		return p.Suppliers
	}
	return []Supplier{{Provider: p.Provider, Upstream: p.Upstream, UpstreamPID: p.UpstreamPID}}
}

// DrawsStock reports whether orders of the pack take codes from its own
// stock: packs of key and card lines, and stock-based packs, always, unless
// an upstream server fulfils them (its codes are passed on instead).
func (p *Pack) DrawsStock(l *Line) bool {
	return (l.Stocked() || p.StockBased) && p.Provider != ProviderUpstream
}

// TakesQuantity reports whether orders of the pack may carry a quantity.
func (p *Pack) TakesQuantity(l *Line) bool { return l.Stocked() || p.StockBased }

// compilePattern compiles a required field's pattern so that it must match
// the whole value. Every order checks its line's patterns, so compiled
// patterns are kept (up to maxCachedPatterns of them: catalogs have few).
func compilePattern(p string) (*regexp.Regexp, error) {
	if re, ok := patterns.Load(p); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(`^(?:` + p + `)$`)
	if err != nil {
		return nil, err
	}
	if cachedPatterns.Add(1) <= maxCachedPatterns {
		patterns.Store(p, re)
	}
	return re, nil
}

// maxCachedPatterns bounds the cache of compiled patterns.
const maxCachedPatterns = 4096

var (
	patterns       sync.Map // pattern → *regexp.Regexp
	cachedPatterns atomic.Int64
)

// HighestCost is the pack's cost as the below-cost guard counts it: the
// highest of its own Cost and its suppliers' costs, since an order may be
// bought from any of them. 0 when none is set.
func (p *Pack) HighestCost() Money {
	c := p.Cost
	for _, s := range p.Suppliers {
		c = max(c, s.Cost)
	}
	return c
}

// CheckCost refuses a price below a pack's cost (HighestCost) as
// BELOW_COST, unless the operator allows it; a pack without a cost allows
// any price.
func CheckCost(price, cost Money, allowBelowCost bool) error {
	if cost > 0 && price < cost && !allowBelowCost {
		return Errorf(EBelowCost, "price %s is below the pack's cost %s (send allowBelowCost: true to allow it)", price.Dollars(), cost.Dollars())
	}
	return nil
}
