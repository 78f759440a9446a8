package weaviate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/text"
)

// Integration tests run against a real server: the one named by
// MEMLAB_WEAVIATE_URL (and MEMLAB_WEAVIATE_GRPC), else one answering at
// http://127.0.0.1:8089 (gRPC 127.0.0.1:50051). Without either they skip.

const defaultTestURL = "http://127.0.0.1:8089"

// testDims is the embedding length in these tests: small, so that the query
// vectors GraphQL carries as text stay short.
const testDims = 256

// server returns the URL and gRPC address of the test server, or skips.
func server(t testing.TB) (string, string) {
	t.Helper()
	u, g := os.Getenv(EnvURL), os.Getenv(EnvGRPC)
	explicit := u != ""
	if !explicit {
		u, g = defaultTestURL, "127.0.0.1:50051"
	}
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(strings.TrimSuffix(u, "/") + "/v1/.well-known/ready")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return u, g
		}
		err = errors.New(resp.Status)
	}
	if explicit {
		t.Fatalf("%s=%s is set but the server is not ready: %v", EnvURL, u, err)
	}
	t.Skipf("no Weaviate server: %s is unset and nothing answers at %s/v1/.well-known/ready (start one with: eval \"$(scripts/weaviate-start.sh)\")", EnvURL, defaultTestURL)
	return "", ""
}

// openTest opens a store on a fresh, uniquely named collection that is
// dropped when the test ends.
func openTest(t *testing.T, cfg Config) *Store {
	t.Helper()
	u, g := server(t)
	if cfg.URL == "" {
		cfg.URL, cfg.GRPC = u, g
	}
	if cfg.Collection == "" {
		b := make([]byte, 4)
		rand.Read(b)
		name := SanitizeClassName(t.Name())
		if len(name) > 40 {
			name = name[:40]
		}
		cfg.Collection = "Test" + name + hex.EncodeToString(b)
	}
	if cfg.Dims == 0 {
		cfg.Dims = testDims
	}
	ctx := context.Background()
	s, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Drop(context.Background()); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return s
}

func sampleEmbedder(t *testing.T, d *datasets.Dataset) *offline.HashedTFIDF {
	t.Helper()
	var texts []string
	for _, c := range d.Corpora {
		for _, tr := range c.Traces {
			texts = append(texts, tr.Text)
		}
	}
	emb, err := offline.FitHashedTFIDF(texts, offline.HashedOptions{Dims: testDims})
	if err != nil {
		t.Fatal(err)
	}
	return emb
}

// checkAdmitted fails when a hit names a trace that does not exist at q's
// time, or a trace of another corpus.
func checkAdmitted(t *testing.T, d *datasets.Dataset, q datasets.Question, hits []retrieval.Hit) {
	t.Helper()
	ok := map[string]bool{}
	for _, tr := range datasets.Admit(d.Corpus(q.CorpusID).Traces, q.AskedAt) {
		ok[tr.ID] = true
	}
	for _, h := range hits {
		if len(h.TraceIDs) == 0 {
			t.Errorf("question %s: hit %q has no trace ids", q.ID, h.UnitID)
		}
		for _, id := range h.TraceIDs {
			if !ok[id] {
				t.Errorf("question %s asked %s: hit trace %q is not admitted (time %s)", q.ID, q.AskedAt.Format(time.RFC3339), id, h.Time.Format(time.RFC3339))
			}
		}
		if !h.Time.IsZero() && !q.AskedAt.IsZero() && h.Time.After(q.AskedAt) {
			t.Errorf("question %s: hit %q dated %s after %s", q.ID, h.UnitID, h.Time, q.AskedAt)
		}
	}
}

