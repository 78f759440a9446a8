package generate

import (
	"context"
	"fmt"
	"github.com/memlab/memlab/component"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/text"
)

// NameExtractive is the Name of the Extractive reader.
const NameExtractive = "extractive (offline)"

// Default settings of NewExtractive. DefaultThreshold and DefaultMargin were
// chosen on the hand-written cases of extractive_test.go (TestTuneDefaults
// prints the grid), not on benchmark data.
const (
	DefaultThreshold = 0.5
	DefaultMargin    = 0.1
	DefaultSentences = 2
	DefaultPassages  = 3
)

// Extractive is the offline extractive reader (Name "extractive (offline)"):
// it uses no model, only the words of the question, the options and the
// passages. Its scores are a lexical baseline and must be labelled as
// offline wherever they are shown.
//
// # Terms and weights
//
// Texts are reduced to sets of terms: text.ContentTokens, with English
// words lightly stemmed (plural s, -ies, -ing, -ed, -ly, a doubled final
// consonant and a final e are removed, so "finished", "finishing" and
// "finish" meet; Chinese bigrams are kept as they are). With n passages and
// df(w) the number of passages containing term w,
//
//	idf(w) = ln(1 + (n + 1) / (df(w) + 1))
//
// which is positive and decreasing in df: a term found in no passage weighs
// most, but (unlike ln(N/df)) not so much that one missing word outweighs
// several present ones.
//
// # Multiple choice
//
// With Q the question's terms, the passages most relevant to the question
// are the Passages ones with the highest rel(p) = Σ_{w ∈ Q ∩ p} idf(w) > 0
// (ties in rank order; all passages when Passages <= 0; the first Passages
// passages when Q is empty); T is the union of their terms. Each option o
// except the "cannot be determined" one (CannotDetermine) gets
//
//	O          = terms(o) \ Q \ C
//	support(o) = Σ_{w ∈ O ∩ T} idf(w) / Σ_{w ∈ O} idf(w)   (0 when O is empty)
//
// where C is the set of terms shared by every scored option (when there are
// two or more): words the options repeat from the question or from each
// other ("because", 因为) prove nothing. When O is empty it falls back to
// terms(o) \ Q, then to terms(o).
//
// The option with the highest support wins (ties in option order) unless
// support < Threshold or it leads the second best by less than Margin; then
// the reader answers the "cannot be determined" option and sets Abstained.
// Without such an option it answers the best option if its support is
// positive and abstains with an empty Choice otherwise. Answer.Support is
// the best option's support and Answer.Raw lists every option's support.
//
// # A memory's abstention signal
//
// When the passages hold a memory's state summary (a Passage of Kind
// KindState, as memlab's timeline memory gives) and Signal is SignalFollow
// (the default), the "cannot be determined" choice follows the memory's
// decision instead of the support rule: Undetermined gives that option
// (Abstained), and otherwise the best other option is chosen whatever its
// support (when no option has any support, the support rule applies).
// SignalIgnore keeps the support rule. The summary passage is never part
// of the passages scored above, and free-text answers ignore it.
//
// # Free text
//
// Passages are split into sentences (at . ! ? followed by a space or the
// end, at 。！？ and at newlines). A sentence's score is Σ_{w ∈ Q ∩ s}
// idf(w), with idf over the passages as above. The Sentences best sentences
// with a positive score (ties in passage order; repeated sentences once)
// are returned in passage order, joined by a space, with the trace ids of
// their passages. Answer.Support is the best score divided by Σ_{w ∈ Q}
// idf(w). With no sentence sharing a term with the question the reader
// abstains with an empty Text.
type Extractive struct {
	// Threshold is the minimum support of a chosen option, in [0, 1].
	Threshold float64
	// Margin is the minimum lead of the best option over the second, >= 0.
	Margin float64
	// Sentences is the number of sentences of a free-text answer (<= 0 means 1).
	Sentences int
	// Passages is the number of most relevant passages used for multiple
	// choice (<= 0 means all).
	Passages int
	// Signal says what a memory's abstention signal does to the "cannot
	// be determined" choice: SignalFollow ("" too) or SignalIgnore.
	Signal string
}

