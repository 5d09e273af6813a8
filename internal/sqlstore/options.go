package sqlstore

import (
	"database/sql/driver"
	"time"
)

// Option shapes how the SQLite and PostgreSQL stores open.
type Option func(*Options)

// Options are what the Options given to a store's Open set.
type Options struct {
	// WrapConnector, when set, wraps the connector of every pool the store
	// opens (tests count statements with it; see internal/testing/dbcount).
	WrapConnector func(driver.Connector) driver.Connector
	// Now is the clock of what the store stamps by itself (an action log
	// entry, a submit's history line, a chat's link); nil is time.Now.
	Now func() time.Time
}

// WithClock makes now the clock of what the store stamps by itself.
func WithClock(now func() time.Time) Option {
	return func(o *Options) { o.Now = now }
}

// WithConnector wraps the connector of every pool the store opens.
func WithConnector(wrap func(driver.Connector) driver.Connector) Option {
	return func(o *Options) { o.WrapConnector = wrap }
}

// ApplyOptions returns the Options opts set.
func ApplyOptions(opts []Option) Options {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	return o
}

// Wrap is c wrapped by WrapConnector, or c when it is unset.
func (o Options) Wrap(c driver.Connector) driver.Connector {
	if o.WrapConnector == nil {
		return c
	}
	return o.WrapConnector(c)
}
