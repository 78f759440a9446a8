package offline

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/memlab/memlab/llm"
)

// Both embedders are llm.Embedders.
var (
	_ llm.Embedder = (*LSA)(nil)
	_ llm.Embedder = (*HashedTFIDF)(nil)
)

// topicCorpus has three topics, three documents each.
var topicCorpus = []string{
	"We sailed the boat across the bay; the wind filled the sail.",
	"The sail tore in a strong wind, so the boat drifted toward the harbour.",
	"At the harbour we tied the boat and folded the sail after sailing.",
	"I baked bread in the oven and the kitchen smelled of yeast and flour.",
	"The recipe needs flour, butter and sugar; bake it in a hot oven.",
	"My grandmother taught me to bake bread with flour and yeast in her kitchen.",
	"The program crashed because the compiler found a bug in the code.",
	"I fixed the bug in the code and the compiler built the program.",
	"Debugging code is easier when the compiler reports where the program fails.",
}

func cosine(a, b []float32) float64 {
	var s, na, nb float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return s / math.Sqrt(na*nb)
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func embedOne(t *testing.T, e llm.Embedder, texts ...string) [][]float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(v), len(texts))
	}
	return v
}

// semanticCases: the query is closer to near than to far.
var semanticCases = []struct{ query, near, far string }{
	{"the wind and the sail of a boat", topicCorpus[0], topicCorpus[3]},
	{"bake bread with flour", topicCorpus[4], topicCorpus[7]},
	{"a bug in the program code", topicCorpus[8], topicCorpus[1]},
}

