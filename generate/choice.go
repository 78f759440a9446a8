package generate

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/memlab/memlab/datasets"
)

// Errors of ParseChoice, to be tested with errors.Is. Both are recorded
// failures of the reader, not wrong answers.
var (
	// ErrUnparseable means the output names no option.
	ErrUnparseable = errors.New("no option found")
	// ErrAmbiguous means the output names two different options as the answer.
	ErrAmbiguous = errors.New("several options named")
)

// cbdPatterns are lowercase phrases that mark the "cannot be determined"
// option of CloneMem (English and Chinese releases).
var cbdPatterns = []string{
	"cannot be determined", "can't be determined", "can not be determined",
	"cannot determine", "can't determine", "unable to determine", "not possible to determine",
	"cannot be inferred", "not enough information", "insufficient information",
	"无法确定", "无法判断", "不能确定", "无法得知", "无从得知", "信息不足", "无法推断",
}

// CannotDetermine returns the id of the "cannot be determined" option of a
// multiple-choice question: the option whose text contains one of the
// phrases "cannot be determined", "not enough information", "无法确定",
// "无法判断", ... (case-insensitive; the one with id "E", else the last,
// when several do), or else the option with id "E" (CloneMem's convention),
// or "" when there is neither.
func CannotDetermine(choices []datasets.Choice) string {
	var found []string
	for _, ch := range choices {
		t := strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(ch.Text, "’", "'")), " "))
		for _, p := range cbdPatterns {
			if strings.Contains(t, p) {
				found = append(found, ch.ID)
				break
			}
		}
	}
	for _, id := range found {
		if strings.EqualFold(id, "E") {
			return id
		}
	}
	if len(found) > 0 {
		return found[len(found)-1]
	}
	for _, ch := range choices {
		if strings.EqualFold(ch.ID, "E") {
			return ch.ID
		}
	}
	return ""
}

// ParseChoice returns the id of the option that a model's output names as
// its answer. It tries, in order, and stops at the first rule that names
// exactly one option (a rule naming two different options is ErrAmbiguous):
//
//  1. the whole output, or its first line, is an option id alone, with any
//     brackets and punctuation around it: "C", "c", "C.", "(c)", "**C**";
//  2. the output is an option's text (case, spaces and final punctuation
//     ignored);
//  3. an answer marker followed by an id: "Answer: C", "The answer is (B)
//     because...", "final answer would be option D", "答案：C", "答案是C";
//     "A or B" after a marker is ambiguous;
//  4. an option marker followed by an id: "Option C", "I choose b.",
//     "选项C", "我选C";
//  5. the output starts with an id followed by punctuation ("C) ...",
//     "B. ...", "(B) ...") or, for ids other than A and I, a space;
//  6. ids in brackets anywhere: "(B)", "[b]", "（B）";
//  7. the output contains an option's text (a text contained in another
//     matched option's text is dropped);
//  8. standalone capital ids anywhere ("I think B."), ignoring "A" and "I"
//     used as words ("A few ...", but not "A or B", "A is right").
//
// Fullwidth forms are folded first. Ids are matched case-insensitively
// (lowercase only where they cannot be an English word), as whole tokens.
// The error wraps ErrUnparseable or ErrAmbiguous and quotes the output.
func ParseChoice(output string, choices []datasets.Choice) (string, error) {
	if len(choices) == 0 {
		return "", fmt.Errorf("generate: parse choice %s: no options given", quote(output))
	}
	p := choiceParser{ids: make([]string, 0, len(choices))}
	for _, ch := range choices {
		if ch.ID != "" { // an option without an id cannot be answered
			p.ids = append(p.ids, ch.ID)
			p.choices = append(p.choices, ch)
		}
	}
	sort.Slice(p.ids, func(a, b int) bool { return len(p.ids[a]) > len(p.ids[b]) })
	p.s = []rune(normalizeOutput(output))

	rules := []func() []string{p.lone, p.fullText, p.answerMarker, p.optionMarker, p.leading, p.bracketed, p.containedText, p.bare}
	for _, rule := range rules {
		ids := dedupe(rule())
		switch {
		case len(ids) == 1:
			return ids[0], nil
		case len(ids) > 1:
			return "", fmt.Errorf("generate: parse choice %s: %w: %s", quote(output), ErrAmbiguous, strings.Join(ids, ", "))
		}
	}
	return "", fmt.Errorf("generate: parse choice %s: %w", quote(output), ErrUnparseable)
}

type choiceParser struct {
	s       []rune
	ids     []string          // longest first
	choices []datasets.Choice // those with an id
}

func quote(s string) string {
	r := []rune(s)
	if len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return fmt.Sprintf("%q", s)
}

