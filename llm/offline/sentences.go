package offline

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memlab/memlab/text"
)

// abbreviations are the lowercased words whose trailing period does not end
// a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true, "jr": true, "sr": true,
	"vs": true, "etc": true, "e.g": true, "i.e": true, "no": true, "vol": true, "fig": true, "approx": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true, "sep": true,
	"sept": true, "oct": true, "nov": true, "dec": true, "a.m": true, "p.m": true, "u.s": true,
}

// closers may follow a sentence terminator and stay in its sentence.
const closers = `"'”’)]}」』）】`

// splitSentences splits text into sentences: at line breaks, at list
// bullets, and after '.', '!', '?' (followed by a space or the end, and for
// '.' not after a known abbreviation or a single letter) and '。', '！',
// '？', '…' (always). Each line loses its list bullet ("- ", "* ", "• ",
// "1. ", "1) ", "> ", "# ") and its speaker label ("**Anna:**", "Anna:");
// markdown emphasis markers ("**", "__") are removed. Sentences are trimmed;
// empty ones are dropped.
func splitSentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		line = stripBullet(line)
		line = stripSpeaker(line)
		line = strings.ReplaceAll(line, "**", "")
		line = strings.ReplaceAll(line, "__", "")
		out = splitLine(out, line)
	}
	return out
}

// splitLine appends the sentences of one line to out.
func splitLine(out []string, line string) []string {
	start := 0
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRuneInString(line[i:])
		end := -1
		switch r {
		case '。', '！', '？', '…', '!', '?', '.':
			j := i + n
			for j < len(line) && strings.ContainsRune(".!?。！？…", rune(line[j])) {
				j++ // "?!", "..."
			}
			for j < len(line) {
				c, cn := utf8.DecodeRuneInString(line[j:])
				if !strings.ContainsRune(closers, c) {
					break
				}
				j += cn
			}
			ascii := r == '.' || r == '!' || r == '?'
			if ascii && j < len(line) && line[j] != ' ' && line[j] != '\t' {
				break // "3.5", "example.com", "a.m"
			}
			if r == '.' && j == i+n && isAbbreviation(line[start:i]) {
				break
			}
			end = j
		}
		if end < 0 {
			i += n
			continue
		}
		out = appendSentence(out, line[start:end])
		start, i = end, end
	}
	return appendSentence(out, line[start:])
}

func appendSentence(out []string, s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return out
	}
	return append(out, s)
}

// isAbbreviation reports whether the last word of s (before a period) is a
// known abbreviation or a single letter ("J. Smith").
func isAbbreviation(s string) bool {
	k := strings.LastIndexAny(s, " \t(\"'")
	w := strings.ToLower(s[k+1:])
	if w == "" {
		return false
	}
	if utf8.RuneCountInString(w) == 1 {
		r, _ := utf8.DecodeRuneInString(w)
		return unicode.IsLetter(r) && !isCJK(r)
	}
	return abbreviations[w]
}

// stripBullet removes a leading markdown list bullet, numbered-list marker,
// quote marker or heading marker from a trimmed line.
func stripBullet(line string) string {
	for {
		prev := line
		switch {
		case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "), strings.HasPrefix(line, "+ "),
			strings.HasPrefix(line, "> "):
			line = line[2:]
		case strings.HasPrefix(line, "•"), strings.HasPrefix(line, "·"), strings.HasPrefix(line, "・"):
			_, n := utf8.DecodeRuneInString(line)
			line = line[n:]
		case strings.HasPrefix(line, "#"):
			line = strings.TrimLeft(line, "#")
		default:
			j := 0
			for j < len(line) && j < 3 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j > 0 && j+1 < len(line) && (line[j] == '.' || line[j] == ')') && line[j+1] == ' ' {
				line = line[j+2:]
			}
		}
		line = strings.TrimSpace(line)
		if line == prev {
			return line
		}
	}
}

// stripSpeaker removes a leading chat or markdown speaker label: "**Anna:**",
// "**Anna**:", "Anna:", "Anna Lee:", "安娜：". A plain label is at most three
// words, each starting with an upper-case letter (or all CJK, up to six
// characters), followed by ':' or '：'.
func stripSpeaker(line string) string {
	if strings.HasPrefix(line, "**") {
		rest := line[2:]
		if k := strings.Index(rest, "**"); k > 0 && k <= 40 {
			label, after := rest[:k], rest[k+2:]
			switch {
			case strings.HasSuffix(label, ":"), strings.HasSuffix(label, "："):
				return strings.TrimSpace(after)
			case strings.HasPrefix(after, ":"):
				return strings.TrimSpace(after[1:])
			case strings.HasPrefix(after, "："):
				return strings.TrimSpace(after[len("："):])
			}
		}
		return line
	}
	k := strings.IndexAny(line, ":：")
	if k <= 0 || k > 40 {
		return line
	}
	label := line[:k]
	_, cn := utf8.DecodeRuneInString(line[k:])
	after := line[k+cn:]
	if after != "" && line[k] == ':' && after[0] != ' ' {
		return line // "10:30", "http://"
	}
	if !isSpeakerLabel(label) {
		return line
	}
	return strings.TrimSpace(after)
}

func isSpeakerLabel(label string) bool {
	words := strings.Fields(label)
	if len(words) == 0 || len(words) > 3 {
		return false
	}
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		switch {
		case isCJK(r):
			if utf8.RuneCountInString(w) > 6 {
				return false
			}
			for _, c := range w {
				if !isCJK(c) {
					return false
				}
			}
		case unicode.IsUpper(r):
			for _, c := range w {
				if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '.' && c != '-' && c != '\'' && c != '_' {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// isCJK reports whether r is a Han, Hiragana, Katakana or Hangul character.
func isCJK(r rune) bool {
	return r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// hasContent reports whether s has at least one content word.
func hasContent(s string) bool { return len(text.ContentTokens(s)) > 0 }