// Values of Extractive.Signal.
const (
	SignalFollow = "follow" // the "cannot be determined" choice follows the memory's decision
	SignalIgnore = "ignore" // the support rule decides, whatever the memory says
)

// NewExtractive returns an Extractive reader with the default settings.
func NewExtractive() Extractive {
	return Extractive{Threshold: DefaultThreshold, Margin: DefaultMargin, Sentences: DefaultSentences, Passages: DefaultPassages}
}

// Name returns "extractive (offline)".
func (e Extractive) Name() string { return NameExtractive }

// Spec is the reader's component spec: its settings (Sentences <= 0 as 1,
// Passages <= 0 as 0, all; Signal only when it is not SignalFollow, the
// behaviour of readers made before it existed on passages without a
// state summary).
func (e Extractive) Spec() component.Spec {
	s := component.New("extractive-reader").With("threshold", e.Threshold).With("margin", e.Margin).
		With("sentences", max(e.Sentences, 1)).With("passages", max(e.Passages, 0))
	if e.Signal != "" && e.Signal != SignalFollow {
		s = s.With("signal", e.Signal)
	}
	return s
}

// Answer answers q from passages (see Extractive). It fails only on invalid
// settings or a cancelled ctx.
func (e Extractive) Answer(ctx context.Context, q datasets.Question, passages []Passage) (Answer, error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, fmt.Errorf("generate: extractive answer %q: %w", q.ID, err)
	}
	if math.IsNaN(e.Threshold) || e.Threshold < 0 || e.Threshold > 1 {
		return Answer{}, fmt.Errorf("generate: extractive answer %q: threshold = %v, want a value in [0, 1]", q.ID, e.Threshold)
	}
	if math.IsNaN(e.Margin) || e.Margin < 0 {
		return Answer{}, fmt.Errorf("generate: extractive answer %q: margin = %v, want a value >= 0", q.ID, e.Margin)
	}
	if e.Signal != "" && e.Signal != SignalFollow && e.Signal != SignalIgnore {
		return Answer{}, fmt.Errorf("generate: extractive answer %q: signal = %q, want %q or %q", q.ID, e.Signal, SignalFollow, SignalIgnore)
	}
	evidence, state := StateOf(passages)
	c := newCorpusStats(evidence)
	if len(q.Choices) > 0 {
		if e.Signal == SignalIgnore {
			state = nil
		}
		return e.choose(q, c, state), nil
	}
	return e.extract(ctx, q, c)
}

// corpusStats holds the term sets of the passages and their idf.
type corpusStats struct {
	passages []Passage
	terms    []map[string]bool
	df       map[string]int
}

func newCorpusStats(ps []Passage) *corpusStats {
	c := &corpusStats{passages: ps, terms: make([]map[string]bool, len(ps)), df: map[string]int{}}
	for i, p := range ps {
		c.terms[i] = termSet(p.Text)
		for w := range c.terms[i] {
			c.df[w]++
		}
	}
	return c
}

func (c *corpusStats) idf(w string) float64 {
	return math.Log(1 + float64(len(c.passages)+1)/(float64(c.df[w])+1))
}

// weight returns Σ idf(w) over the terms of set that are in within (all of
// set when within is nil).
func (c *corpusStats) weight(set, within map[string]bool) float64 {
	var s float64
	for _, w := range slices.Sorted(maps.Keys(set)) { // fixed order: reproducible sums
		if within == nil || within[w] {
			s += c.idf(w)
		}
	}
	return s
}

