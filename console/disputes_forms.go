package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/topupd/topupd"
)

// The Disputes page's forms: set a dispute's supplier claim (a reference
// and a state) and clear it (service.SetSupplierClaim). A refusal is said
// beside the dispute's form, which keeps what was typed.

// claimStates are a supplier claim's states, as the form offers them.
var claimStates = []string{"open", "won", "lost"}

// disputesBack is the queue, at a dispute's row.
func disputesBack(id string) string { return disputesPath + "#dispute-" + url.PathEscape(id) }

// markDispute names the dispute whose form was sent, so that a refused
// form is drawn again beside that dispute's row.
func markDispute(r *http.Request, id string) {
	if r.PostForm != nil {
		r.PostForm.Set("dispute", id)
	}
}

// setClaim sets a dispute's supplier claim.
func (c *Console) setClaim(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	err := c.runSetClaim(w, r, s, id)
	markDispute(r, id)
	return c.formFailed(w, r, s, err, "disputes", c.disputesAgain(r, s))
}

// runSetClaim is setClaim's work; refusals are fieldErrors.
func (c *Console) runSetClaim(w http.ResponseWriter, r *http.Request, s *session, id string) error {
	ref := strings.TrimSpace(r.PostFormValue("reference"))
	state := r.PostFormValue("state")
	switch {
	case ref == "":
		return fieldError{"reference", "Enter the claim's reference, as the supplier gave it."}
	case utf8.RuneCountInString(ref) > topupd.MaxClaimReference:
		return fieldError{"reference", fmt.Sprintf("A claim's reference is at most %d characters.", topupd.MaxClaimReference)}
	case !slices.Contains(claimStates, state):
		return fieldError{"state", "Choose the claim's state: open, won or lost."}
	}
	if _, err := c.Service.SetSupplierClaim(r.Context(), s.actor, id, &topupd.SupplierClaim{Reference: ref, State: state}); err != nil {
		return claimRefusal(id, err)
	}
	return c.done(w, r, disputesBack(id), fmt.Sprintf("Dispute %s: the supplier claim %s is %s.", id, ref, state))
}

// clearClaim clears a dispute's supplier claim.
func (c *Console) clearClaim(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	if _, err := c.Service.SetSupplierClaim(r.Context(), s.actor, id, nil); err != nil {
		markDispute(r, id)
		return c.formFailed(w, r, s, claimRefusal(id, err), "disputes", c.disputesAgain(r, s))
	}
	return c.done(w, r, disputesBack(id), "Dispute "+id+": the supplier claim is cleared.")
}

// claimRefusal says in plain words why a claim was refused: an unknown
// dispute is a page that says so; a bad reference or state is said beside
// its field. Errors it cannot say are returned as they are.
func claimRefusal(id string, err error) error {
	var de *topupd.Error
	if !errors.As(err, &de) {
		return err
	}
	switch de.Code {
	case topupd.ENotFound:
		return pageError{http.StatusNotFound, "There is no dispute " + id + "."}
	case topupd.EInvalidBody:
		if strings.HasPrefix(de.Detail, "supplierClaim.state") {
			return fieldError{"state", "Choose the claim's state: open, won or lost."}
		}
		return fieldError{"reference", fmt.Sprintf("A claim's reference is 1 to %d characters of plain text.", topupd.MaxClaimReference)}
	}
	return err
}
