package telegram

import (
	"context"
	"fmt"
	"strings"

	"github.com/topupd/topupd"
)

// Deposit tickets from a reseller's chat (back-office.md, section 3):
// /deposit <usd> opens one and answers what to transfer; /deposit alone
// lists the pending ones. The chats hear of each ticket's end from the
// event stream (notify.go).

// depositsListed is how many pending tickets /deposit lists: an account
// has at most topupd.MaxPendingDeposits, so all of them.
const depositsListed = 10

// deposit answers /deposit: a new ticket for an amount, or the pending
// tickets.
func (b *Bot) deposit(ctx context.Context, r *request, c topupd.Chat) {
	switch len(r.args) {
	case 0:
		b.pendingDeposits(ctx, r, c)
		return
	case 1:
	default:
		b.reply(ctx, r, "Send /deposit <usd> to open a deposit ticket, or /deposit alone to list the pending ones.")
		return
	}
	amount, err := topupd.ParseMoney(strings.TrimPrefix(r.args[0], "$"))
	if err != nil || topupd.CheckDepositAmount(amount) != nil {
		b.reply(ctx, r, "The amount must be a number of USD from 1 to 100000 with at most 2 decimals, such as 100 or 25.50.")
		return
	}
	d, err := b.Service.OpenAccountDeposit(ctx, r.actor, c.AccountID, amount)
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	b.reply(ctx, r, "Deposit ticket "+d.ID+" is open.\n"+transferText(&d)+
		"\nThe exact amount and the memo are how we find your transfer: a transfer of another amount, or without the memo, "+
		"waits for the operator to find it by hand. This chat hears when it is credited.")
}

// pendingDeposits lists the account's pending tickets, each with what to
// transfer.
func (b *Bot) pendingDeposits(ctx context.Context, r *request, c topupd.Chat) {
	var lines []string
	for _, status := range []string{topupd.DepositPending, topupd.DepositAwaitingSecond} {
		list, err := b.Service.AccountDeposits(ctx, r.actor, c.AccountID, status, depositsListed)
		if err != nil {
			b.fail(ctx, r, err)
			return
		}
		for i := range list {
			d := &list[i]
			if status == topupd.DepositPending {
				lines = append(lines, d.ID+": "+transferText(d))
			} else {
				received := d.Amount
				if d.Received != nil {
					received = *d.Received
				}
				lines = append(lines, d.ID+": "+received.Dollars()+" USD received, waiting for a second operator to confirm it.")
			}
		}
	}
	if len(lines) == 0 {
		b.reply(ctx, r, "No deposit ticket is pending. Send /deposit <usd> to open one.")
		return
	}
	b.reply(ctx, r, "Pending deposit tickets:\n"+strings.Join(lines, "\n"))
}

// transferText says what to transfer for a ticket, where, with which
// memo, and until when.
func transferText(d *topupd.Deposit) string {
	return fmt.Sprintf("Transfer exactly %s USD to %s, account %s (%s), with the memo %s in the transfer's reference, before %s UTC.",
		d.Amount.Dollars(), d.Bank.BankName, d.Bank.AccountNumber, d.Bank.AccountHolder, d.Memo, d.ExpiresAt.UTC().Format("2006-01-02 15:04"))
}

// describeDeposit says a deposit event in a chat's words: confirmed, with
// what was credited (and what the ticket asked, when that differs, and
// the balance when the credit's event is at hand), rejected with the
// reason, or expired. A sandbox's tickets are not told: no chat is
// linked to a sandbox.
func describeDeposit(d *topupd.DepositData, balance *topupd.Money) string {
	switch d.Type {
	case topupd.EventDepositConfirmed:
		credited := d.AmountUSD
		if d.CreditedUSD != nil {
			credited = *d.CreditedUSD
		}
		text := "Deposit " + d.DepositID + " is confirmed: " + credited.Dollars() + " USD credited"
		if credited != d.AmountUSD {
			text += " (the ticket asked for " + d.AmountUSD.Dollars() + " USD; " + credited.Dollars() + " USD arrived)"
		}
		if balance != nil {
			text += "; the balance is " + balance.Dollars() + " USD"
		}
		return text + "."
	case topupd.EventDepositRejected:
		return "Deposit " + d.DepositID + " (" + d.AmountUSD.Dollars() + " USD, memo " + d.Memo + ") was rejected: " + d.Reason
	case topupd.EventDepositExpired:
		return "Deposit " + d.DepositID + " (" + d.AmountUSD.Dollars() + " USD, memo " + d.Memo + ") expired unpaid. " +
			"If you transferred it, tell your operator; otherwise send /deposit <usd> for a new ticket."
	}
	return ""
}
