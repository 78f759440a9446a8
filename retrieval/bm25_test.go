package retrieval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/text"
)

var day0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func day(n int) time.Time { return day0.AddDate(0, 0, n) }

func oneCorpus(traces ...datasets.Trace) *datasets.Dataset {
	return &datasets.Dataset{Name: "tiny", Corpora: []*datasets.Corpus{{ID: "c", Traces: traces}}}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestFlatHandChecked checks BM25 scores computed by hand with K1=1.5, B=0.75.
func TestFlatHandChecked(t *testing.T) {
	d := oneCorpus(
		datasets.Trace{ID: "d1", Time: day(1), Text: "apple banana"},        // len 2
		datasets.Trace{ID: "d2", Time: day(3), Text: "Apple apple, cherry"}, // len 3
		datasets.Trace{ID: "d3", Time: day(2), Text: "banana"},              // len 1
	)
	f, err := NewFlat(d, BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		desc  string
		asked time.Time
		query string
		ids   []string
		score []float64
	}{
		// All visible: N=3, avgdl=6/3=2, n(apple)=2, idf=ln(1+1.5/2.5)=ln 1.6.
		// d2: tf=2, |d|=3: norm=1.5*(0.25+0.75*1.5)=2.0625; 2*2.5/4.0625=1.2307692...
		// d1: tf=1, |d|=2: norm=1.5; 1*2.5/2.5=1.
		{"all visible", time.Time{}, "apple?", []string{"d2", "d1"},
			[]float64{math.Log(1.6) * 5 / 4.0625, math.Log(1.6)}},
		// Asked on day 2: d2 (day 3) does not exist. N=2, avgdl=3/2=1.5, n=1,
		// idf=ln(1+1.5/1.5)=ln 2; d1: norm=1.5*(0.25+0.75*2/1.5)=1.875; 2.5/2.875.
		{"d2 not yet written", day(2), "apple", []string{"d1"},
			[]float64{math.Ln2 * 2.5 / 2.875}},
		// Asked on day 1: only d1. N=1, avgdl=2, n(banana)=1: idf=ln(1+0.5/1.5)=ln(4/3),
		// tf part = 1 (|d| = avgdl).
		{"only d1", day(1), "banana", []string{"d1"}, []float64{math.Log(4.0 / 3)}},
		// Before every trace: nothing is admitted.
		{"nothing admitted", day(0), "apple banana", nil, nil},
		// A repeated query token counts twice (as in rank_bm25). All visible:
		// n(banana)=2 -> idf ln 1.6; d3: |d|=1, norm=1.5*(0.25+0.375)=0.9375,
		// 2.5/1.9375 per occurrence; d1: 1 per occurrence.
		{"repeated query token", time.Time{}, "banana banana", []string{"d3", "d1"},
			[]float64{2 * math.Log(1.6) * 2.5 / 1.9375, 2 * math.Log(1.6)}},
		{"no shared token", time.Time{}, "durian", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			hits, err := f.Retrieve(context.Background(), datasets.Question{ID: "q", CorpusID: "c", AskedAt: tc.asked, Text: tc.query}, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != len(tc.ids) {
				t.Fatalf("got %d hits %v, want %v", len(hits), hits, tc.ids)
			}
			for i, h := range hits {
				if h.UnitID != tc.ids[i] || len(h.TraceIDs) != 1 || h.TraceIDs[0] != tc.ids[i] {
					t.Errorf("hit %d = %q %v, want %q", i, h.UnitID, h.TraceIDs, tc.ids[i])
				}
				if !near(h.Score, tc.score[i]) {
					t.Errorf("hit %d score = %.12f, want %.12f", i, h.Score, tc.score[i])
				}
			}
		})
	}
}

// bruteBM25 builds BM25 from scratch on datasets.Admit(traces, at) and
// returns the ranked ids and scores (positive scores only, ties by corpus
// order), k at most.
func bruteBM25(traces []datasets.Trace, at time.Time, query string, p BM25Params, k int) ([]string, []float64) {
	pos := map[string]int{}
	for i, t := range traces {
		pos[t.ID] = i
	}
	adm := datasets.Admit(traces, at)
	N := len(adm)
	if N == 0 {
		return nil, nil
	}
	docs := make([][]string, N)
	total := 0
	df := map[string]int{}
	for i, t := range adm {
		docs[i] = text.Tokens(t.Text)
		total += len(docs[i])
		seen := map[string]bool{}
		for _, w := range docs[i] {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	avgdl := float64(total) / float64(N)
	type sd struct {
		id    string
		idx   int
		score float64
	}
	var res []sd
	for i, doc := range docs {
		tf := map[string]int{}
		for _, w := range doc {
			tf[w]++
		}
		var s float64
		for _, w := range text.Tokens(query) {
			if tf[w] == 0 {
				continue
			}
			n := df[w]
			idf := math.Log(1 + (float64(N)-float64(n)+0.5)/(float64(n)+0.5))
			f := float64(tf[w])
			s += idf * f * (p.K1 + 1) / (f + p.K1*(1-p.B+p.B*float64(len(doc))/avgdl))
		}
		if s > 0 {
			res = append(res, sd{adm[i].ID, pos[adm[i].ID], s})
		}
	}
	sort.Slice(res, func(a, b int) bool {
		if res[a].score != res[b].score {
			return res[a].score > res[b].score
		}
		return res[a].idx < res[b].idx
	})
	if len(res) > k {
		res = res[:k]
	}
	var ids []string
	var scores []float64
	for _, r := range res {
		ids = append(ids, r.id)
		scores = append(scores, r.score)
	}
	return ids, scores
}

func TestFlatMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var compared, partial int // hits compared; questions seeing only part of the corpus
	vocab := strings.Fields("memory run coffee 北京 北京大学 mother dog rain paris job cake 我喜欢 piano")
	for trial := 0; trial < 5; trial++ {
		var traces []datasets.Trace
		n := 20 + rng.IntN(40)
		for i := 0; i < n; i++ {
			var words []string
			for j := rng.IntN(9); j >= 0; j-- {
				words = append(words, vocab[rng.IntN(len(vocab))])
			}
			tr := datasets.Trace{ID: fmt.Sprintf("t%02d", i), Text: strings.Join(words, " ")}
			if rng.IntN(6) != 0 { // about one trace in six has no time
				tr.Time = day(rng.IntN(15)) // many equal times
			}
			if rng.IntN(10) == 0 {
				tr.Text = "" // empty traces have no tokens
			}
			traces = append(traces, tr)
		}
		d := oneCorpus(traces...)
		params := []BM25Params{DefaultBM25Params(), {K1: 0.9, B: 0.4}, {K1: 0, B: 1}}
		for _, p := range params {
			f, err := NewFlat(d, p)
			if err != nil {
				t.Fatal(err)
			}
			for qi := 0; qi < 40; qi++ {
				var at time.Time
				if qi > 0 {
					at = day(rng.IntN(17) - 1)
				}
				var qw []string
				for j := rng.IntN(4); j >= 0; j-- {
					qw = append(qw, vocab[rng.IntN(len(vocab))])
				}
				query := strings.Join(qw, ", ")
				k := 1 + rng.IntN(n+3)
				q := datasets.Question{ID: "q", CorpusID: "c", AskedAt: at, Text: query}
				hits, err := f.Retrieve(context.Background(), q, k)
				if err != nil {
					t.Fatal(err)
				}
				wantIDs, wantScores := bruteBM25(traces, at, query, p, k)
				compared += len(wantIDs)
				if len(datasets.Admit(traces, at)) < len(traces) {
					partial++
				}
				if len(hits) != len(wantIDs) {
					t.Fatalf("trial %d %+v at %v %q k=%d: %d hits, brute force %d", trial, p, at, query, k, len(hits), len(wantIDs))
				}
				for i, h := range hits {
					if h.UnitID != wantIDs[i] || !near(h.Score, wantScores[i]) {
						t.Fatalf("trial %d %+v at %v %q: hit %d = %s %.12f, brute force %s %.12f",
							trial, p, at, query, i, h.UnitID, h.Score, wantIDs[i], wantScores[i])
					}
				}
			}
		}
	}
	if compared < 1000 || partial < 100 {
		t.Errorf("weak test: %d hits compared, %d questions with partial admission", compared, partial)
	}
}

func TestFlatErrorsAndEdges(t *testing.T) {
	d := oneCorpus(
		datasets.Trace{ID: "a", Text: "first diary entry about the sea"},
		datasets.Trace{ID: "b", Text: "second diary entry about the sea"},
	)
	f, err := NewFlat(d, BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Name() != "flat-bm25" || f.Params() != DefaultBM25Params() {
		t.Errorf("Name, Params = %q, %+v", f.Name(), f.Params())
	}
	ctx := context.Background()
	q := datasets.Question{ID: "q1", CorpusID: "c", Text: "diary sea"}

	// Equal scores: corpus order breaks the tie.
	hits, err := f.Retrieve(ctx, q, 5)
	if err != nil || len(hits) != 2 || hits[0].UnitID != "a" || hits[0].Score != hits[1].Score {
		t.Errorf("tie: %v, %v", hits, err)
	}
	if hits[0].Text != "first diary entry about the sea" {
		t.Errorf("hit text = %q", hits[0].Text)
	}
	if hits, err := f.Retrieve(ctx, q, 1); err != nil || len(hits) != 1 || hits[0].UnitID != "a" {
		t.Errorf("k=1: %v, %v", hits, err)
	}
	if hits, err := f.Retrieve(ctx, q, 0); err != nil || len(hits) != 0 {
		t.Errorf("k=0: %v, %v", hits, err)
	}
	if _, err := f.Retrieve(ctx, q, -1); err == nil || !strings.Contains(err.Error(), "k = -1") {
		t.Errorf("k=-1: err = %v", err)
	}
	bad := q
	bad.CorpusID = "nope"
	if _, err := f.Retrieve(ctx, bad, 3); err == nil || !strings.Contains(err.Error(), `unknown corpus "nope"`) {
		t.Errorf("unknown corpus: err = %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.Retrieve(cctx, q, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}

	for _, tc := range []struct {
		desc string
		d    *datasets.Dataset
		p    BM25Params
		want string
	}{
		{"nil dataset", nil, BM25Params{}, "nil dataset"},
		{"negative K1", d, BM25Params{K1: -1, B: 0.5}, "K1 = -1"},
		{"B above 1", d, BM25Params{K1: 1, B: 1.5}, "B = 1.5"},
		{"NaN B", d, BM25Params{K1: 1, B: math.NaN()}, "B = NaN"},
		{"duplicate corpus", &datasets.Dataset{Name: "x", Corpora: []*datasets.Corpus{{ID: "c"}, {ID: "c"}}}, BM25Params{}, `duplicate corpus id "c"`},
		{"nil corpus", &datasets.Dataset{Name: "x", Corpora: []*datasets.Corpus{nil}}, BM25Params{}, "corpus 0 is nil"},
	} {
		if _, err := NewFlat(tc.d, tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.desc, err, tc.want)
		}
	}
}

func TestFlatChinese(t *testing.T) {
	d := oneCorpus(
		datasets.Trace{ID: "x", Text: "今天和妈妈去了上海"},
		datasets.Trace{ID: "y", Text: "我喜欢北京的秋天"},
		datasets.Trace{ID: "z", Text: "工作很忙"},
	)
	f, err := NewFlat(d, BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := f.Retrieve(context.Background(), datasets.Question{ID: "q", CorpusID: "c", Text: "你喜欢北京吗？"}, 3)
	if err != nil || len(hits) != 1 || hits[0].UnitID != "y" {
		t.Errorf("hits = %v, err = %v; want only y", hits, err)
	}
}

func TestIDF(t *testing.T) {
	// ln(1 + (N - n + 0.5)/(n + 0.5)): n=N=1 -> ln(1 + 0.5/1.5) = ln(4/3).
	if got := IDF(1, 1); !near(got, math.Log(4.0/3)) {
		t.Errorf("IDF(1,1) = %v", got)
	}
	// Never negative even for a term in every document.
	for N := 1; N < 50; N++ {
		for n := 1; n <= N; n++ {
			if IDF(n, N) <= 0 || (n > 1 && IDF(n, N) >= IDF(n-1, N)) {
				t.Fatalf("IDF(%d,%d) = %v not positive and decreasing", n, N, IDF(n, N))
			}
		}
	}
}

// TestFlatConcurrent runs Retrieve from several goroutines (meaningful under
// -race) and checks every result equals the sequential one.
func TestFlatConcurrent(t *testing.T) {
	d := oneCorpus(
		datasets.Trace{ID: "a", Time: day(1), Text: "marathon in Berlin"},
		datasets.Trace{ID: "b", Time: day(2), Text: "marathon training in the rain"},
		datasets.Trace{ID: "c", Text: "rain again"},
	)
	f, err := NewFlat(d, BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	q := datasets.Question{ID: "q", CorpusID: "c", AskedAt: day(2), Text: "marathon rain"}
	want, _ := f.Retrieve(context.Background(), q, 3)
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		go func() {
			got, err := f.Retrieve(context.Background(), q, 3)
			if err != nil || len(got) != len(want) || got[0].UnitID != want[0].UnitID || got[0].Score != want[0].Score {
				errs <- fmt.Sprintf("%v %v", got, err)
				return
			}
			errs <- ""
		}()
	}
	for g := 0; g < 8; g++ {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}
