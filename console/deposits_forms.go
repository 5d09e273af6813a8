package console

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/topupd/topupd"
)

// The Deposits page's forms (back-office.md, section 3): confirm a ticket
// (the bank reference and, when it differs, what arrived) and reject one
// (a reason), each after a question that says what it does; import a
// bank statement. A refusal is said beside the ticket's form, which keeps
// what was typed; one about the ticket as a whole (it is final now) above
// the page. Nothing is changed then.

// depositsBack is the queue, at a ticket's row.
func depositsBack(id string) string { return depositsPath + "#deposit-" + id }

// markDeposit names the ticket whose form was sent, so that a refused
// form is drawn again beside that ticket's row.
func markDeposit(r *http.Request, id string) {
	if r.PostForm != nil {
		r.PostForm.Set("deposit", id)
	}
}

// confirmDeposit confirms a ticket (service.ConfirmDeposit) once the
// operator answers the question saying what it does: credit now, or give
// the first of two confirmations.
func (c *Console) confirmDeposit(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	err := c.runConfirm(w, r, s, id)
	markDeposit(r, id)
	return c.formFailed(w, r, s, err, "deposits", c.depositsAgain(r, s))
}

// runConfirm is confirmDeposit's work; refusals are fieldErrors.
func (c *Console) runConfirm(w http.ResponseWriter, r *http.Request, s *session, id string) error {
	d, err := c.depositFor(r, s, id)
	if err != nil {
		return err
	}
	bankRef := strings.TrimSpace(r.PostFormValue("bankRef"))
	switch {
	case bankRef == "":
		return fieldError{"bankRef", "Enter the bank's reference of the transfer, as the bank statement shows it."}
	case utf8.RuneCountInString(bankRef) > topupd.MaxBankRef:
		return fieldError{"bankRef", fmt.Sprintf("A bank reference is at most %d characters.", topupd.MaxBankRef)}
	}
	var received *topupd.Money
	if v := strings.TrimSpace(r.PostFormValue("received")); v != "" {
		m, problem := parseAmount(v, centPlaces)
		switch {
		case problem != "":
			return fieldError{"received", problem}
		case m <= 0:
			return fieldError{"received", "What arrived is more than zero. Leave it empty when the amount to transfer, " + usdText(d.Amount) + ", arrived."}
		case m > topupd.MaxDeposit:
			return fieldError{"received", "What arrived is at most " + usdText(topupd.MaxDeposit) + ": a larger transfer is credited from the account's page."}
		}
		received = &m
	}
	st, err := c.Service.Settings(r.Context(), s.actor)
	if err != nil {
		return err
	}
	now := c.Now()
	if d.Status == topupd.DepositPending && !d.ExpiresAt.After(now) {
		return c.depositRefusal(r, s, d, bankRef, topupd.Fail(topupd.EDepositFinal))
	}
	conf := topupd.DepositConfirmation{Operator: s.op.Name, At: now, BankRef: bankRef, Received: received}
	step, err := topupd.ConfirmDeposit(d.Status, d.Amount, d.First, conf, st.DepositSecondApprovalAbove)
	if err != nil {
		return c.depositRefusal(r, s, d, bankRef, err) // said before asking; the service decides again
	}
	q, who, err := c.confirmQuestion(r, s, d, bankRef, received, step, st.DepositSecondApprovalAbove)
	if err != nil {
		return err
	}
	if !c.confirmed(w, r, s, q, depositsBack(id)) {
		return nil
	}
	got, err := c.Service.ConfirmDeposit(r.Context(), s.actor, id, bankRef, received)
	if err != nil {
		return c.depositRefusal(r, s, d, bankRef, err)
	}
	if got.Status == topupd.DepositAwaitingSecond {
		return c.done(w, r, depositsBack(id), fmt.Sprintf("Deposit %s awaits a second confirmation: another operator must confirm it, with bank reference %s. Nothing is credited yet.",
			id, bankRef))
	}
	return c.done(w, r, depositsPath, fmt.Sprintf("Deposit %s is confirmed: %s credited to %s.", id, usdText(depositRow{Deposit: got}.Credit()), who))
}

// confirmQuestion asks whether to confirm a ticket, saying what the
// confirmation step does: the amount credited and the balance after, or
// that it is the first of two. who is the ticket's account in words.
func (c *Console) confirmQuestion(r *http.Request, s *session, d topupd.Deposit, bankRef string, received *topupd.Money,
	step topupd.DepositStep, above topupd.Money) (q, who string, err error) {
	credit := d.Amount
	if received != nil {
		credit = *received
	} else if d.First != nil && d.First.Received != nil {
		credit = *d.First.Received
	}
	amount := usdText(credit)
	if credit != d.Amount {
		amount += " received (the amount to transfer was " + usdText(d.Amount) + ")"
	}
	who = d.AccountID
	var balance *topupd.Money
	if !d.Sandbox {
		a, err := c.Service.Account(r.Context(), s.actor, d.AccountID)
		if err != nil {
			return "", "", err
		}
		who, balance = a.Name+" ("+d.AccountID+")", &a.Balance
	}
	if step.Status == topupd.DepositAwaitingSecond {
		return fmt.Sprintf("Confirm deposit %s of %s for %s, with bank reference %s? It is above %s, so this is the first of two confirmations: nothing is credited until another operator confirms it too.",
			d.ID, who, amount, bankRef, usdText(above)), who, nil
	}
	q = fmt.Sprintf("Confirm deposit %s of %s with bank reference %s, and credit %s?", d.ID, who, bankRef, amount)
	if d.First != nil {
		q = fmt.Sprintf("Give the second confirmation of deposit %s of %s (%s confirmed it first), with bank reference %s, and credit %s?",
			d.ID, who, d.First.Operator, bankRef, amount)
	}
	if balance != nil {
		q += " The balance goes from " + usdText(*balance) + " to " + usdText(*balance+step.Credit) + "."
	}
	return q + " A confirmed deposit is final.", who, nil
}