// TestSample ingests the bundled sample into one collection and checks
// counts, idempotent re-ingest, temporal admission in every mode, dense
// search against a brute-force cosine ranking, and BM25 on unique words.
func TestSample(t *testing.T) {
	ctx := context.Background()
	server(t)
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	emb := sampleEmbedder(t, d)
	store := openTest(t, Config{})
	dense, err := NewSystem(store, emb, SystemConfig{Mode: ModeDense, Ingest: IngestAll})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := dense.IngestDataset(ctx, d); err != nil {
		t.Fatal(err)
	}
	t.Logf("ingest of the sample: %v", time.Since(start))
	total := 0
	counts := func() {
		t.Helper()
		for _, c := range d.Corpora {
			n, err := store.Count(ctx, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if n != len(c.Traces) {
				t.Errorf("corpus %s: %d objects, want %d", c.ID, n, len(c.Traces))
			}
		}
		n, err := store.Count(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if n != total {
			t.Errorf("collection: %d objects, want %d", n, total)
		}
	}
	for _, c := range d.Corpora {
		total += len(c.Traces)
	}
	counts()
	if m := dense.Meter(); m.IngestEmbeds != total || m.QueryEmbeds != 0 {
		t.Errorf("meter after ingest = %+v, want %d ingest embeds", m, total)
	}
	// re-ingest: same ids, so the count is unchanged
	if err := dense.IngestDataset(ctx, d); err != nil {
		t.Fatal(err)
	}
	counts()

	// brute-force vectors of every trace
	vecs := map[string][]float32{}
	for _, c := range d.Corpora {
		texts := make([]string, len(c.Traces))
		for i, tr := range c.Traces {
			texts[i] = tr.Text
		}
		vs, err := emb.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, tr := range c.Traces {
			vecs[c.ID+"\x00"+tr.ID] = vs[i]
		}
	}

	const k = 10
	bm25, err := NewSystem(store, nil, SystemConfig{Mode: ModeBM25, Ingest: IngestAll})
	if err != nil {
		t.Fatal(err)
	}
	hybrid, err := NewSystem(store, emb, SystemConfig{Mode: ModeHybrid, Alpha: 0.5, Ingest: IngestAll})
	if err != nil {
		t.Fatal(err)
	}
	for _, sys := range []*System{dense, bm25, hybrid} {
		t.Run("temporal/"+sys.Config().Mode, func(t *testing.T) {
			for _, q := range d.Questions {
				hits, err := sys.Retrieve(ctx, q, k)
				if err != nil {
					t.Fatal(err)
				}
				checkAdmitted(t, d, q, hits)
				admitted := len(datasets.Admit(d.Corpus(q.CorpusID).Traces, q.AskedAt))
				if sys.Config().Mode != ModeBM25 && len(hits) != min(k, admitted) {
					t.Errorf("question %s: %d hits, want min(k=%d, %d admitted): admission must not shorten the result", q.ID, len(hits), k, admitted)
				}
				if len(hits) > k {
					t.Errorf("question %s: %d hits > k", q.ID, len(hits))
				}
				for i, h := range hits {
					tr := findTrace(d.Corpus(q.CorpusID), h.UnitID)
					if tr == nil || h.Kind != retrieval.KindChunk || !h.Time.Equal(tr.Time) || h.Text != tr.Text ||
						len(h.TraceIDs) != 1 || h.TraceIDs[0] != tr.ID {
						t.Fatalf("question %s: hit %+v does not map back to its trace", q.ID, h)
					}
					if i > 0 && h.Score > hits[i-1].Score+1e-6 {
						t.Errorf("question %s: scores not descending at %d: %v > %v", q.ID, i, h.Score, hits[i-1].Score)
					}
				}
			}
		})
	}
	if m := dense.Meter(); m.QueryEmbeds != len(d.Questions) {
		t.Errorf("dense meter: %d query embeds, want %d", m.QueryEmbeds, len(d.Questions))
	}
	if m := bm25.Meter(); m != (retrieval.Meter{}) {
		t.Errorf("bm25 meter = %+v, want nothing embedded", m)
	}

	t.Run("dense equals brute force", func(t *testing.T) {
		for _, q := range d.Questions {
			hits, err := dense.Retrieve(ctx, q, k)
			if err != nil {
				t.Fatal(err)
			}
			qv, _ := emb.Embed(ctx, []string{q.Text})
			type sc struct {
				id string
				s  float64
			}
			var want []sc
			score := map[string]float64{}
			for _, tr := range datasets.Admit(d.Corpus(q.CorpusID).Traces, q.AskedAt) {
				s := retrieval.Cosine(qv[0], vecs[q.CorpusID+"\x00"+tr.ID])
				want = append(want, sc{tr.ID, s})
				score[tr.ID] = s
			}
			sort.SliceStable(want, func(i, j int) bool { return want[i].s > want[j].s })
			want = want[:min(k, len(want))]
			if len(hits) != len(want) {
				t.Fatalf("question %s: %d hits, want %d", q.ID, len(hits), len(want))
			}
			for i, h := range hits {
				const tie = 1e-5
				if h.UnitID != want[i].id && math.Abs(score[h.UnitID]-want[i].s) > tie {
					t.Errorf("question %s rank %d: got %s (cos %.6f), want %s (cos %.6f)", q.ID, i, h.UnitID, score[h.UnitID], want[i].id, want[i].s)
				}
				if math.Abs(h.Score-score[h.UnitID]) > 1e-4 {
					t.Errorf("question %s rank %d: Score %.6f, brute-force cosine %.6f", q.ID, i, h.Score, score[h.UnitID])
				}
			}
		}
	})

	t.Run("bm25 finds a trace by its unique word", func(t *testing.T) {
		checked := 0
		for _, c := range d.Corpora {
			df := map[string]int{}
			for _, tr := range c.Traces {
				seen := map[string]bool{}
				for _, tok := range text.Tokens(tr.Text) {
					if !seen[tok] {
						seen[tok] = true
						df[tok]++
					}
				}
			}
			found := 0
			for _, tr := range c.Traces {
				if found == 3 {
					break
				}
				word := ""
				for _, tok := range text.Tokens(tr.Text) {
					if df[tok] == 1 && len([]rune(tok)) >= 2 {
						word = tok
						break
					}
				}
				if word == "" {
					continue
				}
				found++
				hits, err := bm25.Retrieve(ctx, datasets.Question{ID: "lex", CorpusID: c.ID, Text: "about " + word + "?"}, 3)
				if err != nil {
					t.Fatal(err)
				}
				if len(hits) == 0 || hits[0].UnitID != tr.ID {
					t.Errorf("corpus %s: bm25 %q: got %v, want %s first", c.ID, word, unitIDs(hits), tr.ID)
				}
				// the same query at a time before the trace must not find it
				if !tr.Time.IsZero() {
					early := datasets.Question{ID: "lex-early", CorpusID: c.ID, Text: word, AskedAt: tr.Time.Add(-time.Second)}
					hits, err := hybrid.Retrieve(ctx, early, 3)
					if err != nil {
						t.Fatal(err)
					}
					for _, h := range hits {
						if h.UnitID == tr.ID {
							t.Errorf("corpus %s: hybrid %q asked before trace %s returned it", c.ID, word, tr.ID)
						}
					}
					checkAdmitted(t, d, early, hits)
				}
			}
			checked += found
		}
		if checked < 4 {
			t.Errorf("only %d traces with a unique word checked", checked)
		}
	})

	t.Run("hybrid ranks the lexical match first", func(t *testing.T) {
		c := d.Corpus("p01_en")
		tr := c.Traces[len(c.Traces)/2]
		hits, err := hybrid.Retrieve(ctx, datasets.Question{ID: "h", CorpusID: c.ID, Text: tr.Text, AskedAt: tr.Time}, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].UnitID != tr.ID {
			t.Errorf("hybrid with the trace's own text: got %v, want %s first", unitIDs(hits), tr.ID)
		}
	})

	t.Run("question before every trace", func(t *testing.T) {
		for _, sys := range []*System{dense, bm25, hybrid} {
			q := datasets.Question{ID: "early", CorpusID: "p01_en", Text: "cello", AskedAt: time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)}
			hits, err := sys.Retrieve(ctx, q, k)
			if err != nil || len(hits) != 0 {
				t.Errorf("%s: %v, %v; want no hits and no error", sys.Name(), unitIDs(hits), err)
			}
		}
	})

	t.Run("unknown corpus and bad k", func(t *testing.T) {
		hits, err := dense.Retrieve(ctx, datasets.Question{ID: "x", CorpusID: "nobody", Text: "cello"}, k)
		if err != nil || len(hits) != 0 {
			t.Errorf("unknown corpus: %v, %v", hits, err)
		}
		if _, err := dense.Retrieve(ctx, datasets.Question{ID: "x", CorpusID: "p01_en"}, -1); err == nil {
			t.Error("k = -1: no error")
		}
	})
}

// unitIDs lists the unit ids of hits (for messages).
func unitIDs(hits []retrieval.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.UnitID)
	}
	return out
}

