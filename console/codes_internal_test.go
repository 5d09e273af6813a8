package console

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCodeOf: both upload paths read a line the same way: the first CSV
// column, without spaces, quotes or a byte order mark; no header.
func TestCodeOf(t *testing.T) {
	for line, want := range map[string]string{
		"ABC-1": "ABC-1", `"ABC-1",x`: "ABC-1", " ABC 1 ,y": "ABC 1", "\ufeffABC-1": "ABC-1", "\ufeffcode": "",
		`"code",pin`: "", "CODE": "", "": "", "  ": "",
	} {
		if got := codeOf(line); got != want {
			t.Errorf("codeOf(%q) = %q, want %q", line, got, want)
		}
	}
	got, err := readCodeFile(strings.NewReader("\ufeffcode,pin\r\n\"K-1\",1\r\n\r\nK-2\n"))
	if err != nil || !cmp.Equal(got, []string{"K-1", "K-2"}) {
		t.Errorf("readCodeFile = %q, %v", got, err)
	}
	for _, file := range []string{"K-1\nK\x00-2\n", "K-1\nK-\xff2\n", "K-1,\xc3\x28\n"} {
		if got, err := readCodeFile(strings.NewReader(file)); err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("readCodeFile(%q) = %q, %v; want the bad line refused", file, got, err)
		}
	}
}
