package httpapi

import (
	"time"

	"github.com/topupd/topupd"
)

// orderView is an order in the reseller shape (topupd.OrderView, which
// webhooks send as well).
type orderView = topupd.OrderView

// viewOrder renders an order as of now.
func viewOrder(o *topupd.Order, now time.Time) orderView { return topupd.ViewOrder(o, now) }

// orderAnswer is a whole answer carrying one order.
type orderAnswer struct {
	Success bool `json:"success"`
	orderView
}

// serviceView is a service line in the reseller shape.
type serviceView struct {
	ProductName     string          `json:"productName"`
	Slug            string          `json:"slug"`
	GameName        string          `json:"gameName"`
	Game            string          `json:"game"`
	Kind            string          `json:"kind"`
	Required        []requiredView  `json:"required"`
	Status          string          `json:"status"`
	ServerIDOptions []topupd.Option `json:"serverIdOptions,omitempty"`
	RegionOptions   []topupd.Option `json:"regionOptions,omitempty"`
}

// requiredView is one required field as resellers see it.
type requiredView struct {
	Field   string `json:"field"`
	Label   string `json:"label"`
	Pattern string `json:"pattern,omitempty"`
}

func viewService(l *topupd.Line) serviceView {
	req := make([]requiredView, 0, len(l.Required))
	for _, r := range l.Required {
		req = append(req, requiredView(r))
	}
	return serviceView{ProductName: l.ProductName, Slug: l.Slug, GameName: l.GameName, Game: l.Game, Kind: string(l.Kind),
		Required: req, Status: l.Status, ServerIDOptions: l.ServerIDOptions, RegionOptions: l.RegionOptions}
}

// productView is a catalog row.
type productView struct {
	ID          string       `json:"id"`
	Slug        string       `json:"slug"`
	GameName    string       `json:"gameName"`
	ServiceName string       `json:"serviceName"`
	Category    string       `json:"category"`
	Price       topupd.Money `json:"price"`
	Status      string       `json:"status"`
	Game        string       `json:"game"`
	Kind        string       `json:"kind"`
	Quantity    *int         `json:"quantity,omitempty"`
	InStock     *bool        `json:"inStock,omitempty"`
	QuantityMin *int         `json:"quantityMin,omitempty"`
	QuantityMax *int         `json:"quantityMax,omitempty"`
	// NextPriceUsd and NextPriceAt are what the caller will pay from the
	// pack's scheduled change on, and when, while that differs from Price.
	NextPriceUsd *topupd.Money `json:"nextPriceUsd,omitempty"`
	NextPriceAt  *string       `json:"nextPriceAt,omitempty"`
}

// viewProduct is a pack's catalog row: p at the caller's price, and next,
// when set, the caller's price from the pack's scheduled change on.
func viewProduct(p *topupd.Pack, l *topupd.Line, stock map[string]int, next *topupd.NextPrice) productView {
	v := productView{ID: p.PID, Slug: p.Slug, GameName: l.GameName, ServiceName: p.Name, Category: p.Category,
		Price: p.Price, Status: p.Status, Game: l.Game, Kind: string(l.Kind)}
	if next != nil {
		at := next.At.UTC().Format(serverTimeLayout)
		v.NextPriceUsd, v.NextPriceAt = &next.Price, &at
	}
	if p.TakesQuantity(l) {
		n := stock[p.PID]
		in, lo, hi := n > 0, 1, min(n, topupd.MaxQuantity)
		v.Quantity, v.InStock, v.QuantityMin, v.QuantityMax = &n, &in, &lo, &hi
	}
	return v
}
