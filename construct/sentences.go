package construct

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence is a sentence of a text: its byte offsets (Text is
// text[Start:End], verbatim) and whether a paragraph starts with it.
type Sentence struct {
	N              int    `json:"n"`
	Text           string `json:"text"`
	Start          int    `json:"-"`
	End            int    `json:"-"`
	ParagraphStart bool   `json:"paragraph_start,omitempty"`
}

// Sentences cuts text into sentences at . ! ? … (with the closing quotes
// and brackets after them) followed by white space, and at blank lines.
// Offsets index text itself, so a run of sentences is a verbatim slice.
func Sentences(text string) []Sentence {
	var out []Sentence
	start := -1
	para := true
	emit := func(end int) {
		if start < 0 {
			return
		}
		s := strings.TrimRightFunc(text[start:end], unicode.IsSpace)
		if s != "" {
			out = append(out, Sentence{N: len(out), Text: s, Start: start, End: start + len(s), ParagraphStart: para})
			para = false
		}
		start = -1
	}
	for i := 0; i < len(text); {
		r, w := utf8.DecodeRuneInString(text[i:])
		if r == '\n' {
			// A blank line ends the paragraph.
			j := i + w
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r') {
				j++
			}
			if j < len(text) && text[j] == '\n' {
				emit(i)
				para = true
				i = j
				continue
			}
		}
		if start < 0 && !unicode.IsSpace(r) {
			start = i
		}
		i += w
		if start >= 0 && strings.ContainsRune(".!?…", r) {
			j := i
			for j < len(text) {
				r2, w2 := utf8.DecodeRuneInString(text[j:])
				if !strings.ContainsRune("\"'”’)]»", r2) {
					break
				}
				j += w2
			}
			if j >= len(text) {
				emit(j)
				i = j
				continue
			}
			if r2, _ := utf8.DecodeRuneInString(text[j:]); unicode.IsSpace(r2) && !abbreviation(text[start:i]) {
				emit(j)
				i = j
			}
		}
	}
	emit(len(text))
	return out
}

// abbreviation reports whether s ends in a common abbreviation whose
// period does not end a sentence ("Mr.", "Dr.", "St.").
func abbreviation(s string) bool {
	i := strings.LastIndexFunc(strings.TrimSuffix(s, "."), func(r rune) bool { return !unicode.IsLetter(r) })
	w := strings.ToLower(strings.TrimSuffix(s[i+1:], "."))
	switch w {
	case "mr", "mrs", "ms", "dr", "st", "prof", "jr", "sr", "vs", "etc", "e.g", "i.e":
		return true
	}
	return false
}
