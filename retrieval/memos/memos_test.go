package memos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/retrieval"
)

// fakeClient returns an *llm.Client on the fake server answering with r.
func fakeClient(t *testing.T, r llmtest.Responder) (*llm.Client, *llmtest.Server) {
	t.Helper()
	srv, err := llmtest.Start(llmtest.Options{Responder: r})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cfg := llm.SingleEndpoint(srv.URL(), "test-model")
	cfg.Endpoints["default"].MaxAttempts = 1
	c, err := llm.New(cfg, llm.Options{BackoffBase: time.Millisecond, BackoffMax: time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

func embedderFor(t *testing.T, traces []datasets.Trace) llm.Embedder {
	t.Helper()
	texts := []string{"placeholder text"}
	for _, tr := range traces {
		texts = append(texts, tr.Text)
	}
	e, err := offline.FitHashedTFIDF(texts, offline.HashedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func day(d int) time.Time { return time.Date(2024, 1, d, 12, 0, 0, 0, time.UTC) }

func TestNewNeedsModel(t *testing.T) {
	emb := embedderFor(t, nil)
	for _, tc := range []struct {
		name string
		cfg  Config
		emb  llm.Embedder
	}{{"fine without chat", Config{Mode: ModeFine}, emb}, {"no embedder", Config{}, nil}} {
		_, err := New(tc.cfg, nil, tc.emb)
		if !errors.Is(err, retrieval.ErrNeedsModel) {
			t.Errorf("%s: err = %v, want ErrNeedsModel", tc.name, err)
		}
	}
	if _, err := New(Config{Mode: "slow"}, nil, emb); err == nil || !strings.Contains(err.Error(), `mode "slow"`) {
		t.Errorf("bad mode: err = %v", err)
	}
	m, err := New(Config{}, nil, emb)
	if err != nil {
		t.Fatal(err)
	}
	if n := m.Name(); !strings.Contains(n, "mode=fast") || !strings.Contains(n, "caps=20/1000000/1000000") || !strings.Contains(n, "window=10,overlap=2") {
		t.Errorf("Name = %q lacks its knobs", n)
	}
}

func TestWindows(t *testing.T) {
	for _, tc := range []struct {
		n, w, o int
		want    string
	}{{0, 10, 2, "[]"}, {1, 10, 2, "[[0 1]]"}, {10, 10, 2, "[[0 10]]"}, {11, 10, 2, "[[0 10] [8 11]]"}, {20, 10, 2, "[[0 10] [8 18] [16 20]]"}, {3, 1, 0, "[[0 1] [1 2] [2 3]]"}} {
		if got := fmt.Sprint(windows(tc.n, tc.w, tc.o)); got != tc.want {
			t.Errorf("windows(%d,%d,%d) = %s, want %s", tc.n, tc.w, tc.o, got, tc.want)
		}
	}
}

func corpusTraces() []datasets.Trace {
	return []datasets.Trace{
		{ID: "a", Time: day(1), Text: "I rented a cello today and booked a lesson with Helen."},
		{ID: "b", Time: day(2), Text: "Shopping list: oat milk, lentils, lemons."},
		{ID: "c", Time: day(3), Text: "BADJSON the kettle broke again."},
		{ID: "d", Time: day(4), Text: "Ran my first parkrun in 34 minutes."},
		{ID: "e", Time: day(5), Text: "NOTHING to remember here."},
	}
}

// responder answers the extraction prompt by the window's content and the
// goal prompt with fixed keys.
func responder(call llmtest.ChatCall) (string, error) {
	p := call.Messages[len(call.Messages)-1].Content
	switch {
	case strings.Contains(p, "would remember"):
		switch {
		case strings.Contains(p, "BADJSON"):
			return "sorry, I cannot do that", nil
		case strings.Contains(p, "NOTHING"):
			return `{"memory list": [], "summary": "nothing"}`, nil
		case strings.Contains(p, "cello"):
			return `{"memory list": [{"key": "Cello lessons", "memory_type": "UserMemory", "value": "Ines rented a cello and booked lessons with Helen.", "tags": ["music", "cello"]}, {"key": "", "memory_type": "LongTermMemory", "value": "  ", "tags": []}], "summary": "cello"}`, nil
		case strings.Contains(p, "parkrun"):
			return `{"memory list": [{"key": "Parkrun", "memory_type": "LongTermMemory", "value": "Ines ran her first parkrun in 34 minutes.", "tags": ["running", "sport"]}], "summary": "run"}`, nil
		}
		return `{"memory list": [], "summary": ""}`, nil
	case strings.Contains(p, "about to search"):
		return `{"keys": ["Parkrun"], "tags": ["running"], "goal_type": "qa", "rephrased_instruction": "what time did Ines run at parkrun", "internet_search": false, "memories": ["first parkrun time"]}`, nil
	}
	return "", fmt.Errorf("unexpected prompt %q", p)
}

func TestFineMode(t *testing.T) {
	cl, srv := fakeClient(t, responder)
	traces := corpusTraces()
	m, err := New(Config{Mode: ModeFine, Window: 1, NoOverlap: true}, cl, embedderFor(t, traces))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := m.Ingest(ctx, "c1", traces); err != nil {
		t.Fatal(err)
	}
	st := m.Stats()
	if st.Windows != 5 || st.ExtractCalls != 5 || st.ExtractFailures != 1 || st.EmptyWindows != 2 {
		t.Errorf("stats = %+v, want 5 windows, 5 calls, 1 failure (BADJSON), 2 empty (b, e)", st)
	}
	users, long := m.Items("c1", TypeUser), m.Items("c1", TypeLongTerm)
	// a: cello (UserMemory); c: raw fallback (UserMemory); d: parkrun (LTM)
	if len(users) != 2 || len(long) != 1 {
		t.Fatalf("user %d long %d items, want 2 and 1", len(users), len(long))
	}
	if users[0].Memory != "Ines rented a cello and booked lessons with Helen." || fmt.Sprint(users[0].TraceIDs) != "[a]" || users[0].Key != "Cello lessons" {
		t.Errorf("cello item = %+v", users[0])
	}
	if !strings.Contains(users[1].Memory, "BADJSON") || fmt.Sprint(users[1].TraceIDs) != "[c]" || fmt.Sprint(users[1].Tags) != "[mode:fast]" {
		t.Errorf("fallback item = %+v, want the raw trace c", users[1])
	}
	if long[0].TraceIDs[0] != "d" || !long[0].Time.Equal(day(4)) {
		t.Errorf("parkrun item = %+v", long[0])
	}
	if got := len(m.Items("c1", TypeWorking)); got != 3 {
		t.Errorf("working memory holds %d, want 3", got)
	}
	hits, err := m.Search(ctx, datasets.Question{ID: "q", CorpusID: "c1", Text: "How fast was your first run?", AskedAt: day(10)}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].TraceIDs[0] != "d" || hits[0].Kind != retrieval.KindMemory {
		t.Errorf("hits = %+v, want the parkrun memory first (graph recall by key)", hits)
	}
	mt := m.Meter()
	if mt.IngestCalls != 5 || mt.QueryCalls != 1 || mt.IngestEmbeds != 3 || mt.QueryEmbeds != 3 || mt.IngestTokens == 0 {
		t.Errorf("meter = %+v, want 5 ingest calls, 1 query call, 3 ingest embeds, 1+2 query embeds", mt)
	}
	if len(srv.Calls()) != 6 {
		t.Errorf("the fake server saw %d chat calls, want 6", len(srv.Calls()))
	}
	// asked before the parkrun: its memory is not admitted
	hits, err = m.Search(ctx, datasets.Question{ID: "q2", CorpusID: "c1", Text: "first parkrun time", AskedAt: day(3)}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Time.After(day(3)) {
			t.Errorf("hit %s dated %s after the question", h.UnitID, h.Time)
		}
	}
}

func TestFastWindowsAndCaps(t *testing.T) {
	traces := corpusTraces()
	m, err := New(Config{Window: 3, Overlap: 1, WorkingCap: 1, UserCap: 1}, nil, embedderFor(t, traces))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := m.Ingest(ctx, "c", traces); err != nil {
		t.Fatal(err)
	}
	// windows [a b c] [c d e]; caps keep only the last
	users := m.Items("c", TypeUser)
	if len(users) != 1 || fmt.Sprint(users[0].TraceIDs) != "[c d e]" || !strings.Contains(users[0].Memory, "user: [2024-01-04 12:00]: Ran my first parkrun") {
		t.Errorf("user items = %+v", users)
	}
	if mt := m.Meter(); mt.IngestCalls != 0 || mt.IngestEmbeds != 2 {
		t.Errorf("meter = %+v, want no call and 2 embeds", mt)
	}
}

// TestTemporalSample runs fast and one-trace MemOS through the temporal
// protocol on the sample personas: no returned trace is dated after its
// question.
func TestTemporalSample(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	var all []datasets.Trace
	for _, c := range d.Corpora {
		all = append(all, c.Traces...)
	}
	emb := embedderFor(t, all)
	times := map[string]time.Time{}
	for _, c := range d.Corpora {
		for _, tr := range c.Traces {
			times[c.ID+"/"+tr.ID] = tr.Time
		}
	}
	qs := append([]datasets.Question(nil), d.Questions...)
	sortByAsked(qs)
	for _, cfg := range []Config{{}, {Window: 1, NoOverlap: true}} {
		m, err := New(cfg, nil, emb)
		if err != nil {
			t.Fatal(err)
		}
		sys := retrieval.NewIncremental(d, m)
		found := 0
		for _, q := range qs {
			hits, err := sys.Retrieve(context.Background(), q, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 {
				t.Errorf("%s: %s: no hit", m.Name(), q.ID)
			}
			for _, h := range hits {
				for _, id := range h.TraceIDs {
					if tt := times[q.CorpusID+"/"+id]; tt.After(q.AskedAt) {
						t.Errorf("%s: %s asked %s got trace %s of %s", m.Name(), q.ID, q.AskedAt, id, tt)
					}
				}
			}
			if retrieval.ScoreRetrieval(retrieval.TraceRanking(hits), q.Evidence, 10).AnyAny == 1 {
				found++
			}
		}
		if found < len(qs)/3 {
			t.Errorf("%s: any gold trace in the top 10 for only %d of %d questions", m.Name(), found, len(qs))
		}
	}
}

func sortByAsked(qs []datasets.Question) {
	for i := 1; i < len(qs); i++ {
		for j := i; j > 0 && qs[j].AskedAt.Before(qs[j-1].AskedAt); j-- {
			qs[j], qs[j-1] = qs[j-1], qs[j]
		}
	}
}

func TestEdgeCases(t *testing.T) {
	ctx := context.Background()
	zh := []datasets.Trace{{ID: "z1", Time: day(1), Text: "我今天去游泳了，教练说我进步很大。"}, {ID: "z2", Time: day(2), Text: ""}, {ID: "z3", Time: day(3), Text: "公司又要大小周，我很累。"}}
	emb := embedderFor(t, zh)
	m, err := New(Config{Window: 1, NoOverlap: true}, nil, emb)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Ingest(ctx, "zh", zh); err != nil {
		t.Fatal(err)
	}
	if err := m.Ingest(ctx, "zh", nil); err != nil {
		t.Fatal(err)
	}
	hits, err := m.Search(ctx, datasets.Question{ID: "q", CorpusID: "zh", Text: "你游泳怎么样？", AskedAt: day(5)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].UnitID == "" || hits[0].TraceIDs[0] != "z1" || hits[0].Kind != retrieval.KindChunk {
		t.Errorf("Chinese hits = %+v, want z1 as a chunk", hits)
	}
	// a question before every trace, an unknown corpus, k = 0, negative k
	for _, q := range []datasets.Question{{ID: "early", CorpusID: "zh", Text: "游泳", AskedAt: day(1).Add(-time.Hour)}, {ID: "other", CorpusID: "nope", Text: "x"}} {
		if hits, err := m.Search(ctx, q, 5); err != nil || len(hits) != 0 {
			t.Errorf("%s: hits %v err %v, want none", q.ID, hits, err)
		}
	}
	if _, err := m.Search(ctx, datasets.Question{ID: "neg", CorpusID: "zh"}, -1); err == nil {
		t.Error("negative k: no error")
	}
	// one-trace corpus in default windows; an empty trace still maps to its id
	one, err := New(Config{}, nil, emb)
	if err != nil {
		t.Fatal(err)
	}
	if err := one.Ingest(ctx, "one", zh[1:2]); err != nil {
		t.Fatal(err)
	}
	hits, err = one.Search(ctx, datasets.Question{ID: "q", CorpusID: "one", Text: "anything"}, 3)
	if err != nil || len(hits) != 1 || fmt.Sprint(hits[0].TraceIDs) != "[z2]" {
		t.Errorf("one-trace corpus: hits %+v err %v", hits, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := one.Ingest(cctx, "one", zh); err == nil {
		t.Error("cancelled ingest: no error")
	}
}
