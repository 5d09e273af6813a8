package topupd

import "strings"

// CodeMask is the character that stands for each hidden character of a
// masked code.
const CodeMask = "•"

// codeShown is how many of a code's last characters a masked code shows.
const codeShown = 4

// MaskCode is a delivered code as admin views show it: its last 4
// characters (runes) kept and every other one replaced by CodeMask, so
// that an operator can tell codes apart and match one a reseller quotes
// without reading it. A code of 4 characters or fewer is masked whole
// (one CodeMask per character): showing its last 4 would show all of it.
func MaskCode(code string) string {
	runes := []rune(code)
	if len(runes) <= codeShown {
		return strings.Repeat(CodeMask, len(runes))
	}
	hidden := len(runes) - codeShown
	return strings.Repeat(CodeMask, hidden) + string(runes[hidden:])
}

// MaskCodes masks each code of a list (MaskCode); nil stays nil.
func MaskCodes(codes []string) []string {
	if codes == nil {
		return nil
	}
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = MaskCode(c)
	}
	return out
}
