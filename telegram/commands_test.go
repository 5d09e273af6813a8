package telegram

import (
	"slices"
	"strings"
	"testing"
)

// specCommands are the commands of the messaging-app spec
// (messaging-app.md: "Linking a chat", "What a reseller's chat can do",
// "What an operator's chat can do"), each in the shapes the spec writes
// it, and whether the spec keeps it to private chats ("Key and webhook
// commands in a group chat are refused"; a link code is sent "in a
// private chat"). /webhook is left out: a later issue builds it.
var specCommands = map[*commandSet][]struct {
	shape   string
	private bool
}{
	unlinkedCommands: {
		{"/start <code>", true},
		{"/help", false},
	},
	resellerCommands: {
		{"/balance", false},
		{"/keys", true},
		{"/newkey [label]", true},
		{"/newkey test [label]", true},
		{"/revoke <keyId>", true},
		{"/rotate <keyId>", true},
		{"/api on", false},
		{"/api off", false},
		{"/ip", false},
		{"/ip add <IPv4 or CIDR>", false},
		{"/ip rm <entry>", false},
		{"/ip required on", false},
		{"/ip required off", false},
		{"/order <orderId or trxid>", false},
		{"/alert balance <usd>", false},
		{"/alert balance off", false},
		{"/help", false},
	},
	operatorCommands: {
		{"/stuck", false},
		{"/find <trxid or orderId>", false},
		{"/credit <accountId> <usd> <reference>", false},
		// back-office.md, section 1: "/suppliers in an operator's chat".
		{"/suppliers", false},
	},
}

// covers reports whether a command's form, as /help shows it, covers a
// shape of the spec: word for word, a word "on|off" standing for either.
func covers(form, shape string) bool {
	f, s := strings.Fields(form), strings.Fields(shape)
	if len(f) != len(s) {
		return false
	}
	for i := range f {
		if f[i] != s[i] && !slices.Contains(strings.Split(f[i], "|"), s[i]) {
			return false
		}
	}
	return true
}

// TestCommandsOfTheSpec: every command of the spec is in its chats'
// table, in the shapes the spec writes, and the ones the spec keeps to
// private chats are refused in groups.
func TestCommandsOfTheSpec(t *testing.T) {
	for set, want := range specCommands {
		for _, w := range want {
			name := strings.Fields(w.shape)[0]
			c, ok := set.find(name)
			if !ok {
				t.Errorf("%s commands: no %s (the spec's %q)", set.who, name, w.shape)
				continue
			}
			forms := c.forms
			if len(forms) == 0 {
				forms = []string{""}
			}
			if !slices.ContainsFunc(forms, func(f string) bool { return covers(strings.TrimSpace(name+" "+f), w.shape) }) {
				t.Errorf("%s commands: %s takes %q, none of them the spec's %q", set.who, name, c.forms, w.shape)
			}
			if c.privateOnly != w.private {
				t.Errorf("%s commands: %s: privateOnly %v, want %v", set.who, name, c.privateOnly, w.private)
			}
			if got, _ := privateOnly(name); got.privateOnly != w.private {
				t.Errorf("%s in a group: refused %v, want %v", name, got.privateOnly, w.private)
			}
		}
	}
}

// TestHelpListsEveryCommandOnce: each set's /help names each of its
// commands at the start of exactly one line, and names nothing else;
// every set has /help (which /start alone stands for), and no set has a
// command twice or one without help or a handler.
func TestHelpListsEveryCommandOnce(t *testing.T) {
	if len(commandSets) != len(specCommands) {
		t.Errorf("%d sets of commands, %d in the spec's list", len(commandSets), len(specCommands))
	}
	for _, set := range commandSets {
		help := set.helpText()
		lines := strings.Split(help, "\n")
		listed := map[string]int{}
		for _, l := range lines {
			if !strings.HasPrefix(l, "/") {
				continue
			}
			first := strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == ',' })[0]
			listed[first]++
			if _, ok := set.find(first); !ok {
				t.Errorf("%s help: %q names %s, which is not in the table", set.who, l, first)
			}
		}
		names := map[string]bool{}
		for _, c := range set.commands {
			if names[c.name] {
				t.Errorf("%s commands: %s twice", set.who, c.name)
			}
			names[c.name] = true
			if n := listed[c.name]; n != 1 {
				t.Errorf("%s help lists %s %d times, want once:\n%s", set.who, c.name, n, help)
			}
			if c.help == "" || c.run == nil {
				t.Errorf("%s commands: %s has no help or no handler", set.who, c.name)
			}
			if !strings.Contains(help, c.usage()+" – "+c.help) {
				t.Errorf("%s help does not show %q with its forms", set.who, c.name)
			}
		}
		if _, ok := set.find("/help"); !ok {
			t.Errorf("%s commands: no /help", set.who)
		}
	}
}
