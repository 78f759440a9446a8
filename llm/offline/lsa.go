package offline

import (
	"context"
	"fmt"
	"github.com/memlab/memlab/component"
	"slices"
	"strings"

	"github.com/memlab/memlab/text"
)

// LSA defaults.
const (
	DefaultLSADims       = 256
	DefaultLSAMinDF      = 2
	DefaultLSAOversample = 10
	DefaultLSAPowerIters = 2
)

// LSAOptions sets up FitLSA. Zero values mean the defaults.
type LSAOptions struct {
	// Dims is the number of latent dimensions k (default 256). It is reduced
	// when the corpus has fewer documents, terms, or non-zero singular
	// values; Name then says so.
	Dims int
	// MinDF keeps only terms found in at least MinDF documents (default 2).
	MinDF int
	// MaxDFRatio drops terms found in more than this fraction of the
	// documents (0 = keep all).
	MaxDFRatio float64
	// Oversample is the number p of extra random columns of the range finder
	// (default 10).
	Oversample int
	// PowerIters is the number of power iterations (default 2; a negative
	// value means none).
	PowerIters int
	// Seed seeds the PCG generator of the Gaussian test matrix.
	Seed uint64
	// Unscaled folds queries in as V_kᵀq instead of Σ_k⁻¹V_kᵀq (the
	// document coordinates are then UΣ, as scikit-learn's TruncatedSVD gives,
	// instead of U).
	Unscaled bool
}

// LSA is latent semantic analysis fitted on a corpus: sparse TF-IDF (sublinear
// tf, smoothed idf, rows L2-normalised) of the corpus' content words, then a
// randomized truncated SVD A ≈ U_k Σ_k V_kᵀ. Embed folds a text in: its TF-IDF
// row q (computed with the corpus' vocabulary and idf) becomes
//
//	q_k = Σ_k⁻¹ V_kᵀ q,   L2-normalised,
//
// so a corpus document embeds to its (normalised) row of U_k. Words not in
// the vocabulary are dropped; a text without any known word embeds to the
// zero vector. An LSA is safe for concurrent use.
type LSA struct {
	vocab map[string]int32
	idf   []float64
	w     []float32 // terms×dims, row-major: Σ⁻¹ scaled (or not) V_k
	dims  int
	sigma []float64
	name  string
	spec  component.Spec
}

// FitLSA fits an LSA on texts (one document each). An empty corpus, or one
// where no term passes MinDF, is an error.
func FitLSA(texts []string, opts LSAOptions) (*LSA, error) {
	return FitLSAContext(context.Background(), texts, opts)
}

