package console

import "testing"

// TestChanges: the action log says each changed field once, by name, as
// before → after; a field only after is shown as set, one only before as
// gone, and a field that did not change is left out.
func TestChanges(t *testing.T) {
	for _, tc := range []struct {
		before, after map[string]any
		want          string
	}{
		{nil, nil, ""},
		{map[string]any{"a": 1}, map[string]any{"a": 1}, ""},
		{map[string]any{"b": "x", "a": 1}, map[string]any{"b": "y", "a": 2, "c": true},
			"a: 1 → 2\nb: x → y\nc: true"},
		{map[string]any{"z": 5, "m": "k"}, map[string]any{"m": "k"}, "z: 5 → (none)"},
	} {
		if got := changes(tc.before, tc.after); got != tc.want {
			t.Errorf("changes(%v, %v) = %q, want %q", tc.before, tc.after, got, tc.want)
		}
	}
}
