package console

import (
	"net/http"

	"github.com/topupd/topupd"
)

// lockoutsData is the owner's view of sign-in lockouts.
type lockoutsData struct {
	Locks       []topupd.LoginLock
	MaxFailures int
}

// lockouts lists the names locked out of signing in, and those with
// failures counted towards a lock, each with an unlock button.
func (c *Console) lockouts(w http.ResponseWriter, r *http.Request, s *session) error {
	locks, err := c.Service.LoginLocks(r.Context(), s.actor)
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "lockouts", "Sign-in lockouts", lockoutsData{Locks: locks, MaxFailures: topupd.MaxLoginFailures})
	return nil
}

// unlock lifts a name's lock and forgets its failures; the action log
// records it as operator.unlock.
func (c *Console) unlock(w http.ResponseWriter, r *http.Request, s *session) error {
	name := r.PostFormValue("name")
	if err := c.Service.UnlockLogin(r.Context(), s.actor, name); err != nil {
		if topupd.CodeOf(err) == topupd.ENotFound {
			return c.done(w, r, "/console/operators/lockouts", name+" was not locked (any more).")
		}
		return err
	}
	return c.done(w, r, "/console/operators/lockouts", name+" may sign in again.")
}
