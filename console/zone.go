package console

import (
	"html/template"
	"net/http"
	"time"
)

// zoneCookie remembers the time zone the operator reads times in.
const zoneCookie = "topupd_zone"

// zones are the time zones an operator may pick; UTC is the default.
var zones = []string{"UTC", "Europe/London", "Europe/Berlin", "Europe/Moscow", "Asia/Dubai", "Asia/Karachi",
	"Asia/Kolkata", "Asia/Dhaka", "Asia/Jakarta", "Asia/Manila", "Asia/Shanghai", "Asia/Tokyo",
	"America/New_York", "America/Chicago", "America/Los_Angeles", "America/Sao_Paulo"}

// zoneOf is the time zone r's cookie picked, or UTC.
func zoneOf(r *http.Request) *time.Location {
	if ck, err := r.Cookie(zoneCookie); err == nil {
		for _, z := range zones {
			if z == ck.Value {
				if loc, err := time.LoadLocation(z); err == nil {
					return loc
				}
			}
		}
	}
	return time.UTC
}

// zoneFuncs are the template funcs that write times, in loc, each labelled
// with its zone.
func zoneFuncs(loc *time.Location) template.FuncMap {
	return template.FuncMap{
		"when": func(t time.Time) string {
			if t.IsZero() {
				return "—"
			}
			return t.In(loc).Format("2006-01-02 15:04:05 MST")
		},
		"whenp": func(t *time.Time) string {
			if t == nil || t.IsZero() {
				return "—"
			}
			return t.In(loc).Format("2006-01-02 15:04 MST")
		},
		"zones": func() []string { return zones },
		"zone":  func() string { return loc.String() },
	}
}

// setZone remembers the zone the operator picked (a year) and goes back
// to the page the picker was on.
func (c *Console) setZone(w http.ResponseWriter, r *http.Request, s *session) error {
	z := r.PostFormValue("zone")
	ok := false
	for _, v := range zones {
		ok = ok || v == z
	}
	if !ok {
		return pageError{http.StatusBadRequest, "Time zone: pick one of the list."}
	}
	c.setCookie(w, zoneCookie, z, 365*24*3600)
	back := r.PostFormValue("back")
	if len(back) < len("/console/") || back[:len("/console/")] != "/console/" || (len(back) > 1 && back[1] == '/') {
		back = "/console/"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}
