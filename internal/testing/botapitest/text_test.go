package botapitest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Many cases come from TDLib's own tests of parse_html (test/message_entities.cpp).
func TestParseHTML(t *testing.T) {
	tests := []struct{ in, text, problem string }{
		{in: "<b>Balance</b>: 10 &amp; <i>more</i>", text: "Balance: 10 & more"},
		{in: "&lt;&gt;&quot;&amp &#65;&#x42;&#67 &nbsp; & x", text: `<>"& ABC &nbsp; & x`},
		{in: `<a href="https://example.com/?a=1&amp;b=2">link</a> <code class="language-go">x</code>`, text: "link x"},
		{in: `<span class="tg-spoiler">s</span><tg-spoiler>t</tg-spoiler><pre><code>p</code></pre>`, text: "stp"},
		{in: "<B>upper</B>", text: "upper"},
		{in: "a > b", text: "a > b"},
		{in: "🏟 🏟&lt;<abacaba", problem: "Unclosed start tag at byte offset 13"},
		{in: "🏟 🏟&lt;<abac aba>", problem: `Unsupported start tag "abac" at byte offset 13`},
		{in: "🏟 🏟&lt;<i   =aba>", problem: `Empty attribute name in the tag "i" at byte offset 13`},
		{in: "🏟 🏟&lt;<i    aba  =  ", problem: `Unclosed start tag "i" at byte offset 13`},
		{in: "🏟 🏟&lt;<i    aba  =  190azAz-.,", problem: "Unexpected end of name token at byte offset 27"},
		{in: `🏟 🏟&lt;<i    aba  =  "&lt;&gt;&quot;>`, problem: "Unclosed start tag at byte offset 13"},
		{in: "🏟 🏟&lt;</", problem: "Unexpected end tag at byte offset 13"},
		{in: "🏟 🏟&lt;<b></b></", problem: "Unexpected end tag at byte offset 20"},
		{in: "<b>x</b", problem: "Unclosed end tag at byte offset 4"},
		{in: "<b>x</i>", problem: `Unmatched end tag at byte offset 4, expected "</b>", found "</i>"`},
		{in: "<b>x", problem: `Can't find end tag corresponding to start tag "b"`},
		{in: "<br>", problem: `Unsupported start tag "br" at byte offset 0`},
		{in: "a < b", problem: `Unsupported start tag "" at byte offset 2`},
		{in: "<span>x</span>", problem: `Tag "span" must have class "tg-spoiler" at byte offset 0`},
	}
	for _, tt := range tests {
		text, problem := parseHTML(tt.in)
		if text != tt.text || problem != tt.problem {
			t.Errorf("parseHTML(%q) = %q, %q; want %q, %q", tt.in, text, problem, tt.text, tt.problem)
		}
	}
}

func TestParseMarkdownV2(t *testing.T) {
	tests := []struct{ in, text, problem string }{
		{in: `*Balance:* 10\.50 _EUR_ __u__ ~s~ ||spoiler||`, text: "Balance: 10.50 EUR u s spoiler"},
		{in: "[the console](https://example.com/a_(b\\)) and `code_with.dots`", text: "the console and code_with.dots"},
		{in: "```go\nfmt.Println(1.5)\n```", text: "fmt.Println(1.5)\n"},
		{in: ">quoted\n>more", text: "quoted\nmore"},
		{in: "10.50", problem: `Character '.' is reserved and must be escaped with the preceding '\'`},
		{in: "a - b", problem: `Character '-' is reserved and must be escaped with the preceding '\'`},
		{in: "x > y", problem: `Character '>' is reserved and must be escaped with the preceding '\'`},
		{in: "(1)", problem: `Character '(' is reserved and must be escaped with the preceding '\'`},
		{in: "*bold", problem: "Can't find end of Bold entity at byte offset 0"},
		{in: "ok [link](https://x", problem: "Can't find end of a URL at byte offset 10"},
	}
	for _, tt := range tests {
		text, problem := parseMarkdownV2(tt.in)
		if text != tt.text || problem != tt.problem {
			t.Errorf("parseMarkdownV2(%q) = %q, %q; want %q, %q", tt.in, text, problem, tt.text, tt.problem)
		}
	}
}

func TestFormatTextLength(t *testing.T) {
	// Telegram counts UTF-16 code units after parsing: 2048 emoji are 4096.
	if _, err := formatText(strings.Repeat("🏟", 2048), ""); err != nil {
		t.Errorf("4096 code units: %s", err.desc)
	}
	if _, err := formatText(strings.Repeat("🏟", 2048)+"x", ""); err == nil || err.desc != "Bad Request: message is too long" {
		t.Errorf("4097 code units: %v", err)
	}
	if _, err := formatText("<b>"+strings.Repeat("x", 4096)+"</b>", "HTML"); err != nil {
		t.Errorf("4096 characters in tags: %s", err.desc)
	}
	if _, err := formatText("<b> </b>", "html"); err == nil || err.desc != "Bad Request: message text is empty" {
		t.Errorf("only markup: %v", err)
	}
}

func TestCommandEntities(t *testing.T) {
	tests := []struct {
		in   string
		want []entityJSON
	}{
		{"/start", []entityJSON{{"bot_command", 0, 6}}},
		{"/link ABC123", []entityJSON{{"bot_command", 0, 5}}},
		{"🏟 /top_up@" + BotUsername + " 10", []entityJSON{{"bot_command", 3, 23}}},
		{"/a /b", []entityJSON{{"bot_command", 0, 2}, {"bot_command", 3, 2}}},
		{"and/or, 1/2, </b>, /x@ab", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, commandEntities(tt.in)); diff != "" {
			t.Errorf("commandEntities(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	for in, want := range map[string]bool{
		"/balance": true, "/balance@" + BotUsername: true, "/balance@TOPUPD_test_BOT": true,
		"/balance@other_bot": false, "hi /balance": false, "balance": false,
	} {
		if got := commandFor(in, BotUsername); got != want {
			t.Errorf("commandFor(%q) = %v, want %v", in, got, want)
		}
	}
}
