package console

import (
	"net/http"
)

// dashboard is the console's front page.
func (c *Console) dashboard(w http.ResponseWriter, r *http.Request, s *session) error {
	c.render(w, r, s, http.StatusOK, "dashboard", "Dashboard", nil)
	return nil
}
