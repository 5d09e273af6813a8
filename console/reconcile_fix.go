package console

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/topupd/topupd"
)

// Fixing a reconciliation's mismatches (back-office.md, section 2): each
// open mismatch has a form, an action and a note; sending it previews the
// fix (service.ResolveMismatch with preview) and asks, in words, whether
// to make it; confirming makes it, once. A refusal is said beside the
// form, which keeps what was typed.

// fixActions are the actions in the order the forms list them, with
// their labels.
var fixActions = []struct{ value, label string }{
	{topupd.FixAccept, "Accept: record the note only"},
	{topupd.FixCompleteOrder, "Complete our order at their charge"},
	{topupd.FixRefundReseller, "Refund the reseller"},
	{topupd.FixRecordCost, "Record their charge as our cost"},
}

// fixLabel is an action in words: its label, or the action itself when
// it is none of the four.
func fixLabel(action string) string {
	for _, a := range fixActions {
		if a.value == action {
			return a.label
		}
	}
	return action
}

// fixChoice is one option of a mismatch's form.
type fixChoice struct {
	Value, Label string
	Selected     bool
}

// fixChoices are the actions a mismatch's form offers: accept always, and
// each other the domain's rule (topupd.FixApplies) allows for the
// mismatch as the reconciliation found it; selected is the one chosen
// before (none: the first). The service checks again on the order as it
// is now.
func fixChoices(m *topupd.Mismatch, supplier, selected string) []fixChoice {
	var o *topupd.FixTarget
	if m.OrderID != "" {
		o = &topupd.FixTarget{ID: m.OrderID, Status: m.OurStatus, Provider: topupd.ProviderUpstream, Upstream: supplier}
	}
	var out []fixChoice
	for _, a := range fixActions {
		if topupd.FixApplies(a.value, m, supplier, o) == nil {
			out = append(out, fixChoice{Value: a.value, Label: a.label, Selected: a.value == selected})
		}
	}
	return out
}

// ActionText is a resolved mismatch's action in words.
func (m mismatchRow) ActionText() string {
	if m.Resolution == nil {
		return ""
	}
	return fixLabel(m.Resolution.Action)
}

// fixForm is a refused fix: the mismatch (MID, 0 for none), what was
// typed, and the refusal in words.
type fixForm struct {
	MID                   int
	Action, Note, Refusal string
}

// resolveMismatch fixes a reconciliation's mismatch: unconfirmed, it
// previews the fix and asks whether to make it, saying its effect;
// confirmed, it makes it and goes back to the reconciliation's page.
func (c *Console) resolveMismatch(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	mid, err := strconv.Atoi(r.PathValue("mid"))
	if err != nil || mid < 1 {
		return pageError{http.StatusNotFound, "There is no such mismatch."}
	}
	rec, err := c.Service.Reconciliation(r.Context(), s.actor, id)
	if err != nil {
		return err
	}
	action, note := r.PostFormValue("action"), strings.TrimSpace(r.PostFormValue("note"))
	f := fixForm{MID: mid, Action: action, Note: r.PostFormValue("note")}
	preview := r.PostFormValue("confirmed") != "yes"
	m, eff, err := c.Service.ResolveMismatch(r.Context(), s.actor, id, mid, action, note, preview)
	if err != nil {
		return c.fixRefused(w, r, s, rec, f, err)
	}
	if preview {
		c.confirmed(w, r, s, fixQuestion(rec.Supplier, m, action, note, eff), reconBack(id)+"#mismatch-"+strconv.Itoa(mid))
		return nil
	}
	return c.done(w, r, reconBack(id), fixDone(m, eff))
}

// fixQuestion asks whether to make a previewed fix, saying its effect.
func fixQuestion(supplier string, m topupd.Mismatch, action, note string, eff topupd.FixEffect) string {
	what := fmt.Sprintf("mismatch %d (%s, %s)", m.ID, mismatchRow{Mismatch: m}.KindText(), m.Reference)
	var q string
	switch action {
	case topupd.FixAccept:
		q = "Accept " + what + "? This records the note only: no order, balance or cost changes."
	case topupd.FixCompleteOrder:
		q = fmt.Sprintf("Resolve %s by completing order %s as %s's completion, with their codes, at a cost of %s? The order becomes %s.",
			what, m.OrderID, supplier, usdOf(eff.Cost), eff.OrderStatus)
	case topupd.FixRefundReseller:
		q = fmt.Sprintf("Resolve %s by refunding %s to the reseller of order %s? Their balance becomes %s; the order stays %s.",
			what, usdOf(eff.Refund), m.OrderID, usdOf(eff.BalanceAfter), eff.OrderStatus)
	case topupd.FixRecordCost:
		q = fmt.Sprintf("Resolve %s by recording %s as the cost of order %s, instead of %s? Reports follow.",
			what, usdOf(eff.Cost), m.OrderID, usdOf(m.Ours))
	default:
		q = "Resolve " + what + " by " + action + "?"
	}
	return q + " Your note: “" + note + "”. A resolved mismatch stays resolved."
}

