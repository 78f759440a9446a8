// Package tokencount is memlab's rough token count, shared by cost
// estimates (llm.EstimateTokens) and the fake server's usage reports
// (llm/llmtest), so that both count the same way.
package tokencount

import (
	"strings"
	"unicode"
)

// Estimate counts the whitespace-separated words of text, plus one for
// each Han, Hiragana, Katakana or Hangul character beyond the first of a
// word (such scripts are written without spaces).
func Estimate(text string) int {
	n := 0
	for _, w := range strings.Fields(text) {
		n++
		first := true
		for _, r := range w {
			if !first && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
				n++
			}
			first = false
		}
	}
	return n
}
