package offline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/memlab/memlab/component"
	"slices"

	"github.com/memlab/memlab/text"
)

// Hashed TF-IDF defaults.
const (
	DefaultHashedDims = 1024
	DefaultCharMin    = 3
	DefaultCharMax    = 5
)

// HashedOptions sets up FitHashedTFIDF. Zero values mean the defaults.
type HashedOptions struct {
	// Dims is the number of hash buckets, the vector length (default 1024).
	Dims int
	// CharMin and CharMax bound the length in runes of the character
	// n-grams taken from each word wrapped in '<' and '>' (default 3 and 5).
	CharMin, CharMax int
	// NoChars uses the words alone, without character n-grams.
	NoChars bool
	// DropUnseen drops features never seen in the corpus when embedding; by
	// default they get the largest idf, ln(1+N) + 1, as a word of document
	// frequency 0.
	DropUnseen bool
}

// feature namespaces, so that the word "abc" and the n-gram "abc" differ.
const (
	nsWord = 'w'
	nsChar = 'c'
)

// HashedTFIDF is a TF-IDF embedder whose features are hashed into a fixed
// number of buckets (the hashing trick): the content words of a text (see
// text.ContentTokens; CJK text gives character bigrams) and the
// character n-grams of each word wrapped in '<' and '>' ("<cat>" gives "<ca",
// "cat", "at>", "<cat", ...). Each feature f has weight (1 + ln tf)·idf(f),
// with the smoothed idf ln((1+N)/(1+df)) + 1 fitted per feature (keyed by its
// 64-bit hash, so the idf is not blurred by bucket collisions). The feature
// is added to bucket h mod Dims with the sign of the hash's top bit, so
// colliding features cancel on average instead of piling up. The word part
// and the n-gram part are each L2-normalised, summed (they count equally),
// and the result is L2-normalised again. A text without any content word
// embeds to the zero vector. A HashedTFIDF is safe for concurrent use.
type HashedTFIDF struct {
	dims             int
	charMin, charMax int
	noChars, drop    bool
	n                int
	idf              map[uint64]float32
	maxIDF           float32
	name             string
	spec             component.Spec
	// A prefix of a HashedCorpus keeps its idf by feature id instead:
	// ids (the corpus's, shared) and idfByID (0 = not in the prefix).
	ids     map[uint64]int32
	idfByID []float32
}

// weight returns the idf of feature h, false when h was not in the
// documents fitted on.
func (m *HashedTFIDF) weight(h uint64) (float32, bool) {
	if m.ids != nil {
		if id, ok := m.ids[h]; ok && m.idfByID[id] != 0 {
			return m.idfByID[id], true
		}
		return 0, false
	}
	w, ok := m.idf[h]
	return w, ok
}

// FitHashedTFIDF fits the idf of a hashed TF-IDF embedder on texts (one
// document each). An empty corpus is an error.
func FitHashedTFIDF(texts []string, opts HashedOptions) (*HashedTFIDF, error) {
	return FitHashedTFIDFContext(context.Background(), texts, opts)
}

// FitHashedTFIDFContext is FitHashedTFIDF that stops with ctx's error when
// ctx ends.
func FitHashedTFIDFContext(ctx context.Context, texts []string, opts HashedOptions) (*HashedTFIDF, error) {
	m, err := newHashed(opts)
	if err != nil {
		return nil, err
	}
	if len(texts) == 0 {
		return nil, fmt.Errorf("offline: fit hashed tf-idf: empty corpus: no texts to fit on")
	}
	df := map[uint64]int32{}
	var f featureBuf
	for i, t := range texts {
		if err := checkCtx(ctx, i); err != nil {
			return nil, fmt.Errorf("offline: fit hashed tf-idf: %w", err)
		}
		m.features(&f, t)
		for _, part := range [][]feature{f.words, f.chars} {
			for _, x := range part {
				df[x.h]++
			}
		}
	}
	fit, err := m.fitted(len(texts), df)
	if err != nil {
		return nil, err
	}
	fit.spec = fit.spec.With("fit_texts", HashTexts(texts))
	return fit, nil
}

// newHashed validates opts and returns an unfitted model with them.
func newHashed(opts HashedOptions) (*HashedTFIDF, error) {
	m := &HashedTFIDF{dims: opts.Dims, charMin: opts.CharMin, charMax: opts.CharMax, noChars: opts.NoChars, drop: opts.DropUnseen}
	if m.dims == 0 {
		m.dims = DefaultHashedDims
	}
	if m.charMin == 0 && m.charMax == 0 {
		m.charMin, m.charMax = DefaultCharMin, DefaultCharMax
	}
	switch {
	case m.dims < 0:
		return nil, fmt.Errorf("offline: fit hashed tf-idf: Dims = %d, want > 0", opts.Dims)
	case !m.noChars && (m.charMin < 1 || m.charMax < m.charMin):
		return nil, fmt.Errorf("offline: fit hashed tf-idf: CharMin = %d, CharMax = %d, want 1 ≤ CharMin ≤ CharMax", opts.CharMin, opts.CharMax)
	}
	return m, nil
}