func findTrace(c *datasets.Corpus, id string) *datasets.Trace {
	for i := range c.Traces {
		if c.Traces[i].ID == id {
			return &c.Traces[i]
		}
	}
	return nil
}

// TestIncrementalSample runs the Memory protocol (retrieval.NewIncremental)
// on the sample: traces go in as each corpus's questions come, in asked-at
// order, and no hit is ever a future trace.
func TestIncrementalSample(t *testing.T) {
	ctx := context.Background()
	server(t)
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	emb := sampleEmbedder(t, d)
	sys, err := NewSystem(openTest(t, Config{}), emb, SystemConfig{Mode: ModeHybrid})
	if err != nil {
		t.Fatal(err)
	}
	inc := retrieval.NewIncremental(d, sys)
	qs := append([]datasets.Question(nil), d.Questions...)
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].AskedAt.Before(qs[j].AskedAt) })
	for _, q := range qs {
		hits, err := inc.Retrieve(ctx, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		checkAdmitted(t, d, q, hits)
		if len(hits) == 0 {
			t.Errorf("question %s: no hits", q.ID)
		}
	}
	if !strings.HasPrefix(inc.Name(), "weaviate-hybrid(alpha=0.5,index=flat,emb=hashed-tfidf") {
		t.Errorf("Name = %q", inc.Name())
	}
}