func dedupe(ids []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// normalizeOutput folds fullwidth forms, maps CJK brackets and curly quotes
// to ASCII and removes markdown emphasis and code marks (also written in
// fullwidth forms: they are folded first).
func normalizeOutput(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			r -= 0xFEE0
		case r == 0x3000:
			r = ' '
		}
		switch {
		case r == '【' || r == '「':
			r = '['
		case r == '】' || r == '」':
			r = ']'
		case r == '“' || r == '”':
			r = '"'
		case r == '‘' || r == '’':
			r = '\''
		case r == '*' || r == '`' || r == '_':
			continue
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

func isAlnum(r rune) bool { return r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

// idAt returns the option id written at s[i:] as a whole token (the runes
// around it are not ASCII letters or digits), matched case-insensitively.
func (p *choiceParser) idAt(i int) (id string, end int, ok bool) {
	if i > 0 && isAlnum(p.s[i-1]) {
		return "", 0, false
	}
	for _, cand := range p.ids {
		n := len([]rune(cand))
		if i+n > len(p.s) || !strings.EqualFold(string(p.s[i:i+n]), cand) {
			continue
		}
		if i+n < len(p.s) && isAlnum(p.s[i+n]) {
			continue
		}
		return cand, i + n, true
	}
	return "", 0, false
}

// wordLike reports whether a lowercase id at s[i:end] reads as an English
// word: it is followed by spaces and then a letter ("a bit").
func (p *choiceParser) wordLike(i, end int) bool {
	if !unicode.IsLower(p.s[i]) {
		return false
	}
	j := end
	for j < len(p.s) && p.s[j] == ' ' {
		j++
	}
	return j > end && j < len(p.s) && unicode.IsLetter(p.s[j])
}

// 1. The output or its first line is an id alone.
func (p *choiceParser) lone() []string {
	text := string(p.s)
	cands := []string{text}
	if line, _, ok := strings.Cut(text, "\n"); ok {
		cands = append(cands, line)
	}
	for _, c := range cands {
		c = strings.Trim(c, " \t\r\n\"'.,:;!?()[]{}<>-。，：；！？、")
		for _, id := range p.ids {
			if strings.EqualFold(c, id) {
				return []string{id}
			}
		}
	}
	return nil
}

func normText(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.Trim(s, " \"'.,;:!?。，；：！？")
}

// 2. The output is an option's text.
func (p *choiceParser) fullText() []string {
	out := normText(string(p.s))
	var ids []string
	for _, ch := range p.choices {
		if t := normText(ch.Text); t != "" && t == out {
			ids = append(ids, ch.ID)
		}
	}
	return ids
}

var answerMarkers = []string{"答案", "answer"}

var optionMarkers = []string{"选项", "选择", "go with", "option", "choice", "choose", "chose", "select", "pick", "选"}

// fillers may stand between a marker and the id.
var fillers = []string{"would be", "should be", "will be", "must be", "is", "be", "the", "correct", "option", "choice",
	"letter", "应该是", "应该", "是", "为", "选项", "选", "了"}

// 3. Answer markers.
func (p *choiceParser) answerMarker() []string { return p.afterMarkers(answerMarkers) }

// 4. Option markers.
func (p *choiceParser) optionMarker() []string { return p.afterMarkers(optionMarkers) }

func (p *choiceParser) afterMarkers(markers []string) []string {
	lower := []rune(strings.ToLower(string(p.s)))
	if len(lower) != len(p.s) { // lowercasing changed the length: compare rune by rune instead
		lower = make([]rune, len(p.s))
		for i, r := range p.s {
			lower[i] = unicode.ToLower(r)
		}
	}
	var ids []string
	for i := 0; i < len(lower); i++ {
		for _, m := range markers {
			mr := []rune(m)
			if i+len(mr) > len(lower) || string(lower[i:i+len(mr)]) != m {
				continue
			}
			ascii := mr[0] < 128
			if ascii && ((i > 0 && isAlnum(lower[i-1])) || (i+len(mr) < len(lower) && isAlnum(lower[i+len(mr)]))) {
				continue // part of a longer word: "options", "answered"
			}
			ids = append(ids, p.idsAfter(lower, i+len(mr))...)
			i += len(mr) - 1
			break
		}
	}
	return ids
}

// idsAfter reads the id following a marker ending at j, skipping
// punctuation and filler words, and a second id joined by "or"/"and"/"/".
func (p *choiceParser) idsAfter(lower []rune, j int) []string {
	j = p.skipFillers(lower, j)
	id, end, ok := p.idAt(j)
	if !ok || p.wordLike(j, end) {
		return nil
	}
	ids := []string{id}
	k := end
	for k < len(lower) && lower[k] == ' ' {
		k++
	}
	for _, conj := range []string{"or ", "and ", "/", "或", "和", "、", ","} {
		if strings.HasPrefix(string(lower[k:]), conj) {
			k += len([]rune(conj))
			for k < len(lower) && lower[k] == ' ' {
				k++
			}
			if id2, end2, ok := p.idAt(k); ok && !p.wordLike(k, end2) {
				ids = append(ids, id2)
			}
			break
		}
	}
	return ids
}

func (p *choiceParser) skipFillers(lower []rune, j int) int {
	for {
		start := j
		for j < len(lower) && strings.ContainsRune(" \t\n:=-–—([\"'", lower[j]) {
			j++
		}
		for _, f := range fillers {
			fr := []rune(f)
			if j+len(fr) <= len(lower) && string(lower[j:j+len(fr)]) == f &&
				(fr[0] >= 128 || j+len(fr) == len(lower) || !isAlnum(lower[j+len(fr)])) {
				j += len(fr)
				break
			}
		}
		if j == start {
			return j
		}
	}
}

// 5. The output starts with an id followed by punctuation.
func (p *choiceParser) leading() []string {
	i := 0
	opener := len(p.s) > 0 && (p.s[0] == '(' || p.s[0] == '[')
	if opener {
		i = 1
	}
	id, end, ok := p.idAt(i)
	if !ok {
		return nil
	}
	if end == len(p.s) {
		return []string{id}
	}
	next := p.s[end]
	switch {
	case opener && (next == ')' || next == ']'):
		return []string{id}
	case !opener && strings.ContainsRune(".):,-", next):
		return []string{id}
	case !opener && unicode.IsSpace(next) && unicode.IsUpper(p.s[i]) && id != "A" && id != "I":
		return []string{id}
	}
	return nil
}

// 6. Ids in brackets anywhere.
func (p *choiceParser) bracketed() []string {
	var ids []string
	for i := 0; i+1 < len(p.s); i++ {
		if p.s[i] != '(' && p.s[i] != '[' {
			continue
		}
		id, end, ok := p.idAt(i + 1)
		if ok && end < len(p.s) && (p.s[end] == ')' || p.s[end] == ']') {
			ids = append(ids, id)
		}
	}
	return ids
}

// 7. The output contains an option's text.
func (p *choiceParser) containedText() []string {
	out := " " + normText(string(p.s)) + " "
	type hit struct{ id, text string }
	var hits []hit
	for _, ch := range p.choices {
		if t := normText(ch.Text); t != "" && strings.Contains(out, t) {
			hits = append(hits, hit{ch.ID, t})
		}
	}
	var ids []string
	for _, h := range hits {
		inner := false
		for _, o := range hits {
			if o.id != h.id && len(o.text) > len(h.text) && strings.Contains(o.text, h.text) {
				inner = true
			}
		}
		if !inner {
			ids = append(ids, h.id)
		}
	}
	return ids
}

// notAfterArticle are the lowercase words after which a standalone "A"
// names an option rather than being the article ("A or B", "A is right").
var notAfterArticle = map[string]bool{
	"or": true, "and": true, "nor": true, "but": true, "is": true, "was": true, "seems": true,
	"fits": true, "matches": true, "because": true, "since": true, "as": true, "would": true,
	"should": true, "could": true, "might": true, "must": true, "best": true, "describes": true,
	"correct": true, "right": true, "wrong": true, "appears": true, "looks": true, "then": true,
}

// articleAt reports whether the capital letter ending at end is used as a
// word: it is followed by a space and a lowercase word that is not on the
// notAfterArticle list ("A few", "I think").
func (p *choiceParser) articleAt(end int) bool {
	if end+1 >= len(p.s) || p.s[end] != ' ' || !unicode.IsLower(p.s[end+1]) {
		return false
	}
	j := end + 1
	for j < len(p.s) && unicode.IsLetter(p.s[j]) {
		j++
	}
	return !notAfterArticle[string(p.s[end+1:j])]
}

// 8. Standalone capital ids.
func (p *choiceParser) bare() []string {
	var ids []string
	for i := range p.s {
		if !unicode.IsUpper(p.s[i]) {
			continue
		}
		id, end, ok := p.idAt(i)
		if !ok || strings.ToUpper(string(p.s[i:end])) != string(p.s[i:end]) {
			continue
		}
		if (id == "A" || id == "I") && p.articleAt(end) {
			continue // the article or the pronoun
		}
		ids = append(ids, id)
	}
	return ids
}
