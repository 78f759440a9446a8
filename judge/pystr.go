package judge

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memlab/memlab/datasets"
)

// ReferenceText is a KnowMe question's reference answer as the official
// judge script (evaluate/run_eval.py) puts it into a prompt: Python's str()
// of the reference_answer of the item formats.WriteKnowMe exports. A text
// reference is itself; an ordering reference (q.Ordering) is exported as a
// list of {"rank", "event", "reasoning"} objects, whose str() is Python's
// list and dict repr, e.g.
//
//	[{'rank': 1, 'event': "Father grabbed 'me's arm", 'reasoning': 'climax'}]
//
// so the rank and reasoning of every step reach the judge. Bytes that are
// not UTF-8 become U+FFFD, one per byte, as in the exported JSON.
func ReferenceText(q datasets.Question) string {
	if len(q.Ordering) == 0 {
		return exportedText(q.Answer)
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range q.Ordering {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("{'rank': ")
		b.WriteString(strconv.Itoa(e.Rank))
		b.WriteString(", 'event': ")
		b.WriteString(pyRepr(e.Event))
		b.WriteString(", 'reasoning': ")
		b.WriteString(pyRepr(e.Reasoning))
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.String()
}

// pyRepr returns Python 3's repr() of s: single quotes, or double quotes
// when s holds a single quote and no double quote; a backslash before the
// chosen quote and before a backslash; \t, \n and \r; \xhh for the other
// ASCII control characters and DEL; every other character as is when
// Python deems it printable (not in Unicode categories C* or Z*, space
// excepted: unicode.IsPrint), else \xhh, \uhhhh or \Uhhhhhhhh by size.
// Printability follows Go's Unicode tables (unicode.Version), which match
// a Python built on the same Unicode version (15.0: Python 3.12); only
// code points assigned in between can differ. Bytes that are not UTF-8
// count as U+FFFD, one per byte.
func pyRepr(s string) string {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteRune(quote)
	for _, r := range s {
		switch {
		case r == quote || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < ' ' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f:
			b.WriteRune(r)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteRune(quote)
	return b.String()
}

// exportedText is s as it reads back from memlab's JSON exports
// (encoding/json): each byte that is not part of valid UTF-8 becomes
// U+FFFD.
func exportedText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}