func TestLSASemantic(t *testing.T) {
	m, err := FitLSA(topicCorpus, LSAOptions{Dims: 3, MinDF: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m.Dims() != 3 {
		t.Fatalf("Dims = %d, want 3", m.Dims())
	}
	for _, c := range semanticCases {
		v := embedOne(t, m, c.query, c.near, c.far)
		near, far := cosine(v[0], v[1]), cosine(v[0], v[2])
		if near <= far+0.2 {
			t.Errorf("%q: cos near = %.3f, far = %.3f; want near clearly above far", c.query, near, far)
		}
		for i, x := range v {
			if n := norm(x); math.Abs(n-1) > 1e-5 {
				t.Errorf("%q: vector %d has norm %g", c.query, i, n)
			}
		}
	}
	// Documents of one topic share a latent direction even without shared
	// words: "harbour" and "wind" documents 1 and 2 both sit on the sailing axis.
	v := embedOne(t, m, "harbour", "wind")
	if c := cosine(v[0], v[1]); c < 0.9 {
		t.Errorf("cos(harbour, wind) = %.3f, want ≥ 0.9 (same topic)", c)
	}
}

func TestLSADeterministic(t *testing.T) {
	var vecs [][][]float32
	for range 2 {
		m, err := FitLSA(topicCorpus, LSAOptions{Dims: 4, MinDF: 1, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		vecs = append(vecs, embedOne(t, m, topicCorpus...))
	}
	for i := range vecs[0] {
		if !slices.Equal(vecs[0][i], vecs[1][i]) {
			t.Fatalf("text %d: two fits with the same seed differ", i)
		}
	}
}

func TestLSAReducesDims(t *testing.T) {
	tests := []struct {
		name     string
		texts    []string
		opts     LSAOptions
		wantDims int
		wantName string
	}{
		{"fewer docs", topicCorpus[:3], LSAOptions{MinDF: 1}, 3, "lsa(d=3 [asked 256; corpus has 3 documents]"},
		{"fewer terms", []string{"apple banana", "banana apple apple"}, LSAOptions{MinDF: 1}, 2, "lsa(d=2 [asked 256; corpus has 2 documents]"},
		{"vocabulary", []string{"apple", "apple", "apple", "apple"}, LSAOptions{MinDF: 1}, 1, "lsa(d=1 [asked 256; vocabulary has 1 terms]"},
		{"rank", []string{"apple pear", "apple pear", "plum fig", "plum fig", "plum fig"}, LSAOptions{MinDF: 1, Dims: 4}, 2, "lsa(d=2 [asked 4; TF-IDF matrix has rank 2]"},
		{"default", topicCorpus, LSAOptions{Dims: 2}, 2, "lsa(d=2,mindf=2,"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := FitLSA(tt.texts, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if m.Dims() != tt.wantDims || len(m.SingularValues()) != tt.wantDims {
				t.Errorf("Dims = %d, %d singular values; want %d", m.Dims(), len(m.SingularValues()), tt.wantDims)
			}
			if !strings.HasPrefix(m.Name(), tt.wantName) {
				t.Errorf("Name = %q, want prefix %q", m.Name(), tt.wantName)
			}
			if v := embedOne(t, m, "apple")[0]; len(v) != tt.wantDims {
				t.Errorf("vector length %d, want %d", len(v), tt.wantDims)
			}
		})
	}
}

func TestLSAUnknownWordsGiveZero(t *testing.T) {
	m, err := FitLSA(topicCorpus, LSAOptions{Dims: 3, MinDF: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"", "zebra quokka", "the and of"} {
		v := embedOne(t, m, q)[0]
		if norm(v) != 0 {
			t.Errorf("%q: norm %g, want the zero vector", q, norm(v))
		}
	}
}

func TestLSAUnscaled(t *testing.T) {
	m, err := FitLSA(topicCorpus, LSAOptions{Dims: 3, MinDF: 1, Unscaled: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Name(), "fold=vt)") {
		t.Errorf("Name = %q, want fold=vt", m.Name())
	}
	v := embedOne(t, m, semanticCases[0].query, semanticCases[0].near, semanticCases[0].far)
	if cosine(v[0], v[1]) <= cosine(v[0], v[2]) {
		t.Error("unscaled fold-in: query not closer to its topic")
	}
}

func TestFitErrors(t *testing.T) {
	tests := []struct {
		name string
		fit  func() error
		want string
	}{
		{"lsa empty", func() error { _, err := FitLSA(nil, LSAOptions{}); return err }, "offline: fit lsa: empty corpus"},
		{"lsa stopwords", func() error { _, err := FitLSA([]string{"the and", "of it"}, LSAOptions{}); return err }, "no content word in any of the 2 texts"},
		{"lsa mindf", func() error { _, err := FitLSA([]string{"apple", "pear"}, LSAOptions{}); return err }, "in at least MinDF=2"},
		{"lsa dims", func() error { _, err := FitLSA(topicCorpus, LSAOptions{Dims: -1}); return err }, "Dims = -1"},
		{"lsa maxdf", func() error { _, err := FitLSA(topicCorpus, LSAOptions{MaxDFRatio: 2}); return err }, "MaxDFRatio = 2"},
		{"hashed empty", func() error { _, err := FitHashedTFIDF(nil, HashedOptions{}); return err }, "offline: fit hashed tf-idf: empty corpus"},
		{"hashed stopwords", func() error { _, err := FitHashedTFIDF([]string{"the"}, HashedOptions{}); return err }, "no content word in any of the 1 texts"},
		{"hashed char range", func() error { _, err := FitHashedTFIDF(topicCorpus, HashedOptions{CharMin: 4, CharMax: 2}); return err }, "CharMin = 4, CharMax = 2"},
		{"hashed dims", func() error { _, err := FitHashedTFIDF(topicCorpus, HashedOptions{Dims: -8}); return err }, "Dims = -8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.fit()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FitLSAContext(ctx, topicCorpus, LSAOptions{MinDF: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("FitLSAContext: err = %v, want context.Canceled", err)
	}
	if _, err := FitHashedTFIDFContext(ctx, topicCorpus, HashedOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("FitHashedTFIDFContext: err = %v, want context.Canceled", err)
	}
	lsa, _ := FitLSA(topicCorpus, LSAOptions{MinDF: 1})
	h, _ := FitHashedTFIDF(topicCorpus, HashedOptions{})
	for _, e := range []llm.Embedder{lsa, h} {
		if _, err := e.Embed(ctx, []string{"boat"}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Embed err = %v, want context.Canceled", e.Name(), err)
		}
	}
}

func TestHashedSemantic(t *testing.T) {
	m, err := FitHashedTFIDF(topicCorpus, HashedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "hashed-tfidf(d=1024,char=3-5,unseen=maxidf,docs=9)" {
		t.Errorf("Name = %q", m.Name())
	}
	for _, c := range semanticCases {
		v := embedOne(t, m, c.query, c.near, c.far)
		if near, far := cosine(v[0], v[1]), cosine(v[0], v[2]); near <= far {
			t.Errorf("%q: cos near = %.3f ≤ far = %.3f", c.query, near, far)
		}
		for i, x := range v {
			if len(x) != 1024 || math.Abs(norm(x)-1) > 1e-5 {
				t.Errorf("%q: vector %d has length %d, norm %g", c.query, i, len(x), norm(x))
			}
		}
	}
}

func TestHashedOptions(t *testing.T) {
	corpus := append(slices.Clone(topicCorpus), "我喜欢北京的秋天", "今天下雨了，我在家看书")
	tests := []struct {
		name     string
		opts     HashedOptions
		a, b     string
		cmp      string // "<" cos(a,b) below limit, ">" above
		limit    float64
		wantName string
	}{
		// Character n-grams relate inflections that share no word.
		{"chars relate inflections", HashedOptions{}, "sailing", "sailed", ">", 0.1, "char=3-5"},
		{"words alone do not", HashedOptions{NoChars: true}, "sailing", "sailed", "<", 0.05, "char=none"},
		{"small dims", HashedOptions{Dims: 16, CharMin: 2, CharMax: 3}, "boat sail", "sail boat", ">", 0.999, "d=16,char=2-3"},
		{"chinese bigrams", HashedOptions{}, "北京的秋天", "我喜欢北京", ">", 0.2, "unseen=maxidf"},
		{"chinese unrelated", HashedOptions{}, "北京的秋天", "下雨看书", "<", 0.1, "unseen=maxidf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := FitHashedTFIDF(corpus, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(m.Name(), tt.wantName) {
				t.Errorf("Name = %q, want %q in it", m.Name(), tt.wantName)
			}
			v := embedOne(t, m, tt.a, tt.b)
			c := cosine(v[0], v[1])
			if tt.cmp == ">" && c <= tt.limit || tt.cmp == "<" && c >= tt.limit {
				t.Errorf("cos(%q, %q) = %.3f, want %s %g", tt.a, tt.b, c, tt.cmp, tt.limit)
			}
		})
	}
}

func TestHashedUnseen(t *testing.T) {
	keep, err := FitHashedTFIDF(topicCorpus, HashedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	drop, err := FitHashedTFIDF(topicCorpus, HashedOptions{DropUnseen: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(drop.Name(), "unseen=drop") {
		t.Errorf("Name = %q", drop.Name())
	}
	// "qqqq" shares no word or 3-5-gram with the corpus.
	if n := norm(embedOne(t, drop, "qqqq")[0]); n != 0 {
		t.Errorf("drop: unseen-only text has norm %g, want 0", n)
	}
	if n := norm(embedOne(t, keep, "qqqq")[0]); math.Abs(n-1) > 1e-5 {
		t.Errorf("maxidf: unseen-only text has norm %g, want 1", n)
	}
	// Dropping unseen features brings a query with a typo word closer to
	// the document it matches.
	q, d := "boat zzzzzz", topicCorpus[0]
	ck, cd := cosine(embedOne(t, keep, q, d)[0], embedOne(t, keep, d)[0]), cosine(embedOne(t, drop, q)[0], embedOne(t, drop, d)[0])
	if cd <= ck {
		t.Errorf("cos with dropped unseen %.3f ≤ with max idf %.3f", cd, ck)
	}
	if n := norm(embedOne(t, keep, "")[0]); n != 0 {
		t.Errorf("empty text: norm %g, want 0", n)
	}
}

func TestHashedDeterministic(t *testing.T) {
	a, _ := FitHashedTFIDF(topicCorpus, HashedOptions{})
	b, _ := FitHashedTFIDF(topicCorpus, HashedOptions{})
	va, vb := embedOne(t, a, topicCorpus...), embedOne(t, b, topicCorpus...)
	for i := range va {
		if !slices.Equal(va[i], vb[i]) {
			t.Fatalf("text %d differs between two fits", i)
		}
	}
}

// TestHashedCorpusPrefixIsTheFit: the embedder and vectors of a prefix of a
// HashedCorpus are bit for bit FitHashedTFIDF of the prefix's texts and its
// Embed of them, for prefixes asked growing, shrinking and again, with
// every option.
func TestHashedCorpusPrefixIsTheFit(t *testing.T) {
	ctx := context.Background()
	texts := append(append([]string{}, topicCorpus...), "我今天去游泳了，教练说我进步很大。", "the the the", "猫 cat 猫")
	for _, opts := range []HashedOptions{{}, {Dims: 64, CharMin: 2, CharMax: 3}, {NoChars: true, DropUnseen: true}} {
		c, err := NewHashedCorpus(opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Add(ctx, texts[:5]); err != nil {
			t.Fatal(err)
		}
		if err := c.Add(ctx, texts[5:]); err != nil {
			t.Fatal(err)
		}
		if c.Len() != len(texts) {
			t.Fatalf("Len = %d", c.Len())
		}
		for _, n := range []int{1, 3, 3, 7, len(texts), 2, len(texts)} {
			m, vecs, err := c.Prefix(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			want, err := FitHashedTFIDF(texts[:n], opts)
			if err != nil {
				t.Fatal(err)
			}
			if m.Name() != want.Name() {
				t.Errorf("%+v n=%d: name %q, want %q", opts, n, m.Name(), want.Name())
			}
			wv := embedOne(t, want, texts[:n]...)
			for i := range wv {
				for j := range wv[i] {
					if math.Float32bits(vecs[i][j]) != math.Float32bits(wv[i][j]) {
						t.Fatalf("%+v n=%d: vector %d differs at %d: %v, fit gives %v", opts, n, i, j, vecs[i][j], wv[i][j])
					}
				}
			}
			// the prefix's embedder embeds a query as the fit does
			q := embedOne(t, m, "a boat and the wind")[0]
			wq := embedOne(t, want, "a boat and the wind")[0]
			if !slices.Equal(q, wq) {
				t.Errorf("%+v n=%d: query vectors differ", opts, n)
			}
		}
		if _, _, err := c.Prefix(ctx, 0); err == nil {
			t.Errorf("prefix 0: no error")
		}
		if _, _, err := c.Prefix(ctx, len(texts)+1); err == nil {
			t.Errorf("prefix past the end: no error")
		}
	}
	if _, err := NewHashedCorpus(HashedOptions{Dims: -1}); err == nil {
		t.Errorf("bad options: no error")
	}
}