// fixDone says what a fix did, for the page it goes back to.
func fixDone(m topupd.Mismatch, eff topupd.FixEffect) string {
	msg := fmt.Sprintf("Mismatch %d (%s) is resolved", m.ID, m.Reference)
	action := ""
	if m.Resolution != nil {
		action = m.Resolution.Action
	}
	switch action {
	case topupd.FixAccept:
		return msg + ": accepted, with your note."
	case topupd.FixCompleteOrder:
		return fmt.Sprintf("%s: order %s is %s, at a cost of %s.", msg, m.OrderID, eff.OrderStatus, usdOf(eff.Cost))
	case topupd.FixRefundReseller:
		return fmt.Sprintf("%s: %s refunded to the reseller of order %s (ledger entry %d); their balance is %s.",
			msg, usdOf(eff.Refund), m.OrderID, m.Resolution.EntryID, usdOf(eff.BalanceAfter))
	case topupd.FixRecordCost:
		return fmt.Sprintf("%s: order %s's cost is %s.", msg, m.OrderID, usdOf(eff.Cost))
	}
	return msg + "."
}

// usdOf is an amount that may be absent in words: "—" then.
func usdOf(m *topupd.Money) string {
	if m == nil {
		return "—"
	}
	return usdText(*m)
}

// fixRefused draws the reconciliation's page again after the service
// refused a fix, with the refusal in words beside the mismatch's form
// (and what was typed in it), at the refusal's status. Errors it cannot
// say there (an unknown mismatch, a role that may not) are returned for
// the page that says what went wrong.
func (c *Console) fixRefused(w http.ResponseWriter, r *http.Request, s *session, rec topupd.Reconciliation, f fixForm, err error) error {
	var de *topupd.Error
	if !errors.As(err, &de) {
		return err
	}
	order, by := "its order", ""
	for _, m := range rec.Mismatches {
		if m.ID != f.MID {
			continue
		}
		if m.OrderID != "" {
			order = "order " + m.OrderID
		}
		if m.Resolution != nil {
			by = fmt.Sprintf(" by %s (%s)", m.Resolution.Operator, fixLabel(m.Resolution.Action))
		}
	}
	detail := strings.TrimSuffix(strings.TrimPrefix(de.Detail, f.Action+": "), ".")
	detail = strings.Replace(detail, fmt.Sprintf("mismatch %d ", f.MID), "it ", 1) // its own name, said already
	switch de.Code {
	case topupd.EInvalidBody:
		f.Refusal = "Choose one of the fixes the list offers. Nothing was changed."
		if strings.HasPrefix(de.Detail, "note") {
			f.Refusal = fmt.Sprintf("Write a note of 1 to %d characters: what you found and why this fix. Nothing was changed.", topupd.MaxFixNote)
		}
	case topupd.EActionNotApplicable:
		f.Refusal = fmt.Sprintf("“%s” does not fit mismatch %d: %s. Nothing was changed.", fixLabel(f.Action), f.MID, detail)
	case topupd.EMismatchResolved:
		f.Refusal = fmt.Sprintf("Mismatch %d was resolved already%s, and a mismatch is resolved once: nothing was changed.", f.MID, by)
	case topupd.EReconciliationClosed:
		f.Refusal = fmt.Sprintf("Reconciliation %s is closed, and a closed reconciliation is final: nothing was changed.", rec.ID)
	case topupd.EUpstreamUnreachable:
		f.Refusal = fmt.Sprintf("%s could not be reached to read %s (%s). Nothing was changed; try again later.", rec.Supplier, order, detail)
	case topupd.EUpstreamRefused:
		f.Refusal = fmt.Sprintf("%s would not tell us about %s (%s). Nothing was changed.", rec.Supplier, order, detail)
	default:
		return err
	}
	return c.reconPage(w, r, s, c.StatusOf(err), fmt.Sprintf("Mismatch %d was not resolved: why is said beside it.", f.MID), f)
}
