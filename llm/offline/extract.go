package offline

import (
	"context"
	"fmt"
	"github.com/memlab/memlab/component"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/text"
)

// Extractive defaults.
const (
	DefaultSummarySentences = 3
	DefaultKeywords         = 10
	DefaultPhraseWords      = 3
)

// ExtractOptions sets up NewExtractive. Zero values mean the defaults.
type ExtractOptions struct {
	// SummarySentences is the most sentences a summary keeps (default 3).
	SummarySentences int
	// Keywords is the most keyphrases returned (default 10).
	Keywords int
	// PhraseWords is the most words of an English keyphrase (default 3);
	// longer stopword-free runs are cut into pieces of this size.
	PhraseWords int
	// Corpus, when set, fits the idf used by the summary's sentence scores
	// and the keyphrase scores on these texts (one document each). Without
	// it the idf comes from the sentences of the text being processed.
	Corpus []string
}

// Extractive is the offline stand-in for an extraction model (CloneMem's
// index expansion): it copies text out of the trace instead of writing new
// text. Kinds (llm.Extract*):
//
//   - summary: one item, the SummarySentences most central sentences in
//     their original order. A sentence's centrality is its mean cosine
//     similarity to the other sentences, over TF-IDF vectors of content
//     words (sublinear tf; idf from Corpus when given, else with each
//     sentence of the text as a document); ties go to the earlier sentence.
//   - keywords: up to Keywords keyphrases, lowercased, best first. The
//     candidates are RAKE's, taken from the sentences of facts (so without
//     speaker labels): runs of words between punctuation and
//     stopwords (English) or between punctuation and function characters
//     such as 的, 了, 是 (Chinese, where runs of 2-4 characters are
//     candidates and longer runs give their character bigrams). Each word
//     scores degree/frequency; a phrase scores the sum of its words' scores
//     times 1 + ln(its count), times the mean idf of its words when Corpus
//     is set. A phrase contained in a better one is skipped.
//   - facts: one item per sentence that has a content word (see
//     splitSentences: list bullets, markdown emphasis and speaker labels
//     such as "**Anna:**" removed), in order, exact repeats dropped.
//
// An Extractive is safe for concurrent use.
type Extractive struct {
	opts  ExtractOptions
	n     int                // corpus documents, 0 without corpus
	df    map[string]int     // corpus document frequencies
	idfs  map[string]float64 // corpus idf cache
	name  string
	spec  component.Spec
	known []string
}

// NewExtractive returns an extractive extractor. Negative counts are
// treated as the defaults.
func NewExtractive(opts ExtractOptions) *Extractive {
	if opts.SummarySentences <= 0 {
		opts.SummarySentences = DefaultSummarySentences
	}
	if opts.Keywords <= 0 {
		opts.Keywords = DefaultKeywords
	}
	if opts.PhraseWords <= 0 {
		opts.PhraseWords = DefaultPhraseWords
	}
	e := &Extractive{opts: opts, known: []string{llm.ExtractSummary, llm.ExtractKeywords, llm.ExtractFacts}}
	idfSource := "text"
	if len(opts.Corpus) > 0 {
		e.n = len(opts.Corpus)
		e.df = map[string]int{}
		seen := map[string]bool{}
		for _, t := range opts.Corpus {
			clear(seen)
			for _, w := range text.ContentTokens(t) {
				if !seen[w] {
					seen[w] = true
					e.df[w]++
				}
			}
		}
		idfSource = fmt.Sprintf("corpus/%d", e.n)
	}
	corpusHash := ""
	if len(opts.Corpus) > 0 {
		corpusHash = HashTexts(opts.Corpus)
	}
	e.opts.Corpus = nil // not kept
	e.spec = component.New("extractive-extractor").With("summary_sentences", opts.SummarySentences).
		With("keywords", opts.Keywords).With("phrase_words", opts.PhraseWords).With("idf", idfSource).With("idf_texts", corpusHash)
	e.name = fmt.Sprintf("extractive(summary=%d,keywords=%d,phrase=%d,idf=%s)",
		opts.SummarySentences, opts.Keywords, opts.PhraseWords, idfSource)
	return e
}

// Name identifies the extractor and its settings, e.g.
// "extractive(summary=3,keywords=10,phrase=3,idf=text)".
func (e *Extractive) Name() string { return e.name }

// Spec is the extractor's component spec: its settings and the corpus its
// idf comes from (its size, "text" without one, and the hash of its
// texts, HashTexts).
func (e *Extractive) Spec() component.Spec { return e.spec }

