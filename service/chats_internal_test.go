package service

import "testing"

// TestStartURL: a chat link code's link opens the bot named by its
// username (with or without the @) with /start <code>; without a username
// there is none.
func TestStartURL(t *testing.T) {
	const code = "AbC-_0123456789abcdefghijklmnopqrstuvwxyzAB"
	for bot, want := range map[string]string{
		"topupd_bot":  "https://t.me/topupd_bot?start=" + code,
		"@topupd_bot": "https://t.me/topupd_bot?start=" + code,
		"":            "",
	} {
		if got := startURL(bot, code); got != want {
			t.Errorf("startURL(%q) = %q, want %q", bot, got, want)
		}
	}
}