func (e Extractive) choose(q datasets.Question, c *corpusStats, state *Passage) Answer {
	qt := termSet(q.Text)
	// The passages most relevant to the question.
	type relP struct {
		i   int
		rel float64
	}
	var rels []relP
	for i := range c.passages {
		r := c.weight(qt, c.terms[i])
		if len(qt) == 0 || r > 0 {
			rels = append(rels, relP{i, r})
		}
	}
	sort.SliceStable(rels, func(a, b int) bool { return rels[a].rel > rels[b].rel })
	if e.Passages > 0 && len(rels) > e.Passages {
		rels = rels[:e.Passages]
	}
	union := map[string]bool{}
	for _, r := range rels {
		for w := range c.terms[r.i] {
			union[w] = true
		}
	}

	cbd := CannotDetermine(q.Choices)
	// Terms shared by every scored option.
	var common map[string]bool
	scored := 0
	for _, ch := range q.Choices {
		if ch.ID == cbd {
			continue
		}
		scored++
		ts := termSet(ch.Text)
		if common == nil {
			common = ts
			continue
		}
		next := map[string]bool{}
		for w := range common {
			if ts[w] {
				next[w] = true
			}
		}
		common = next
	}
	if scored < 2 {
		common = nil
	}
	best, second := -1, -1
	supports := make([]float64, len(q.Choices))
	optTerms := make([]map[string]bool, len(q.Choices))
	var raw strings.Builder
	for i, ch := range q.Choices {
		if ch.ID == cbd {
			fmt.Fprintf(&raw, "%s=cannot-be-determined ", ch.ID)
			continue
		}
		all := termSet(ch.Text)
		o := minus(all, qt, common)
		if len(o) == 0 {
			o = minus(all, qt, nil)
		}
		if len(o) == 0 {
			o = all
		}
		optTerms[i] = o
		if tot := c.weight(o, nil); tot > 0 {
			supports[i] = c.weight(o, union) / tot
		}
		fmt.Fprintf(&raw, "%s=%.3f ", ch.ID, supports[i])
		switch {
		case best < 0 || supports[i] > supports[best]:
			best, second = i, best
		case second < 0 || supports[i] > supports[second]:
			second = i
		}
	}
	fmt.Fprintf(&raw, "(threshold %.2f, margin %.2f, %d relevant passages)", e.Threshold, e.Margin, len(rels))

	ans := Answer{Raw: strings.TrimSpace(raw.String())}
	if best < 0 { // only a cannot-be-determined option
		return e.abstain(ans, q.Choices, cbd)
	}
	ans.Support = supports[best]
	lead := supports[best]
	if second >= 0 {
		lead -= supports[second]
	}
	switch {
	case state != nil && state.Undetermined && cbd != "":
		ans.Raw += fmt.Sprintf(" memory: undetermined (score %.3f)", state.Score)
		return e.abstain(ans, q.Choices, cbd)
	case state != nil && supports[best] > 0:
		ans.Raw += fmt.Sprintf(" memory: determined (score %.3f)", state.Score)
	case supports[best] < e.Threshold || (second >= 0 && lead < e.Margin):
		if cbd != "" || supports[best] == 0 {
			return e.abstain(ans, q.Choices, cbd)
		}
	}
	ch := q.Choices[best]
	ans.Choice, ans.Text = ch.ID, ch.Text
	var rel []int
	for _, r := range rels {
		for w := range optTerms[best] {
			if c.terms[r.i][w] {
				rel = append(rel, r.i)
				break
			}
		}
	}
	sort.Ints(rel)
	ans.TraceIDs = traceIDs(c.passages, rel)
	return ans
}

func (e Extractive) abstain(ans Answer, choices []datasets.Choice, cbd string) Answer {
	ans.Abstained = true
	for _, ch := range choices {
		if ch.ID == cbd && cbd != "" {
			ans.Choice, ans.Text = ch.ID, ch.Text
		}
	}
	return ans
}

type sentence struct {
	passage int
	text    string
	score   float64
}

