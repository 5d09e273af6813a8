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
	m.Handle("GET /console/assets/", http.StripPrefix("/console/assets/", http.FileServerFS(assets)))
	m.HandleFunc("GET /console/login", c.loginForm)
	m.HandleFunc("POST /console/login", c.login)
	m.HandleFunc("GET /console/setup/{token}", c.setupPage)
	m.HandleFunc("POST /console/setup/{token}", c.setup)
	m.Handle("POST /console/logout", c.signedIn(topupd.PermRead, c.logout))

	m.Handle("GET /console/{$}", c.signedIn(topupd.PermRead, c.dashboard))
	m.Handle("GET /console/", c.signedIn(topupd.PermRead, c.notFound))
}

// notFound answers a console path that is no page.
func (c *Console) notFound(w http.ResponseWriter, r *http.Request, s *session) error {
	c.fail(w, r, s, http.StatusNotFound, "There is no such page.")
	return nil
}
