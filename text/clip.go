package text

import "strings"

// Ellipsis is what Clip and ClipLine append to a text they shorten.
const Ellipsis = "…"

// Clip returns s if it has at most n runes, else its first n runes followed by
// Ellipsis. It counts runes, not bytes, so it never cuts a character in two
// (a clipped text is valid UTF-8: an invalid byte of s becomes U+FFFD, as in
// a []rune conversion). It keeps s's spacing and line breaks; ClipLine puts a
// text on one line first. n < 0 counts as 0.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:max(n, 0)]) + Ellipsis
}

// ClipLine is Clip of s on one line: every run of white space (spaces, tabs,
// line breaks) becomes one space and leading and trailing space is dropped
// before s is clipped to n runes. Tables and markdown list items use it.
func ClipLine(s string, n int) string {
	return Clip(strings.Join(strings.Fields(s), " "), n)
}
