package offline

import (
	"context"
	"fmt"
	"slices"

	"github.com/memlab/memlab/retrieval/tokenize"
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
// tokenize.ContentTokens; CJK text gives character bigrams) and the
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
}

// FitHashedTFIDF fits the idf of a hashed TF-IDF embedder on texts (one
// document each). An empty corpus is an error.
func FitHashedTFIDF(texts []string, opts HashedOptions) (*HashedTFIDF, error) {
	return FitHashedTFIDFContext(context.Background(), texts, opts)
}

// FitHashedTFIDFContext is FitHashedTFIDF that stops with ctx's error when
// ctx ends.
func FitHashedTFIDFContext(ctx context.Context, texts []string, opts HashedOptions) (*HashedTFIDF, error) {
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
	case len(texts) == 0:
		return nil, fmt.Errorf("offline: fit hashed tf-idf: empty corpus: no texts to fit on")
	}
	m.n = len(texts)
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
	if len(df) == 0 {
		return nil, fmt.Errorf("offline: fit hashed tf-idf: no content word in any of the %d texts", m.n)
	}
	m.idf = make(map[uint64]float32, len(df))
	for h, c := range df {
		m.idf[h] = float32(idf(m.n, int(c)))
	}
	m.maxIDF = float32(idf(m.n, 0))
	unseen := "maxidf"
	if m.drop {
		unseen = "drop"
	}
	if m.noChars {
		m.name = fmt.Sprintf("hashed-tfidf(d=%d,char=none,unseen=%s,docs=%d)", m.dims, unseen, m.n)
	} else {
		m.name = fmt.Sprintf("hashed-tfidf(d=%d,char=%d-%d,unseen=%s,docs=%d)", m.dims, m.charMin, m.charMax, unseen, m.n)
	}
	return m, nil
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

// features fills f.words and f.chars with the distinct features of text,
// sorted by hash, with their counts.
func (m *HashedTFIDF) features(f *featureBuf, text string) {
	toks := tokenize.ContentTokens(text)
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
		clear(acc)
		for _, fs := range [][]feature{f.words, f.chars} {
			clear(part)
			for _, x := range fs {
				w, ok := m.idf[x.h]
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
		out[i] = toFloat32(acc)
	}
	return out, nil
}
