// Package offline holds memlab's offline stand-ins for models: embedders and
// an extractor computed from the corpus itself, so that every experiment runs
// with no network and no key, deterministically.
//
//   - HashedTFIDF (FitHashedTFIDF) is an llm.Embedder: TF-IDF over content
//     words and character n-grams, hashed with signs into a fixed number of
//     buckets (default 1024).
//   - LSA (FitLSA) is an llm.Embedder: latent semantic analysis, a sparse
//     TF-IDF matrix reduced by a seeded randomized truncated SVD (Halko,
//     Martinsson and Tropp 2011) to 256 dimensions by default; texts are
//     folded into the latent space.
//   - Extractive (NewExtractive) is an llm.Extractor for CloneMem's index
//     expansion kinds: a summary of the most central sentences, RAKE
//     keyphrases, and one fact per sentence. It works on English and
//     Chinese.
//
// Words come from package text (lowercased; CJK runs as character bigrams;
// English stopwords removed for content words). Each model's Name records
// its settings, e.g. "lsa(d=256,...)" or "hashed-tfidf(d=1024,char=3-5,...)",
// for run records. Fitting honours a context through the FitXContext
// variants; Embed and Extract honour theirs.
//
// On KnowMe-Bench dataset 1 (6,644 stream entries, about 0.8 M tokens) the
// LSA fit (256 dimensions) took about 3.4 s with a peak RSS of about
// 140 MB on a shared 2-core machine, the hashed TF-IDF fit about 0.7 s; see
// the benchmarks in bench_test.go.
//
// # Dependencies
//
// offline is part of the llm layer: it imports only llm, text and component
// of memlab, never retrieval or the readers that use it (internal/archtest
// enforces it).
package offline
