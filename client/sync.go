package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Catalog sync (GET /services, /products and /catalog with updatedSince
// and If-None-Match): a shop keeps its copy of the catalog current by
// asking only for what changed since its last sync, and by sending back
// the ETag of what it holds, which the server answers with 304 and no body
// while nothing it would show has changed.

// CatalogQuery asks for the catalog, or for what changed in it.
type CatalogQuery struct {
	// UpdatedSince, when not zero, asks only for the packs that changed for
	// this account at or after it: their price for it, their status or
	// their line's, or whether they are in stock. A pack taken off sale is
	// then a row with only its ID and Status "disabled" (Product.Gone).
	// Send the ServerTime of the previous sync.
	UpdatedSince time.Time
	// ETag, when set, is sent as If-None-Match: the ETag of the previous
	// answer to the same query. When nothing the answer would show has
	// changed, the server answers 304 and the sync is NotModified.
	ETag string
}

// CatalogSync is the answer of a catalog sync.
type CatalogSync struct {
	// NotModified says the server answered 304: the answer named by the
	// query's ETag is current, and Products and ServerTime are empty.
	NotModified bool
	// Products are the rows: every pack on sale, or with UpdatedSince the
	// packs that changed, those taken off sale included.
	Products []Product
	// ServerTime is the server's time to send as the next UpdatedSince:
	// every change it did not show is at or after it.
	ServerTime time.Time
	// ETag names this answer (the query's, when NotModified): send it
	// with the same query next time.
	ETag string
}

// ServicesSync is the answer of SyncServices.
type ServicesSync struct {
	// NotModified says the server answered 304: the services named by the
	// ETag sent are current, and Services is empty.
	NotModified bool
	// Services are the orderable lines.
	Services []Service
	// ETag names this answer: send it next time.
	ETag string
}

// Gone reports whether a row of a sync says the pack is no longer on sale
// for this account: it was disabled, or its line was.
func (p *Product) Gone() bool { return p.Status == "disabled" }

// SyncProducts reads the catalog as q asks (GET /products): whole, or
// what changed since q.UpdatedSince, or nothing when q.ETag is current.
func (c *Client) SyncProducts(ctx context.Context, q CatalogQuery) (*CatalogSync, error) {
	return c.syncProducts(ctx, "/products", q)
}

// SyncCatalog is SyncProducts through its alias path (GET /catalog).
func (c *Client) SyncCatalog(ctx context.Context, q CatalogQuery) (*CatalogSync, error) {
	return c.syncProducts(ctx, "/catalog", q)
}

func (c *Client) syncProducts(ctx context.Context, path string, q CatalogQuery) (*CatalogSync, error) {
	var query url.Values
	if !q.UpdatedSince.IsZero() {
		query = url.Values{"updatedSince": {q.UpdatedSince.UTC().Format(time.RFC3339Nano)}}
	}
	var out struct {
		Products   []Product `json:"products"`
		ServerTime time.Time `json:"serverTime"`
	}
	var meta answerMeta
	if err := c.do(ctx, request{method: http.MethodGet, path: path, query: query, ifNoneMatch: q.ETag, meta: &meta}, &out); err != nil {
		return nil, err
	}
	s := &CatalogSync{ETag: meta.header.Get("ETag")}
	if meta.status == http.StatusNotModified {
		s.NotModified = true
		if s.ETag == "" {
			s.ETag = q.ETag
		}
		return s, nil
	}
	s.Products, s.ServerTime = out.Products, out.ServerTime
	return s, nil
}

// SyncServices reads the orderable lines (GET /services), or nothing when
// etag, the ETag of an earlier answer, is still current.
func (c *Client) SyncServices(ctx context.Context, etag string) (*ServicesSync, error) {
	var out struct {
		Services []Service `json:"services"`
	}
	var meta answerMeta
	if err := c.do(ctx, request{method: http.MethodGet, path: "/services", ifNoneMatch: etag, meta: &meta}, &out); err != nil {
		return nil, err
	}
	s := &ServicesSync{ETag: meta.header.Get("ETag")}
	if meta.status == http.StatusNotModified {
		s.NotModified = true
		if s.ETag == "" {
			s.ETag = etag
		}
		return s, nil
	}
	s.Services = out.Services
	return s, nil
}