func (e Extractive) extract(ctx context.Context, q datasets.Question, c *corpusStats) (Answer, error) {
	qt := termSet(q.Text)
	var sents []sentence
	seen := map[string]bool{}
	for i, p := range c.passages {
		if err := ctx.Err(); err != nil {
			return Answer{}, fmt.Errorf("generate: extractive answer %q: %w", q.ID, err)
		}
		for _, s := range splitSentences(p.Text) {
			if seen[s] {
				continue
			}
			seen[s] = true
			if sc := c.weight(qt, termSet(s)); sc > 0 {
				sents = append(sents, sentence{passage: i, text: s, score: sc})
			}
		}
	}
	n := e.Sentences
	if n <= 0 {
		n = 1
	}
	order := make([]int, len(sents))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sents[order[a]].score > sents[order[b]].score })
	if len(order) > n {
		order = order[:n]
	}
	if len(order) == 0 {
		return Answer{Abstained: true, Raw: "no sentence shares a term with the question"}, nil
	}
	best := sents[order[0]].score
	sort.Ints(order) // back to passage order
	var texts, raw []string
	var ps []int
	for _, i := range order {
		texts = append(texts, sents[i].text)
		raw = append(raw, fmt.Sprintf("[%s %.3f] %s", c.passages[sents[i].passage].ID, sents[i].score, sents[i].text))
		ps = append(ps, sents[i].passage)
	}
	ans := Answer{Text: strings.Join(texts, " "), TraceIDs: traceIDs(c.passages, ps), Raw: strings.Join(raw, "\n")}
	if tot := c.weight(qt, nil); tot > 0 {
		ans.Support = best / tot
	}
	return ans, nil
}

// traceIDs returns the trace ids of the given passages, in order, without repeats.
func traceIDs(ps []Passage, idx []int) []string {
	seen := map[string]bool{}
	var out []string
	for _, i := range idx {
		for _, id := range ps[i].TraceIDs {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// splitSentences splits doc at . ! ? followed by a space, a closing quote
// or bracket, or the end; at 。！？; and at newlines. Pieces without a word
// are dropped.
func splitSentences(doc string) []string {
	rs := []rune(doc)
	var out []string
	start := 0
	flush := func(end int) {
		s := strings.TrimSpace(string(rs[start:end]))
		if len(text.Tokens(s)) > 0 {
			out = append(out, s)
		}
		start = end
	}
	for i, r := range rs {
		switch r {
		case '\n', '。', '！', '？':
			flush(i + 1)
		case '.', '!', '?':
			if i+1 == len(rs) || unicode.IsSpace(rs[i+1]) || strings.ContainsRune(`"'”’)]`, rs[i+1]) {
				flush(i + 1)
			}
		}
	}
	flush(len(rs))
	return out
}

// termSet returns the stemmed content tokens of s as a set.
func termSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, t := range text.ContentTokens(s) {
		set[stem(t)] = true
	}
	return set
}

// stem is a deliberately small English suffix stripper, applied to both
// sides of every comparison: -ies → y, then one of -ing, -ed, -ly, -s (not
// -ss), keeping a stem of at least 3 letters; then a doubled final
// consonant (other than l, s, z) is undoubled and a final e dropped.
// Non-ASCII and short words are unchanged.
func stem(w string) string {
	if len(w) < 4 {
		return w
	}
	for _, r := range w {
		if (r < 'a' || r > 'z') && r != '\'' {
			return w
		}
	}
	s := w
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 4:
		s = s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "ing") && len(s) >= 6:
		s = s[:len(s)-3]
	case strings.HasSuffix(s, "ed") && len(s) >= 5:
		s = s[:len(s)-2]
	case strings.HasSuffix(s, "ly") && len(s) >= 5:
		s = s[:len(s)-2]
	case strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") && len(s) >= 4:
		s = s[:len(s)-1]
	}
	if n := len(s); s != w && n >= 4 && s[n-1] == s[n-2] && !strings.ContainsRune("aeioulsz", rune(s[n-1])) {
		s = s[:n-1]
	}
	if n := len(s); n >= 4 && s[n-1] == 'e' {
		s = s[:n-1]
	}
	return s
}

// minus returns the terms of a that are in neither b nor c.
func minus(a, b, c map[string]bool) map[string]bool {
	out := map[string]bool{}
	for w := range a {
		if !b[w] && !c[w] {
			out[w] = true
		}
	}
	return out
}
