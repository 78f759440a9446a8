package text

import (
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 5, "short"},
		{"longer", 4, "long…"},
		{"", 3, ""},
		{"abc", 0, "…"},
		{"abc", -1, "…"},
		{"我喜欢北京", 2, "我喜…"}, // runes, not bytes: 2 bytes would cut 我 in two
		{"a\n b", 3, "a\n …"},
		{"北京", 2, "北京"},
	}
	for _, c := range cases {
		got := Clip(c.s, c.n)
		if got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q is not valid UTF-8", c.s, c.n, got)
		}
	}
}

func TestClipLine(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"  two\n\twords ", 20, "two words"},
		{"one two three", 7, "one two…"},
		{"我 喜欢\n北京", 4, "我 喜欢…"},
	}
	for _, c := range cases {
		if got := ClipLine(c.s, c.n); got != c.want {
			t.Errorf("ClipLine(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
