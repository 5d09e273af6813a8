package telegram

import (
	"context"
	"slices"
	"strings"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// command is one command of the bot, as its table lists it: everything
// the dispatcher needs to answer /help, to refuse it in a group, and to
// keep the update's bookkeeping.
type command struct {
	// name is what the chat sends: "/balance".
	name string
	// forms are the arguments' shapes, as /help shows them ("" for none):
	// {"on", "off"} reads "/api on, /api off".
	forms []string
	// help says what it does, after the forms in /help.
	help string
	// privateOnly refuses it in a group chat, before anything is read:
	// it shows or changes keys, or spends a link code.
	privateOnly bool
	// readOnly: it changes nothing (at most it asks, with a button whose
	// press is an update of its own), so its update is recorded before it
	// runs. A command that changes something records its update in the
	// transaction of its change (the request's actor carries the update
	// id), and answers only after the change or instead of it; an
	// answer that no change recorded records the update alone first (see
	// reply), so every update is recorded before the chat hears of it.
	readOnly bool
	// run does it, through the service layer as the request's actor.
	run func(b *Bot, ctx context.Context, r *request, c topupd.Chat)
}

// usage is the command with each of its forms: "/api on, /api off".
func (c command) usage() string {
	if len(c.forms) == 0 {
		return c.name
	}
	var out []string
	for _, f := range c.forms {
		out = append(out, strings.TrimSpace(c.name+" "+f))
	}
	return strings.Join(out, ", ")
}

// shape is the command with its first form: "/start <code>".
func (c command) shape() string {
	if len(c.forms) == 0 {
		return c.name
	}
	return strings.TrimSpace(c.name + " " + c.forms[0])
}

// commandSet is what one kind of chat may send: the unlinked chats', the
// resellers' or the operators' commands, in /help's order.
type commandSet struct {
	// who names the chats it is for.
	who string
	// intro and outro frame the commands in /help.
	intro, outro string
	// unknown answers a command that is not in the set.
	unknown  string
	commands []command
}

// find returns the set's command named name.
func (s *commandSet) find(name string) (command, bool) {
	i := slices.IndexFunc(s.commands, func(c command) bool { return c.name == name })
	if i < 0 {
		return command{}, false
	}
	return s.commands[i], true
}

// helpText is /help's answer: one line for each command, in the table's
// order.
func (s *commandSet) helpText() string {
	lines := []string{s.intro}
	for _, c := range s.commands {
		lines = append(lines, c.usage()+" – "+c.help)
	}
	if s.outro != "" {
		lines = append(lines, s.outro)
	}
	return strings.Join(lines, "\n")
}

// showHelp answers /help (and /start without a code) with the help of
// the chat's own set.
func (b *Bot) showHelp(ctx context.Context, r *request, _ topupd.Chat) {
	b.reply(ctx, r, r.set.helpText())
}

// unlinkedCommands are what a chat not linked may send. /start <code>
// links any private chat, linked already or not, so the dispatcher looks
// it up here for every chat.
var unlinkedCommands = &commandSet{
	who:     "unlinked",
	intro:   "This is the topupd bot.",
	unknown: "This chat is not linked to an account. Ask your operator for a link code, then send /start <code> here in a private chat.",
	commands: []command{
		{name: "/start", forms: []string{"<code>"}, help: "links this chat to your account: ask your operator for a code (it works once, for 15 minutes), and send it here in a private chat",
			privateOnly: true, run: (*Bot).link},
		{name: "/help", help: "shows this", readOnly: true, run: (*Bot).showHelp},
	},
}

// resellerCommands are what a reseller's chat may send, for its account.
var resellerCommands = &commandSet{
	who:     "reseller",
	intro:   "Commands:",
	outro:   "Keys and webhook secrets are shown only in a private chat.",
	unknown: "I do not know that command. /help lists them.",
	commands: []command{
		{name: "/balance", help: "the balance", readOnly: true, run: (*Bot).balance},
		{name: "/keys", help: "your API keys", privateOnly: true, readOnly: true, run: (*Bot).keys},
		{name: "/newkey", forms: []string{"[label]", "test [label]"}, help: "a new API key, shown once; with test, a sandbox key", privateOnly: true, run: (*Bot).newKey},
		{name: "/revoke", forms: []string{"<keyId>"}, help: "revoke a key (asks first)", privateOnly: true, readOnly: true, run: (*Bot).askRevoke},
		{name: "/rotate", forms: []string{"<keyId>"}, help: "a new key; the old one works 24 more hours", privateOnly: true, run: (*Bot).rotate},
		{name: "/api", forms: []string{"on", "off"}, help: "turn API access on or off", run: (*Bot).apiAccess},
		{name: "/webhook", forms: []string{"", "add <URL>", "rm <endpointId>", "test <endpointId>"},
			help:        "the webhook endpoints: list them, add one (its secret shown once), delete one (asks first), or send it a test event",
			privateOnly: true, run: (*Bot).webhook},
		{name: "/ip", forms: []string{"", "add <IPv4 or CIDR>", "rm <entry>", "required on|off"},
			help: "the IPv4 allow-list: show it, add or remove an entry, require one or not", run: (*Bot).ip},
		{name: "/order", forms: []string{"<orderId or trxid>"}, help: "an order's status", readOnly: true, run: (*Bot).order},
		{name: "/alert", forms: []string{"balance <usd>", "balance off"}, help: "tell this chat when the balance falls below an amount, or no longer",
			run: (*Bot).balanceAlert},
		{name: "/deposit", forms: []string{"<usd>", ""}, help: "open a deposit ticket: the exact amount to transfer, its memo and our bank; alone, the pending tickets",
			run: (*Bot).deposit},
		{name: "/dispute", forms: []string{"<orderId> <reason> [detail]"}, help: "dispute a completed order (reasons: code_invalid, code_used, wrong_region, not_credited, duplicate_charge, other)",
			run: (*Bot).dispute},
		{name: "/help", help: "this list", readOnly: true, run: (*Bot).showHelp},
	},
}

// operatorCommands are what an operator's chat may send, as the operator.
var operatorCommands = &commandSet{
	who:     "operator",
	intro:   "Commands:",
	unknown: "I do not know that command. /help lists them.",
	commands: []command{
		{name: "/stuck", help: "orders past their deadline or with an alert, and supplier alerts", readOnly: true, run: (*Bot).stuck},
		{name: "/suppliers", help: "each upstream's balance, runway, balance alert and state", readOnly: true, run: (*Bot).suppliers},
		{name: "/find", forms: []string{"<trxid or orderId>"}, help: "an order, with its account", readOnly: true, run: (*Bot).find},
		{name: "/credit", forms: []string{"<accountId> <usd> <reference>"}, help: "credit an account (asks first; finance and owner)",
			readOnly: true, run: (*Bot).askCredit},
		{name: "/help", help: "this list", readOnly: true, run: (*Bot).showHelp},
	},
}

// commandSets are every set, for the refusal in groups.
var commandSets = []*commandSet{unlinkedCommands, resellerCommands, operatorCommands}

// privateOnly returns the command named name when some set marks it
// private-only. A group chat is never linked (a link code works only in a
// private chat), so the refusal cannot wait for the chat's own set.
func privateOnly(name string) (command, bool) {
	for _, s := range commandSets {
		if c, ok := s.find(name); ok && c.privateOnly {
			return c, true
		}
	}
	return command{}, false
}

// command answers a chat's message, at most PerMinute a minute per chat:
// a message that is not clean text (topupd.CleanText) is refused before
// anything reads the store with it; /start alone is /help; a private-only
// command is refused in a group; a link code (/start <code>) is looked up
// among the unlinked chats' commands whatever the chat is linked to; any
// other command among the set of the chat's kind, as its account or its
// operator. A read-only command's update is recorded before it runs.
func (b *Bot) command(ctx context.Context, r *request) {
	if !b.limits.allow(r.chatID) {
		if b.limits.warn(r.chatID) {
			b.reply(ctx, r, "Too many commands: at most 20 a minute. Wait a moment and try again.")
		}
		b.noteRead(ctx, r) // answered or not
		return
	}
	if !topupd.CleanText(r.cmd) || !topupd.CleanText(strings.Join(r.args, " ")) {
		b.reply(ctx, r, "That message holds a NUL byte or text that is not UTF-8: nothing was looked up or changed.")
		return
	}
	if r.cmd == "/start" && len(r.args) == 0 {
		r.cmd = "/help" // what a chat sends when it first opens the bot
	}
	if c, ok := privateOnly(r.cmd); ok && !r.private {
		b.reply(ctx, r, c.shape()+" works only in a private chat with the bot, so that nobody else sees your keys.")
		return
	}
	var chat topupd.Chat
	set := unlinkedCommands
	if r.cmd != "/start" {
		c, err := b.Store.Chat(ctx, r.chatID)
		switch {
		case err == nil && c.Operator != "":
			set, chat = operatorCommands, c
		case err == nil:
			set, chat = resellerCommands, c
		case topupd.CodeOf(err) != topupd.ENotFound:
			b.Logger.Warn("telegram: reading a chat", "chat", r.chatID, "err", b.scrub(err))
			b.reply(ctx, r, "Something went wrong on our side. Try again in a minute.")
			return
		}
	}
	cmd, ok := set.find(r.cmd)
	if !ok {
		b.reply(ctx, r, set.unknown)
		return
	}
	r.set = set
	switch set {
	case resellerCommands:
		r.actor = service.ChatActor(r.chatID, chat.AccountID, r.updateID)
	case operatorCommands:
		r.actor, r.actorErr = b.Service.OperatorChatActor(ctx, chat.Operator, r.chatID, r.updateID)
	}
	if cmd.readOnly {
		b.noteRead(ctx, r)
	}
	cmd.run(b, ctx, r, chat)
	b.noteRead(ctx, r) // a command that neither changed nor answered
}
