package telegram

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/topupd/topupd"
)

// balance shows the account's balance.
func (b *Bot) balance(ctx context.Context, r *request, c topupd.Chat) {
	a, err := b.Service.Account(ctx, r.actor, c.AccountID)
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	b.reply(ctx, r, "Balance: "+a.Balance.Dollars()+" USD")
}

// newKey makes a key for the account and shows it, this once: a sandbox
// key when the first word is "test" (/newkey test [label]).
func (b *Bot) newKey(ctx context.Context, r *request, c topupd.Chat) {
	create, args, what := b.Service.CreateKey, r.args, ""
	if len(args) > 0 && args[0] == "test" {
		create, args, what = b.Service.CreateSandboxKey, args[1:], "sandbox "
	}
	k, err := create(ctx, r.actor, c.AccountID, strings.Join(args, " "))
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	text := newKeyText(k.Secret, k.ID)
	if k.Sandbox {
		text += "\nIt is a sandbox key: its orders are test orders on a sandbox balance, and nothing real is bought or sold."
	}
	b.reply(ctx, r, strings.Replace(text, "Your new API key", "Your new "+what+"API key", 1))
}

// rotate makes a new key in place of one of the account's, shown once;
// the old one keeps working 24 hours.
func (b *Bot) rotate(ctx context.Context, r *request, c topupd.Chat) {
	if len(r.args) != 1 {
		b.reply(ctx, r, "Send /rotate <keyId>; /keys lists the ids.")
		return
	}
	k, err := b.Service.RotateKey(ctx, r.actor, c.AccountID, r.args[0], nil)
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	b.reply(ctx, r, newKeyText(k.Secret, k.ID)+"\nThe old key "+k.OldKeyID+" keeps working until "+k.OldRevokedAt.UTC().Format("2006-01-02 15:04")+" UTC, then is revoked.")
}

// newKeyText shows a new key, this once.
func newKeyText(key, id string) string {
	return "Your new API key, shown only here and only once; keep it safe:\n" + key + "\nIts id: " + id
}