// fitted returns a copy of m's settings fitted with the document
// frequencies df of n documents.
func (m *HashedTFIDF) fitted(n int, df map[uint64]int32) (*HashedTFIDF, error) {
	if len(df) == 0 {
		return nil, fmt.Errorf("offline: fit hashed tf-idf: no content word in any of the %d texts", n)
	}
	f := m.settings(n)
	f.idf = make(map[uint64]float32, len(df))
	for h, c := range df {
		f.idf[h] = float32(idf(n, int(c)))
	}
	return f, nil
}

// settings returns a model with m's settings, fitted on n documents, its
// name set and its idf still empty.
func (m *HashedTFIDF) settings(n int) *HashedTFIDF {
	f := &HashedTFIDF{dims: m.dims, charMin: m.charMin, charMax: m.charMax, noChars: m.noChars, drop: m.drop, n: n}
	f.maxIDF = float32(idf(n, 0))
	unseen := "maxidf"
	if f.drop {
		unseen = "drop"
	}
	f.spec = component.New("hashed-tfidf").With("dims", f.dims).With("chars", !f.noChars).With("unseen", unseen).With("docs", n)
	if !f.noChars {
		f.spec = f.spec.With("char_min", f.charMin).With("char_max", f.charMax)
	}
	if f.noChars {
		f.name = fmt.Sprintf("hashed-tfidf(d=%d,char=none,unseen=%s,docs=%d)", f.dims, unseen, n)
	} else {
		f.name = fmt.Sprintf("hashed-tfidf(d=%d,char=%d-%d,unseen=%s,docs=%d)", f.dims, f.charMin, f.charMax, unseen, n)
	}
	return f
}

// HashedCorpus is hashed TF-IDF over a corpus that grows in order, for
// statistics fitted on a prefix (strict temporal mode: the documents
// admitted at a question's time). Each document's features are computed
// once, when added, and numbered; Prefix(n) then gives the embedder fitted
// on the first n documents and their vectors, exactly (bit for bit) what
// FitHashedTFIDF of those n texts and its Embed of them give, for the cost
// of the arithmetic alone. Prefixes asked in growing order update the
// document frequencies incrementally. A HashedCorpus is not safe for
// concurrent use, and Add must not be called while the embedder of a
// prefix is in use (they share the feature numbering).
type HashedCorpus struct {
	m       *HashedTFIDF     // settings
	ids     map[uint64]int32 // feature hash -> id
	hashes  []uint64         // by id
	words   [][]idFeature    // per document, in hash order
	chars   [][]idFeature
	df      []int32 // by id, over the first counted documents
	counted int
}

// idFeature is a feature of a document by id, with its count.
type idFeature struct{ id, tf int32 }

// NewHashedCorpus returns an empty corpus with the settings of opts.
func NewHashedCorpus(opts HashedOptions) (*HashedCorpus, error) {
	m, err := newHashed(opts)
	if err != nil {
		return nil, err
	}
	return &HashedCorpus{m: m, ids: map[uint64]int32{}}, nil
}

// Add appends documents.
func (c *HashedCorpus) Add(ctx context.Context, texts []string) error {
	var f featureBuf
	conv := func(fs []feature) []idFeature {
		out := make([]idFeature, len(fs))
		for i, x := range fs {
			id, ok := c.ids[x.h]
			if !ok {
				id = int32(len(c.hashes))
				c.ids[x.h] = id
				c.hashes = append(c.hashes, x.h)
				c.df = append(c.df, 0)
			}
			out[i] = idFeature{id, int32(x.tf)}
		}
		return out
	}
	for i, t := range texts {
		if err := checkCtx(ctx, i); err != nil {
			return fmt.Errorf("offline: hashed corpus add: %w", err)
		}
		c.m.features(&f, t)
		c.words = append(c.words, conv(f.words))
		c.chars = append(c.chars, conv(f.chars))
	}
	return nil
}

// Len returns the number of documents.
func (c *HashedCorpus) Len() int { return len(c.words) }