// rejectDeposit rejects a ticket with a reason the reseller is told
// (service.RejectDeposit), once the operator answers the question.
func (c *Console) rejectDeposit(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	err := c.runReject(w, r, s, id)
	markDeposit(r, id)
	return c.formFailed(w, r, s, err, "deposits", c.depositsAgain(r, s))
}

// runReject is rejectDeposit's work; refusals are fieldErrors.
func (c *Console) runReject(w http.ResponseWriter, r *http.Request, s *session, id string) error {
	d, err := c.depositFor(r, s, id)
	if err != nil {
		return err
	}
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	if n := utf8.RuneCountInString(reason); n == 0 || n > topupd.MaxDepositReason {
		return fieldError{"reason", fmt.Sprintf("Write a reason of 1 to %d characters: the reseller is told it.", topupd.MaxDepositReason)}
	}
	if err := topupd.RejectDeposit(d.Status, reason); err != nil {
		return c.depositRefusal(r, s, d, "", err)
	}
	q := fmt.Sprintf("Reject deposit %s of %s for %s? The reseller is told your reason: “%s”. A rejected deposit is final: money that arrives later is credited from the account's page.",
		d.ID, d.AccountID, usdText(d.Amount), reason)
	if !c.confirmed(w, r, s, q, depositsBack(id)) {
		return nil
	}
	if _, err := c.Service.RejectDeposit(r.Context(), s.actor, id, reason); err != nil {
		return c.depositRefusal(r, s, d, "", err)
	}
	return c.done(w, r, depositsPath, fmt.Sprintf("Deposit %s is rejected; the reseller is told your reason.", id))
}

// depositFor reads the ticket a form names: an unknown one is a page that
// says so.
func (c *Console) depositFor(r *http.Request, s *session, id string) (topupd.Deposit, error) {
	d, err := c.Service.Deposit(r.Context(), s.actor, id)
	if topupd.CodeOf(err) == topupd.ENotFound {
		return d, pageError{http.StatusNotFound, "There is no deposit " + id + "."}
	}
	return d, err
}

// depositRefusal says in plain words why a confirmation or rejection of
// d (as read before it) was refused: beside the field at fault, beside
// the ticket, or above the page when the ticket is final now (read again
// to say how). Errors it cannot say are returned as they are.
func (c *Console) depositRefusal(r *http.Request, s *session, d topupd.Deposit, bankRef string, err error) error {
	var de *topupd.Error
	if !errors.As(err, &de) {
		return err
	}
	const nothing = " Nothing was changed."
	switch de.Code {
	case topupd.EBankRefUsed:
		return fieldError{"bankRef", fmt.Sprintf("Bank reference “%s” confirmed another deposit already, and one transfer confirms one deposit: check the statement.%s",
			bankRef, nothing)}
	case topupd.ESecondApprovalRequired:
		return fieldError{"ticket", "You gave deposit " + d.ID + " its first confirmation: another operator must give the second." + nothing}
	case topupd.EConfirmationMismatch:
		f := d.First
		switch {
		case f == nil:
			return fieldError{"ticket", sentence(de.Detail) + nothing}
		case f.BankRef != bankRef:
			return fieldError{"bankRef", fmt.Sprintf("%s confirmed it first with bank reference “%s”: the second confirmation names the same transfer.%s",
				f.Operator, f.BankRef, nothing)}
		}
		return fieldError{"received", fmt.Sprintf("%s confirmed it first with %s received: leave this empty, or type the same amount.%s",
			f.Operator, usdText(depositRow{Deposit: d}.Credit()), nothing)}
	case topupd.EDepositFinal:
		now, rerr := c.Service.Deposit(r.Context(), s.actor, d.ID)
		if rerr != nil {
			return rerr
		}
		return fieldError{"", finalText(now, zoneOf(r)) + nothing}
	case topupd.EInvalidBody:
		field, _, _ := strings.Cut(de.Detail, ":")
		switch field {
		case "bankRef":
			return fieldError{"bankRef", fmt.Sprintf("A bank reference is 1 to %d characters.", topupd.MaxBankRef)}
		case "receivedUsd":
			return fieldError{"received", "What arrived is more than zero and at most " + usdText(topupd.MaxDeposit) + ", in dollars and cents."}
		case "reason":
			return fieldError{"reason", fmt.Sprintf("Write a reason of 1 to %d characters: the reseller is told it.", topupd.MaxDepositReason)}
		}
		return fieldError{"ticket", sentence(de.Detail) + nothing}
	}
	return err
}

// finalText says why a final ticket, or a pending one past its time,
// changes no more.
func finalText(d topupd.Deposit, loc *time.Location) string {
	at := func(t time.Time) string { return t.In(loc).Format("2006-01-02 15:04 MST") }
	switch d.Status {
	case topupd.DepositConfirmed:
		return fmt.Sprintf("Deposit %s was confirmed already, by %s: a confirmed deposit never changes.", d.ID, d.ConfirmedBy)
	case topupd.DepositRejected:
		return fmt.Sprintf("Deposit %s was rejected already, by %s: a rejected deposit never changes.", d.ID, d.RejectedBy)
	case topupd.DepositExpired, topupd.DepositPending:
		return fmt.Sprintf("Deposit %s expired at %s, and an expired deposit is confirmed no more: credit money that arrived late from the account's page.",
			d.ID, at(d.ExpiresAt))
	}
	return fmt.Sprintf("Deposit %s is %s, and changes no more.", d.ID, d.Status)
}
