package telegram

// CommandNames returns the names of the commands of one kind of chat
// ("unlinked", "reseller" or "operator"), for the conversations of the
// external tests.
func CommandNames(who string) []string {
	var out []string
	for _, s := range commandSets {
		if s.who == who {
			for _, c := range s.commands {
				out = append(out, c.name)
			}
		}
	}
	return out
}