// FitLSAContext is FitLSA that stops with ctx's error when ctx ends.
func FitLSAContext(ctx context.Context, texts []string, opts LSAOptions) (*LSA, error) {
	asked := opts.Dims
	if asked == 0 {
		asked = DefaultLSADims
	}
	minDF := opts.MinDF
	if minDF == 0 {
		minDF = DefaultLSAMinDF
	}
	over := opts.Oversample
	if over == 0 {
		over = DefaultLSAOversample
	}
	power := opts.PowerIters
	if power == 0 {
		power = DefaultLSAPowerIters
	}
	power = max(power, 0)
	switch {
	case asked < 0:
		return nil, fmt.Errorf("offline: fit lsa: Dims = %d, want > 0", opts.Dims)
	case minDF < 0:
		return nil, fmt.Errorf("offline: fit lsa: MinDF = %d, want ≥ 0", opts.MinDF)
	case over < 0:
		return nil, fmt.Errorf("offline: fit lsa: Oversample = %d, want ≥ 0", opts.Oversample)
	case opts.MaxDFRatio < 0 || opts.MaxDFRatio > 1:
		return nil, fmt.Errorf("offline: fit lsa: MaxDFRatio = %g, want within [0, 1]", opts.MaxDFRatio)
	case len(texts) == 0:
		return nil, fmt.Errorf("offline: fit lsa: empty corpus: no texts to fit on")
	}

	// Vocabulary: terms by document frequency.
	n := len(texts)
	docs := make([][]string, n)
	df := map[string]int{}
	seen := map[string]bool{}
	for i, t := range texts {
		if err := checkCtx(ctx, i); err != nil {
			return nil, fmt.Errorf("offline: fit lsa: %w", err)
		}
		docs[i] = text.ContentTokens(t)
		clear(seen)
		for _, w := range docs[i] {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	if len(df) == 0 {
		return nil, fmt.Errorf("offline: fit lsa: no content word in any of the %d texts", n)
	}
	maxDF := n
	if opts.MaxDFRatio > 0 {
		maxDF = int(opts.MaxDFRatio * float64(n))
	}
	terms := make([]string, 0, len(df))
	for w, c := range df {
		if c >= minDF && c <= maxDF {
			terms = append(terms, w)
		}
	}
	if len(terms) == 0 {
		return nil, fmt.Errorf("offline: fit lsa: none of the %d distinct words is in at least MinDF=%d and at most %d of the %d texts", len(df), minDF, maxDF, n)
	}
	slices.Sort(terms)
	m := &LSA{vocab: make(map[string]int32, len(terms)), idf: make([]float64, len(terms))}
	for j, w := range terms {
		m.vocab[w] = int32(j)
		m.idf[j] = idf(n, df[w])
	}

	// TF-IDF rows.
	a := &csr{rows: n, cols: len(terms), ptr: make([]int, 1, n+1)}
	var ids []int32
	for i, toks := range docs {
		if err := checkCtx(ctx, i); err != nil {
			return nil, fmt.Errorf("offline: fit lsa: %w", err)
		}
		ids = m.termIDs(ids[:0], toks)
		start := len(a.col)
		for p := 0; p < len(ids); {
			q := p
			for q < len(ids) && ids[q] == ids[p] {
				q++
			}
			a.col = append(a.col, ids[p])
			a.val = append(a.val, sublinear(q-p)*m.idf[ids[p]])
			p = q
		}
		normalize(a.val[start:])
		a.ptr = append(a.ptr, len(a.col))
		docs[i] = nil
	}
	if len(a.col) == 0 {
		return nil, fmt.Errorf("offline: fit lsa: the TF-IDF matrix of the %d texts is empty", n)
	}

	limit := ""
	k := asked
	if k > n {
		k, limit = n, fmt.Sprintf("corpus has %d documents", n)
	}
	if k > len(terms) {
		k, limit = len(terms), fmt.Sprintf("vocabulary has %d terms", len(terms))
	}
	svd, err := randomizedSVD(ctx, a, k, over, power, opts.Seed)
	if err != nil {
		return nil, fmt.Errorf("offline: fit lsa: %w", err)
	}
	if svd.k < k {
		limit = fmt.Sprintf("TF-IDF matrix has rank %d", svd.k)
	}
	k = svd.k
	m.dims, m.sigma = k, svd.sigma
	m.w = make([]float32, len(svd.v))
	for j := 0; j < len(terms); j++ {
		for c := 0; c < k; c++ {
			v := svd.v[j*k+c]
			if !opts.Unscaled {
				v /= svd.sigma[c]
			}
			m.w[j*k+c] = float32(v)
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "lsa(d=%d", k)
	if limit != "" {
		fmt.Fprintf(&b, " [asked %d; %s]", asked, limit)
	}
	fmt.Fprintf(&b, ",mindf=%d", minDF)
	if opts.MaxDFRatio > 0 {
		fmt.Fprintf(&b, ",maxdf=%g", opts.MaxDFRatio)
	}
	fmt.Fprintf(&b, ",terms=%d,docs=%d,over=%d,pow=%d,seed=%d", len(terms), n, over, power, opts.Seed)
	if opts.Unscaled {
		b.WriteString(",fold=vt")
	} else {
		b.WriteString(",fold=sinv-vt")
	}
	b.WriteString(")")
	m.name = b.String()
	m.spec = component.New("lsa").With("fit_texts", HashTexts(texts)).With("dims", k).With("asked_dims", asked).With("min_df", minDF).
		With("max_df_ratio", opts.MaxDFRatio).With("terms", len(terms)).With("docs", n).With("oversample", over).
		With("power_iters", power).With("seed", opts.Seed).With("unscaled", opts.Unscaled)
	return m, nil
}

// termIDs appends the vocabulary ids of toks (unknown words dropped) to ids,
// sorted.
func (m *LSA) termIDs(ids []int32, toks []string) []int32 {
	for _, w := range toks {
		if j, ok := m.vocab[w]; ok {
			ids = append(ids, j)
		}
	}
	slices.Sort(ids)
	return ids
}

// Name identifies the model and its settings, e.g.
// "lsa(d=256,mindf=2,terms=9120,docs=6644,over=10,pow=2,seed=0,fold=sinv-vt)".
// A reduced dimension is shown as "d=3 [asked 256; corpus has 3 documents]".
func (m *LSA) Name() string { return m.name }

// Spec is the model's component spec: its settings, the vocabulary size,
// the number of documents it was fitted on and the hash of their texts
// (HashTexts).
func (m *LSA) Spec() component.Spec { return m.spec }

// Dims returns the number of latent dimensions, the length of every vector.
func (m *LSA) Dims() int { return m.dims }

// Terms returns the size of the vocabulary.
func (m *LSA) Terms() int { return len(m.idf) }

// SingularValues returns a copy of the k singular values, descending.
func (m *LSA) SingularValues() []float64 { return slices.Clone(m.sigma) }

// Embed returns one L2-normalised vector of Dims() values per text.
func (m *LSA) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	k := m.dims
	acc := make([]float64, k)
	var ids []int32
	var wts []float64
	for i, t := range texts {
		if err := checkCtx(ctx, i); err != nil {
			return nil, fmt.Errorf("offline: lsa embed: %w", err)
		}
		ids = m.termIDs(ids[:0], text.ContentTokens(t))
		wts = wts[:0]
		uniq := ids[:0]
		for p := 0; p < len(ids); {
			q := p
			for q < len(ids) && ids[q] == ids[p] {
				q++
			}
			uniq = append(uniq, ids[p])
			wts = append(wts, sublinear(q-p)*m.idf[ids[p]])
			p = q
		}
		normalize(wts)
		clear(acc)
		for p, j := range uniq {
			row := m.w[int(j)*k : int(j+1)*k]
			wt := wts[p]
			for c, v := range row {
				acc[c] += wt * float64(v)
			}
		}
		normalize(acc)
		out[i] = toFloat32(acc)
	}
	return out, nil
}