// TestEdgeCases: unknown times, empty content, Chinese text, a corpus of
// one trace, HNSW.
func TestEdgeCases(t *testing.T) {
	ctx := context.Background()
	server(t)
	day := func(n int) time.Time { return time.Date(2024, 1, n, 12, 0, 0, 0, time.UTC) }
	d := &datasets.Dataset{Name: "edge", Corpora: []*datasets.Corpus{
		{ID: "c", Traces: []datasets.Trace{
			{ID: "t1", Time: day(1), Medium: "diary", Text: "Bought a cello in Leipzig"},
			{ID: "t2", Medium: "memo", Text: "Cello lessons every Tuesday (date unknown)"},
			{ID: "t3", Time: day(5), Medium: "chat_private", Text: ""},
			{ID: "t4", Time: day(9), Medium: "diary", Text: "我今天在北京买了一把大提琴"},
		}},
		{ID: "solo", Traces: []datasets.Trace{{ID: "only", Time: day(3), Text: "The only trace of this corpus"}}},
	}}
	var texts []string
	for _, c := range d.Corpora {
		for _, tr := range c.Traces {
			texts = append(texts, tr.Text)
		}
	}
	emb, err := offline.FitHashedTFIDF(texts, offline.HashedOptions{Dims: testDims})
	if err != nil {
		t.Fatal(err)
	}
	for _, index := range []string{IndexFlat, IndexHNSW} {
		t.Run(index, func(t *testing.T) {
			store := openTest(t, Config{Index: index})
			if store.Index() != index {
				t.Errorf("Index = %q, want %q", store.Index(), index)
			}
			sys := map[string]*System{}
			for _, mode := range []string{ModeDense, ModeBM25, ModeHybrid} {
				e := emb
				if mode == ModeBM25 {
					e = nil
				}
				s, err := NewSystem(store, e, SystemConfig{Mode: mode, Ingest: IngestAll})
				if err != nil {
					t.Fatal(err)
				}
				sys[mode] = s
			}
			if err := sys[ModeDense].IngestDataset(ctx, d); err != nil {
				t.Fatal(err)
			}
			if n, err := store.Count(ctx, ""); err != nil || n != 5 {
				t.Fatalf("count = %d, %v; want 5 (the empty-content trace too)", n, err)
			}
			cases := []struct {
				mode, corpus, text string
				at                 time.Time
				want               []string // as a set when sorted
			}{
				{ModeDense, "c", "cello", day(1), []string{"t1", "t2"}},
				{ModeDense, "c", "cello", day(0), []string{"t2"}}, // before every dated trace: the unknown-time one
				{ModeDense, "c", "cello", time.Time{}, []string{"t1", "t2", "t3", "t4"}},
				{ModeDense, "c", "cello", day(6), []string{"t1", "t2", "t3"}},
				{ModeHybrid, "c", "cello", day(6), []string{"t1", "t2", "t3"}},
				{ModeBM25, "c", "cello", day(6), []string{"t1", "t2"}},
				{ModeBM25, "c", "北京大提琴", day(9), []string{"t4"}},
				{ModeBM25, "c", "北京大提琴", day(8), nil},
				{ModeDense, "solo", "anything", day(3), []string{"only"}},
				{ModeDense, "solo", "anything", day(2), nil},
				{ModeBM25, "c", "?!", day(9), nil},                          // no token: no hits
				{ModeHybrid, "c", "?!", day(6), []string{"t1", "t2", "t3"}}, // no token: the vector side alone
			}
			for _, tc := range cases {
				hits, err := sys[tc.mode].Retrieve(ctx, datasets.Question{ID: "q", CorpusID: tc.corpus, Text: tc.text, AskedAt: tc.at}, 10)
				if err != nil {
					t.Fatalf("%s %q at %s: %v", tc.mode, tc.text, tc.at, err)
				}
				got := unitIDs(hits)
				sort.Strings(got)
				if strings.Join(got, ",") != strings.Join(tc.want, ",") {
					t.Errorf("%s %q in %s at %s: got %v, want %v", tc.mode, tc.text, tc.corpus, tc.at.Format("2006-01-02"), got, tc.want)
				}
				for _, h := range hits {
					if h.UnitID == "t2" && !h.Time.IsZero() {
						t.Errorf("unknown-time trace came back with time %s", h.Time)
					}
				}
			}
			// the Chinese trace by its own vector comes first in dense search
			hits, err := sys[ModeDense].Retrieve(ctx, datasets.Question{ID: "zh", CorpusID: "c", Text: "我今天在北京买了一把大提琴"}, 1)
			if err != nil || len(hits) != 1 || hits[0].UnitID != "t4" || hits[0].Score < 0.999 {
				t.Errorf("dense with the Chinese trace's own text: %+v, %v", hits, err)
			}
		})
	}
}