// Prefix returns the embedder fitted on the first n documents (0 < n <=
// Len()) and their vectors.
func (c *HashedCorpus) Prefix(ctx context.Context, n int) (*HashedTFIDF, [][]float32, error) {
	if n <= 0 || n > len(c.words) {
		return nil, nil, fmt.Errorf("offline: hashed corpus prefix: n = %d, want 1..%d", n, len(c.words))
	}
	if n < c.counted { // an earlier prefix: count again
		clear(c.df)
		c.counted = 0
	}
	for ; c.counted < n; c.counted++ {
		if err := checkCtx(ctx, c.counted); err != nil {
			return nil, nil, fmt.Errorf("offline: hashed corpus prefix: %w", err)
		}
		for _, part := range [][]idFeature{c.words[c.counted], c.chars[c.counted]} {
			for _, x := range part {
				c.df[x.id]++
			}
		}
	}
	m := c.m.settings(n)
	m.ids = c.ids
	m.idfByID = make([]float32, len(c.df))
	seen := false
	for id, d := range c.df {
		if d > 0 {
			m.idfByID[id] = float32(idf(n, int(d)))
			seen = true
		}
	}
	if !seen {
		return nil, nil, fmt.Errorf("offline: fit hashed tf-idf: no content word in any of the %d texts", n)
	}
	out := make([][]float32, n)
	acc := make([]float64, m.dims)
	part := make([]float64, m.dims)
	dims := uint64(m.dims)
	for i := range n {
		if err := checkCtx(ctx, i); err != nil {
			return nil, nil, fmt.Errorf("offline: hashed corpus prefix: %w", err)
		}
		// as vector, with every weight known: each feature is in the prefix
		clear(acc)
		for _, fs := range [][]idFeature{c.words[i], c.chars[i]} {
			clear(part)
			for _, x := range fs {
				h := c.hashes[x.id]
				v := sublinear(int(x.tf)) * float64(m.idfByID[x.id])
				if h>>63 != 0 {
					v = -v
				}
				part[h%dims] += v
			}
			normalize(part)
			for j, v := range part {
				acc[j] += v
			}
		}
		normalize(acc)
		out[i] = toFloat32(acc)
	}
	return m, out, nil
}

// feature is one distinct hashed feature of a text and its count.
type feature struct {
	h  uint64
	tf int
}

// featureBuf holds the scratch space of features.
type featureBuf struct {
	hashes []uint64
	runes  []rune
	words  []feature
	chars  []feature
}

// features fills f.words and f.chars with the distinct features of doc,
// sorted by hash, with their counts.
func (m *HashedTFIDF) features(f *featureBuf, doc string) {
	toks := text.ContentTokens(doc)
	f.hashes = f.hashes[:0]
	for _, w := range toks {
		f.hashes = append(f.hashes, mix(fnvString(fnvRune(fnvOffset, nsWord), w)))
	}
	f.words = runs(f.words[:0], f.hashes)
	f.chars = f.chars[:0]
	if m.noChars {
		return
	}
	f.hashes = f.hashes[:0]
	for _, w := range toks {
		f.runes = append(f.runes[:0], '<')
		for _, r := range w {
			f.runes = append(f.runes, r)
		}
		f.runes = append(f.runes, '>')
		rs := f.runes
		for i := range rs {
			h := fnvRune(fnvOffset, nsChar)
			for j := i; j < len(rs) && j-i < m.charMax; j++ {
				h = fnvRune(h, rs[j])
				if j-i+1 >= m.charMin {
					f.hashes = append(f.hashes, mix(h))
				}
			}
		}
	}
	f.chars = runs(f.chars, f.hashes)
}

// runs sorts hs and appends its distinct values with their counts to out.
func runs(out []feature, hs []uint64) []feature {
	slices.Sort(hs)
	for p := 0; p < len(hs); {
		q := p
		for q < len(hs) && hs[q] == hs[p] {
			q++
		}
		out = append(out, feature{hs[p], q - p})
		p = q
	}
	return out
}

// Name identifies the embedder and its settings, e.g.
// "hashed-tfidf(d=1024,char=3-5,unseen=maxidf,docs=6644)".
func (m *HashedTFIDF) Name() string { return m.name }

// HashTexts is the first 16 hex digits of the SHA-256 of texts (each
// followed by a zero byte): the identity of what a model was fitted on, in
// its spec.
func HashTexts(texts []string) string {
	h := sha256.New()
	for _, t := range texts {
		h.Write([]byte(t))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Spec is the embedder's component spec: its settings, the number of
// documents its idf was fitted on and the hash of their texts (HashTexts;
// absent for a prefix of a HashedCorpus, which its owner describes).
func (m *HashedTFIDF) Spec() component.Spec { return m.spec }

// Dims returns the vector length (the number of buckets).
func (m *HashedTFIDF) Dims() int { return m.dims }

// Embed returns one L2-normalised vector of Dims() values per text.
func (m *HashedTFIDF) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var f featureBuf
	acc := make([]float64, m.dims)
	part := make([]float64, m.dims)
	for i, t := range texts {
		if err := checkCtx(ctx, i); err != nil {
			return nil, fmt.Errorf("offline: hashed tf-idf embed: %w", err)
		}
		m.features(&f, t)
		out[i] = m.vector(f.words, f.chars, acc, part)
	}
	return out, nil
}

// vector is the embedding of a text's features; acc and part are scratch
// space of Dims() values.
func (m *HashedTFIDF) vector(words, chars []feature, acc, part []float64) []float32 {
	clear(acc)
	for _, fs := range [][]feature{words, chars} {
		clear(part)
		for _, x := range fs {
			w, ok := m.weight(x.h)
			if !ok {
				if m.drop {
					continue
				}
				w = m.maxIDF
			}
			v := sublinear(x.tf) * float64(w)
			if x.h>>63 != 0 {
				v = -v
			}
			part[x.h%uint64(m.dims)] += v
		}
		normalize(part)
		for j, v := range part {
			acc[j] += v
		}
	}
	normalize(acc)
	return toFloat32(acc)
}