// Extract returns the items of kind (llm.ExtractSummary, llm.ExtractKeywords
// or llm.ExtractFacts) for text; a text without content words gives no
// items. An unknown kind is an error.
func (e *Extractive) Extract(ctx context.Context, kind, text string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("offline: extract %s: %w", kind, err)
	}
	switch kind {
	case llm.ExtractSummary:
		return e.summary(text), nil
	case llm.ExtractKeywords:
		return e.keywords(text), nil
	case llm.ExtractFacts:
		return facts(text), nil
	}
	return nil, fmt.Errorf("offline: extract: unknown kind %q (known: %s)", kind, strings.Join(e.known, ", "))
}

// facts returns the sentences of text that have a content word, in order,
// without exact repeats.
func facts(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range splitSentences(text) {
		if !hasContent(s) || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// idfFunc returns the idf of a word: from the corpus when there is one, else
// from the given documents.
func (e *Extractive) idfFunc(docs [][]string) func(string) float64 {
	if e.df != nil {
		return func(w string) float64 { return idf(e.n, e.df[w]) }
	}
	df := map[string]int{}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, w := range d {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	return func(w string) float64 { return idf(len(docs), df[w]) }
}

// summary returns the most central sentences of doc, in order, as one item.
func (e *Extractive) summary(doc string) []string {
	var sents []string
	var docs [][]string
	for _, s := range splitSentences(doc) {
		if toks := text.ContentTokens(s); len(toks) > 0 {
			sents = append(sents, s)
			docs = append(docs, toks)
		}
	}
	if len(sents) == 0 {
		return nil
	}
	keep := make([]int, 0, len(sents))
	if len(sents) <= e.opts.SummarySentences {
		for i := range sents {
			keep = append(keep, i)
		}
	} else {
		idfOf := e.idfFunc(docs)
		vecs := make([]map[string]float64, len(docs))
		for i, d := range docs {
			vecs[i] = tfidfVector(d, idfOf)
		}
		score := make([]float64, len(sents))
		for i := range vecs {
			for j := i + 1; j < len(vecs); j++ {
				c := dotSparse(vecs[i], vecs[j])
				score[i] += c
				score[j] += c
			}
		}
		order := make([]int, len(sents))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return score[order[a]] > score[order[b]] })
		keep = append(keep, order[:e.opts.SummarySentences]...)
		slices.Sort(keep)
	}
	var b strings.Builder
	for _, i := range keep {
		if b.Len() > 0 {
			last, _ := utf8.DecodeLastRuneInString(b.String())
			if !isCJK(last) && !strings.ContainsRune("。！？…」』）", last) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(sents[i])
	}
	return []string{b.String()}
}

// tfidfVector returns the L2-normalised sublinear TF-IDF vector of toks.
func tfidfVector(toks []string, idfOf func(string) float64) map[string]float64 {
	tf := map[string]int{}
	for _, w := range toks {
		tf[w]++
	}
	v := make(map[string]float64, len(tf))
	var s float64
	for w, c := range tf {
		x := sublinear(c) * idfOf(w)
		v[w] = x
		s += x * x
	}
	s = math.Sqrt(s)
	for w := range v {
		v[w] /= s
	}
	return v
}

// dotSparse returns the dot product of two sparse vectors.
func dotSparse(a, b map[string]float64) float64 {
	if len(a) > len(b) {
		a, b = b, a
	}
	var s float64
	for w, x := range a {
		s += x * b[w]
	}
	return s
}

// cjkStop are Chinese function characters that end a keyphrase candidate.
var cjkStop = map[rune]bool{}

func init() {
	for _, r := range "的了是在和与及也都就而我你他她它们这那有个一不很吗呢吧啊着过把被让给对从到为上下中里又还之其或并但所以" {
		cjkStop[r] = true
	}
}

// phrase is one keyphrase candidate: its text and its words.
type phrase struct {
	text  string
	words []string
}

// candidates returns the RAKE candidates of doc, in order.
func (e *Extractive) candidates(doc string) []phrase {
	var out []phrase
	var latin []string // current run of English words
	flush := func() {
		for len(latin) > 0 {
			n := min(len(latin), e.opts.PhraseWords)
			ws := slices.Clone(latin[:n])
			out = append(out, phrase{strings.Join(ws, " "), ws})
			latin = latin[n:]
		}
		latin = nil
	}
	var cjk []rune // current run of CJK characters
	flushCJK := func() {
		switch {
		case len(cjk) >= 2 && len(cjk) <= 4:
			ws := make([]string, len(cjk))
			for i, r := range cjk {
				ws[i] = string(r)
			}
			out = append(out, phrase{string(cjk), ws})
		case len(cjk) > 4:
			for i := 0; i+1 < len(cjk); i++ {
				out = append(out, phrase{string(cjk[i : i+2]), []string{string(cjk[i]), string(cjk[i+1])}})
			}
		}
		cjk = cjk[:0]
	}
	// Walk the text in word runs, punctuation and CJK characters.
	for i := 0; i < len(doc); {
		r, n := utf8.DecodeRuneInString(doc[i:])
		switch {
		case isCJK(r):
			flush()
			if cjkStop[r] {
				flushCJK()
			} else {
				cjk = append(cjk, r)
			}
			i += n
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushCJK()
			j := i
			for j < len(doc) {
				c, cn := utf8.DecodeRuneInString(doc[j:])
				if (c == '.' || c == ',') && j > i && isDigitAt(doc, j-1) && isDigitAt(doc, j+1) {
					j++ // "3.5", "1,000"
					continue
				}
				if isCJK(c) || !(unicode.IsLetter(c) || unicode.IsDigit(c) || unicode.IsMark(c) || c == '\'' || c == '’') {
					break
				}
				j += cn
			}
			for _, w := range strings.Fields(numberWords(doc[i:j])) {
				if text.IsStopword(w) {
					flush()
					continue
				}
				if strings.HasSuffix(w, "'s") {
					w = w[:len(w)-2]
				}
				latin = append(latin, w)
			}
			i = j
		case unicode.IsSpace(r) || r == '-':
			flushCJK()
			i += n
		default: // punctuation and symbols end a phrase
			flush()
			flushCJK()
			i += n
		}
	}
	flush()
	flushCJK()
	return out
}

// keywords returns the best RAKE keyphrases of doc.
func (e *Extractive) keywords(doc string) []string {
	var cands []phrase
	for _, s := range splitSentences(doc) { // without bullets and speaker labels
		cands = append(cands, e.candidates(s)...)
	}
	if len(cands) == 0 {
		return nil
	}
	freq, deg := map[string]float64{}, map[string]float64{}
	count := map[string]int{}
	first := map[string]int{}
	var uniq []phrase
	for i, c := range cands {
		for _, w := range c.words {
			freq[w]++
			deg[w] += float64(len(c.words))
		}
		if _, ok := count[c.text]; !ok {
			first[c.text] = i
			uniq = append(uniq, c)
		}
		count[c.text]++
	}
	var idfOf func(string) float64
	if e.df != nil {
		idfOf = e.idfFunc(nil)
	}
	score := make(map[string]float64, len(uniq))
	for _, c := range uniq {
		var s, idfSum float64
		for _, w := range c.words {
			s += deg[w] / freq[w]
		}
		s *= 1 + math.Log(float64(count[c.text]))
		if idfOf != nil {
			// CJK words are single characters: score the phrase's tokens.
			toks := text.Tokens(c.text)
			for _, t := range toks {
				idfSum += idfOf(t)
			}
			s *= idfSum / float64(max(len(toks), 1))
		}
		score[c.text] = s
	}
	sort.SliceStable(uniq, func(a, b int) bool {
		sa, sb := score[uniq[a].text], score[uniq[b].text]
		if sa != sb {
			return sa > sb
		}
		return first[uniq[a].text] < first[uniq[b].text]
	})
	var out []string
	for _, c := range uniq {
		if len(out) == e.opts.Keywords {
			break
		}
		if slices.ContainsFunc(out, func(s string) bool { return strings.Contains(s, c.text) }) {
			continue
		}
		if !hasContent(c.text) {
			continue
		}
		out = append(out, c.text)
	}
	return out
}

// isDigitAt reports whether text[i] is an ASCII digit.
func isDigitAt(text string, i int) bool {
	return i >= 0 && i < len(text) && text[i] >= '0' && text[i] <= '9'
}

// numberWords returns the tokens of a word run joined by spaces, keeping a
// number such as "3.5" or "1,000" whole.
func numberWords(run string) string {
	var b strings.Builder
	for _, f := range strings.FieldsFunc(run, func(r rune) bool {
		return r != '.' && r != ',' && !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) && r != '\'' && r != '’'
	}) {
		if strings.Trim(f, "0123456789.,") == "" {
			b.WriteString(f)
		} else {
			b.WriteString(strings.Join(text.Tokens(f), " "))
		}
		b.WriteByte(' ')
	}
	return b.String()
}