// keys lists the account's keys, never a key itself.
func (b *Bot) keys(ctx context.Context, r *request, c topupd.Chat) {
	keys, err := b.Service.Keys(ctx, r.actor, c.AccountID)
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	var lines []string
	now := b.Now()
	for _, k := range keys {
		if k.RevokedAt != nil && !k.RevokedAt.After(now) {
			continue
		}
		used := "never used"
		if k.LastUsedAt != nil {
			used = "last used " + k.LastUsedAt.UTC().Format("2006-01-02 15:04")
		}
		label := k.Label
		if label == "" {
			label = "(no label)"
		}
		line := fmt.Sprintf("%s %s: %s…, made %s, %s", k.ID, label, k.Prefix, k.CreatedAt.UTC().Format("2006-01-02"), used)
		if k.Sandbox {
			line += ", sandbox"
		}
		if k.RevokedAt != nil {
			line += ", stops working " + k.RevokedAt.UTC().Format("2006-01-02 15:04") + " UTC"
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		b.reply(ctx, r, "No keys. /newkey makes one.")
		return
	}
	b.reply(ctx, r, "Your keys:\n"+strings.Join(lines, "\n"))
}

// askRevoke asks, with buttons, before revoking one of the account's keys.
func (b *Bot) askRevoke(ctx context.Context, r *request, c topupd.Chat) {
	if len(r.args) != 1 {
		b.reply(ctx, r, "Send /revoke <keyId>; /keys lists the ids.")
		return
	}
	keys, err := b.Service.Keys(ctx, r.actor, c.AccountID)
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	now := b.Now()
	i := slices.IndexFunc(keys, func(k topupd.APIKey) bool { return k.ID == r.args[0] && (k.RevokedAt == nil || k.RevokedAt.After(now)) })
	if i < 0 {
		b.reply(ctx, r, "There is no key "+r.args[0]+" on your account. /keys lists them.")
		return
	}
	token := b.confirms.add(pending{chatID: r.chatID, kind: "revoke", args: []string{keys[i].ID}})
	b.reply(ctx, r, "Revoke key "+keys[i].ID+" ("+keys[i].Prefix+"…)? Clients using it are refused from then on.", confirmButtons("Revoke it", token))
}

// confirmButtons are a destructive command's yes and no.
func confirmButtons(yes, token string) []models.InlineKeyboardButton {
	return []models.InlineKeyboardButton{{Text: yes, CallbackData: "ok:" + token}, {Text: "Cancel", CallbackData: "no:" + token}}
}

// apiAccess turns the account's API access on or off; it cannot lift the
// operator's adminDisabled or a ban.
func (b *Bot) apiAccess(ctx context.Context, r *request, c topupd.Chat) {
	if len(r.args) != 1 || (r.args[0] != "on" && r.args[0] != "off") {
		b.reply(ctx, r, "Send /api on or /api off.")
		return
	}
	on := r.args[0] == "on"
	if on {
		a, err := b.Service.Account(ctx, r.actor, c.AccountID)
		if err != nil {
			b.fail(ctx, r, err)
			return
		}
		if a.AdminDisabled || a.Banned {
			b.reply(ctx, r, "API access is turned off by the operator; /api on cannot lift that. Ask your operator.")
			return
		}
	}
	if _, err := b.Service.UpdateAccount(ctx, r.actor, c.AccountID, topupd.AccountPatch{APIEnabled: &on}); err != nil {
		b.fail(ctx, r, err)
		return
	}
	b.reply(ctx, r, "API access is "+r.args[0]+".")
}

// ip shows or changes the allow-list and whether one is required.
func (b *Bot) ip(ctx context.Context, r *request, c topupd.Chat) {
	a, err := b.Service.Account(ctx, r.actor, c.AccountID)
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	list := append([]string{}, a.IPAllowlist...)
	usage := "Send /ip, /ip add <IPv4 or CIDR>, /ip rm <entry>, or /ip required on|off."
	var patch topupd.AccountPatch
	var done string
	switch {
	case len(r.args) == 0:
		req := "not required"
		if a.IPAllowlistRequired {
			req = "required"
		}
		if len(list) == 0 {
			b.reply(ctx, r, "The allow-list is empty: any address may call ("+req+").")
		} else {
			b.reply(ctx, r, "The allow-list ("+req+"):\n"+strings.Join(list, "\n"))
		}
		return
	case len(r.args) == 2 && r.args[0] == "add":
		if slices.Contains(list, r.args[1]) {
			b.reply(ctx, r, r.args[1]+" is already in the allow-list.")
			return
		}
		list = append(list, r.args[1])
		patch, done = topupd.AccountPatch{IPAllowlist: &list}, "Added "+r.args[1]+" to the allow-list."
	case len(r.args) == 2 && r.args[0] == "rm":
		i := slices.Index(list, r.args[1])
		if i < 0 {
			b.reply(ctx, r, r.args[1]+" is not in the allow-list. /ip shows it.")
			return
		}
		list = slices.Delete(list, i, i+1)
		patch, done = topupd.AccountPatch{IPAllowlist: &list}, "Removed "+r.args[1]+" from the allow-list."
	case len(r.args) == 2 && r.args[0] == "required" && (r.args[1] == "on" || r.args[1] == "off"):
		required := r.args[1] == "on"
		patch, done = topupd.AccountPatch{IPAllowlistRequired: &required}, "An allow-list is now "+map[string]string{"on": "required.", "off": "not required."}[r.args[1]]
	default:
		b.reply(ctx, r, usage)
		return
	}
	if _, err := b.Service.UpdateAccount(ctx, r.actor, c.AccountID, patch); err != nil {
		b.fail(ctx, r, err)
		return
	}
	b.reply(ctx, r, done)
}

// balanceAlert sets or clears the chat's balance alert. Set while the
// balance is below it already, it waits for the next crossing.
func (b *Bot) balanceAlert(ctx context.Context, r *request, _ topupd.Chat) {
	if len(r.args) != 2 || r.args[0] != "balance" {
		b.reply(ctx, r, "Send /alert balance <usd>, or /alert balance off.")
		return
	}
	if r.args[1] == "off" {
		if _, err := b.Service.SetBalanceAlert(ctx, r.actor, r.chatID, nil); err != nil {
			b.fail(ctx, r, err)
			return
		}
		b.reply(ctx, r, "The balance alert is off.")
		return
	}
	below, err := topupd.ParseMoney(r.args[1])
	if err != nil || below <= 0 {
		b.reply(ctx, r, "The amount must be a number of USD above 0, such as 50 or 12.50.")
		return
	}
	bal, err := b.Service.SetBalanceAlert(ctx, r.actor, r.chatID, &below)
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	low := bal < below
	text := "I will tell this chat when the balance falls below " + below.Dollars() + " USD."
	if low {
		text += " It is " + bal.Dollars() + " USD now, below that already: the alert comes when it next falls below after rising above."
	}
	b.reply(ctx, r, text)
}