// TestImportErrors: wrong vector length (client side), objects refused by
// the server (per object), a batch that fails as a whole, and resuming.
func TestImportErrors(t *testing.T) {
	ctx := context.Background()
	store := openTest(t, Config{BatchSize: 2})
	vec := func(x float32) []float32 {
		v := make([]float32, testDims)
		v[0], v[1] = 1, x
		return v
	}
	unit := func(id string, day int) retrieval.Unit {
		return retrieval.Unit{ID: id, TraceIDs: []string{id}, Time: time.Date(2024, 1, day, 0, 0, 0, 0, time.UTC), Text: "text of " + id}
	}

	t.Run("wrong vector length", func(t *testing.T) {
		err := store.Put(ctx, []Object{
			{Corpus: "c", Unit: unit("good", 1), Vector: vec(0)},
			{Corpus: "c", Unit: unit("short", 2), Vector: make([]float32, 5)},
		})
		if err == nil || !strings.Contains(err.Error(), `unit "short" of corpus "c": vector has 5 values, the collection holds 256-d vectors`) {
			t.Errorf("error = %v", err)
		}
		if n, _ := store.Count(ctx, ""); n != 0 {
			t.Errorf("%d objects stored after a refused import, want 0 (nothing is sent)", n)
		}
		_, err = store.Search(ctx, Query{Corpus: "c", K: 3, Mode: ModeDense, Vector: make([]float32, 7)})
		if err == nil || !strings.Contains(err.Error(), "query vector has 7 values") {
			t.Errorf("short query vector: %v", err)
		}
	})

	t.Run("per-object failures", func(t *testing.T) {
		objs := []Object{
			{Corpus: "c", Unit: unit("a", 1), Vector: vec(0.1)},
			{Corpus: "c", Unit: unit("bad-date", 2), Vector: vec(0.2)},
			{Corpus: "c", Unit: unit("b", 3), Vector: vec(0.3)},
			{Corpus: "c", Unit: unit("bad-prop", 4), Vector: vec(0.4)},
			{Corpus: "c", Unit: unit("c", 5), Vector: vec(0.5)},
		}
		built := make([]*models.Object, len(objs))
		for i, o := range objs {
			m, err := store.buildObject(o)
			if err != nil {
				t.Fatal(err)
			}
			built[i] = m
		}
		// what the server refuses: a date that is not RFC 3339, an unknown property
		built[1].Properties.(map[string]interface{})[PropEventTime] = "2024-01-02"
		built[3].Properties.(map[string]interface{})["bogus"] = "x"
		if err := store.ensureTenants(ctx, []string{"c"}); err != nil { // Put does this
			t.Fatal(err)
		}
		err := store.importObjects(ctx, built, objs)
		var ie *ImportError
		if !errors.As(err, &ie) {
			t.Fatalf("error %v, want an *ImportError", err)
		}
		if ie.Transport != nil || ie.Total != 5 || ie.Sent != 5 || len(ie.Failures) != 2 {
			t.Fatalf("ImportError = %+v", ie)
		}
		if f := ie.Failures[0]; f.UnitID != "bad-date" || f.Corpus != "c" || f.UUID != ObjectID("c", "bad-date") || !strings.Contains(strings.ToLower(f.Message), "date") {
			t.Errorf("failure 0 = %+v", f)
		}
		if f := ie.Failures[1]; f.UnitID != "bad-prop" || !strings.Contains(f.Message, "bogus") {
			t.Errorf("failure 1 = %+v", f)
		}
		if msg := err.Error(); !strings.Contains(msg, `trace "bad-date" of corpus "c"`) || !strings.Contains(msg, `trace "bad-prop" of corpus "c"`) {
			t.Errorf("the error does not name the traces: %v", err)
		}
		t.Logf("reported: %v", err)
		if n, _ := store.Count(ctx, "c"); n != 3 {
			t.Errorf("%d objects stored, want the 3 good ones", n)
		}
	})

	t.Run("concurrent batches of several corpora", func(t *testing.T) {
		// 5 corpora x 7 objects in batches of 2, 3 requests at once; one bad
		// object in two of the corpora
		many, err := Open(ctx, Config{URL: store.cfg.URL, GRPC: store.cfg.GRPC, Collection: store.cfg.Collection, BatchSize: 2, Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		var objs []Object
		for c := range 5 {
			for i := range 7 {
				objs = append(objs, Object{Corpus: fmt.Sprintf("m%d", c), Unit: unit(fmt.Sprintf("m%d-%d", c, i), i+1), Vector: vec(float32(i))})
			}
		}
		built := make([]*models.Object, len(objs))
		for i, o := range objs {
			if built[i], err = many.buildObject(o); err != nil {
				t.Fatal(err)
			}
		}
		built[9].Properties.(map[string]interface{})[PropEventTime] = "yesterday" // m1-2
		built[33].Properties.(map[string]interface{})["bogus"] = 1                // m4-5
		if err := many.ensureTenants(ctx, []string{"m0", "m1", "m2", "m3", "m4"}); err != nil {
			t.Fatal(err)
		}
		err = many.importObjects(ctx, built, objs)
		var ie *ImportError
		if !errors.As(err, &ie) || ie.Transport != nil || ie.Sent != 35 || len(ie.Failures) != 2 {
			t.Fatalf("error %v (%+v), want an *ImportError with 2 refused objects of 35 sent", err, ie)
		}
		if ie.Failures[0].UnitID != "m1-2" || ie.Failures[1].UnitID != "m4-5" || ie.Failures[1].Corpus != "m4" {
			t.Errorf("failures %+v, want m1-2 then m4-5 (the import's order)", ie.Failures)
		}
		for c := range 5 {
			want := 7
			if c == 1 || c == 4 {
				want = 6
			}
			if n, err := many.Count(ctx, fmt.Sprintf("m%d", c)); err != nil || n != want {
				t.Errorf("corpus m%d: %d objects, %v; want %d", c, n, err, want)
			}
		}
		// the good objects again, through Put: everything stored once
		if err := many.Put(ctx, append(append(objs[:9:9], objs[10:33]...), objs[34])); err != nil {
			t.Fatal(err)
		}
		if n, _ := many.Count(ctx, "m2"); n != 7 {
			t.Errorf("corpus m2 after a second import: %d objects, want 7", n)
		}
	})

	t.Run("transport failure then resume", func(t *testing.T) {
		objs := []Object{
			{Corpus: "d", Unit: unit("x1", 1), Vector: vec(1)},
			{Corpus: "d", Unit: unit("x2", 2), Vector: vec(2)},
			{Corpus: "d", Unit: unit("x3", 3), Vector: vec(3)},
		}
		// a store whose batch endpoint is dead, as when the server dies mid-import
		grpcDead := store.cfg
		grpcDead.GRPC = "127.0.0.1:1"
		grpcDead.Timeout = 5 * time.Second
		dead, err := Open(ctx, grpcDead)
		if err != nil {
			t.Fatal(err)
		}
		err = dead.Put(ctx, objs)
		var ie *ImportError
		if !errors.As(err, &ie) || ie.Transport == nil || ie.Sent != 0 || !strings.Contains(err.Error(), "running it again resumes") ||
			!strings.Contains(err.Error(), `objects of corpus "d", units "x`) {
			t.Fatalf("error %v, want an *ImportError with a transport failure naming the batch", err)
		}
		t.Logf("reported: %v", err)
		// partial state, then the full import again: each object once
		if err := store.Put(ctx, objs[:1]); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := store.Put(ctx, objs); err != nil {
				t.Fatal(err)
			}
		}
		if n, _ := store.Count(ctx, "d"); n != 3 {
			t.Errorf("%d objects after resuming, want 3", n)
		}
	})
}

// TestOpen: reopening checks the schema; bad configs and a dead server give
// clear errors.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	store := openTest(t, Config{Index: IndexHNSW})
	cfg := store.cfg
	cfg.Dims, cfg.Index = 0, ""
	again, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if again.Dims() != testDims || again.Index() != IndexHNSW {
		t.Errorf("reopened: dims %d index %q, want %d %q", again.Dims(), again.Index(), testDims, IndexHNSW)
	}
	bad := []struct {
		change func(*Config)
		want   string
	}{
		{func(c *Config) { c.Dims = 300 }, "holds 256-d vectors, Dims is 300"},
		{func(c *Config) { c.Index = IndexFlat }, `has a "hnsw" index, Index is "flat"`},
		{func(c *Config) { c.Collection = "lower" }, `collection "lower"`},
		{func(c *Config) { c.Index = "ivf" }, `index "ivf"`},
		{func(c *Config) { c.URL = "127.0.0.1:8089" }, "want http://host:port"},
		{func(c *Config) { c.Collection += "New"; c.Dims = 0 }, "does not exist and Dims is 0"},
		{func(c *Config) { c.URL = "http://127.0.0.1:1" }, "not ready"},
	}
	for _, b := range bad {
		c := store.cfg
		b.change(&c)
		if _, err := Open(ctx, c); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Open(%+v): error %v, want %q", c, err, b.want)
		}
	}
	// a class that is not a memlab collection
	foreign := store.cfg.Collection + "Foreign"
	if err := store.client.Schema().ClassCreator().WithClass(&models.Class{Class: foreign, Vectorizer: "none",
		Properties: []*models.Property{{Name: "x", DataType: []string{"text"}}}}).Do(ctx); err != nil {
		t.Fatal(err)
	}
	defer store.client.Schema().ClassDeleter().WithClassName(foreign).Do(ctx)
	c := store.cfg
	c.Collection = foreign
	if _, err := Open(ctx, c); err == nil || !strings.Contains(err.Error(), "not a memlab collection") {
		t.Errorf("Open of a foreign class: %v", err)
	}
	var typedNil *offline.HashedTFIDF
	for _, mode := range []string{ModeDense, ModeHybrid, ""} {
		if _, err := NewSystem(store, nil, SystemConfig{Mode: mode}); !errors.Is(err, retrieval.ErrNeedsModel) {
			t.Errorf("%q without an embedder: %v, want ErrNeedsModel", mode, err)
		}
		if _, err := NewSystem(store, typedNil, SystemConfig{Mode: mode}); !errors.Is(err, retrieval.ErrNeedsModel) {
			t.Errorf("%q with a nil *HashedTFIDF: %v, want ErrNeedsModel", mode, err)
		}
	}
	for _, c := range []SystemConfig{{Mode: "sparse"}, {Mode: ModeHybrid, Alpha: 1.5}, {Mode: ModeHybrid, Alpha: -0.1}, {EmbedBatch: -1}} {
		if _, err := NewSystem(store, &offline.HashedTFIDF{}, c); err == nil {
			t.Errorf("NewSystem(%+v): no error", c)
		}
	}
}
