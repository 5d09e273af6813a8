package console

import (
	"net/http"
)

// banners marks a signed-in page's view with the settings that stop new
// orders (orders off, maintenance), so that the layout shows a banner on
// every page while one is on. A settings read that fails leaves the page
// without its banner, logged, rather than failing the page.
func (c *Console) banners(r *http.Request, v *view) {
	if v.S == nil {
		return
	}
	st, err := c.Service.Settings(r.Context(), v.S.actor)
	if err != nil {
		c.Logger.WarnContext(r.Context(), "console: reading the settings for the banner", "err", err)
		return
	}
	v.OrdersOff, v.Maintenance = st.OrdersDisabled, st.Maintenance
}

// settingSwitch is one way of one switch of the settings page.
type settingSwitch struct {
	name string
	on   bool
}

// settingWords are what the confirmation asks and the flash says for each
// switch, in plain words: "Stop taking orders", never "turn on orders off".
var settingWords = map[settingSwitch]struct{ question, done string }{
	{"ordersDisabled", true}:  {"Stop taking orders? Resellers' new orders will be refused (503 API_ORDER_DISABLED); orders already placed go on, and reads work.", "Orders are stopped: new orders are refused until you take orders again."},
	{"ordersDisabled", false}: {"Take orders again? Resellers can place new orders at once.", "Orders are taken again."},
	{"maintenance", true}:     {"Turn maintenance on? Resellers' new orders will be refused (503 MAINTENANCE); reads go on.", "Maintenance is on: new orders are refused until you turn it off."},
	{"maintenance", false}:    {"Turn maintenance off? Resellers can place new orders at once.", "Maintenance is off."},
}
