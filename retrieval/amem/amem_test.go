package amem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/retrieval"
)

func fakeClient(t testing.TB, r llmtest.Responder) (*llm.Client, *llmtest.Server) {
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

func after(s, marker, end string) string {
	i := strings.Index(s, marker)
	if i < 0 {
		return ""
	}
	s = s[i+len(marker):]
	if j := strings.Index(s, end); j >= 0 {
		s = s[:j]
	}
	return s
}

var neighbourLine = regexp.MustCompile(`(?m)^memory index:(\d+)\ttalk start time:[^\t]*\tmemory content: ([^\t]*)\tmemory context: ([^\t]*)\tmemory keywords: ([^\t]*)\tmemory tags: (.*)$`)

// fakeModel is a deterministic stand-in for the model.
// Note: keywords = the first three words, context "About <first word>",
// tags ["tag-<first word>"]; "garble" gives an invalid answer.
// Evolution: a new note about "honey" links to every "tea" neighbour and
// to the missing index 7, takes the tags ["linked"], and rewrites the tea
// neighbours' context and tags (others keep theirs); "broken" gives an
// invalid answer; with linkFirst any other note with neighbours links to
// neighbour 0; else no evolution.
// Keywords: the lowercased question; "garble" gives an invalid answer.
func fakeModel(linkFirst bool) llmtest.Responder {
	return func(call llmtest.ChatCall) (string, error) {
		p := call.LastUser()
		switch {
		case strings.HasPrefix(p, markerNote):
			content := after(p, "Text:\n", "\n\nAnswer")
			if strings.Contains(content, "garble") {
				return "no json here", nil
			}
			w := strings.Fields(strings.ToLower(content))
			js, _ := json.Marshal(map[string]any{"keywords": w[:min(3, len(w))], "context": "About " + w[0], "tags": []string{"tag-" + w[0]}})
			return string(js), nil
		case strings.HasPrefix(p, markerEvolve):
			content := after(p, "\ncontent: ", "\n")
			if strings.Contains(content, "broken") {
				return `{"should_evolve": tru`, nil
			}
			lines := neighbourLine.FindAllStringSubmatch(p, -1)
			none := `{"should_evolve": false, "actions": [], "suggested_connections": [], "tags_to_update": [], "new_context_neighborhood": [], "new_tags_neighborhood": []}`
			switch {
			case strings.Contains(content, "honey"):
				conns := []int{}
				ctxs := []string{}
				tags := [][]string{}
				for _, l := range lines {
					var old []string
					_ = json.Unmarshal([]byte(l[5]), &old)
					if strings.Contains(l[2], "tea") {
						var i int
						fmt.Sscan(l[1], &i)
						conns = append(conns, i)
						ctxs = append(ctxs, "evolved context")
						tags = append(tags, []string{"evolved"})
					} else {
						ctxs = append(ctxs, l[3])
						tags = append(tags, old)
					}
				}
				conns = append(conns, 7)
				js, _ := json.Marshal(map[string]any{"should_evolve": true, "actions": []string{"strengthen", "update_neighbor"},
					"suggested_connections": conns, "tags_to_update": []string{"linked"}, "new_context_neighborhood": ctxs, "new_tags_neighborhood": tags})
				return string(js), nil
			case linkFirst && len(lines) > 0:
				return `{"should_evolve": "True", "actions": ["strengthen"], "suggested_connections": ["0"], "tags_to_update": ["x"], "new_context_neighborhood": [], "new_tags_neighborhood": []}`, nil
			}
			return none, nil
		case strings.HasPrefix(p, markerKeywords):
			q := after(p, "Question:\n", "\n\n")
			if strings.Contains(q, "garble") {
				return "``` nothing", nil
			}
			js, _ := json.Marshal(map[string]string{"keywords": strings.ToLower(q)})
			return string(js), nil
		}
		return "", fmt.Errorf("unexpected prompt %q", p)
	}
}

func day(d int) time.Time { return time.Date(2024, 3, d, 9, 0, 0, 0, time.UTC) }

var handmade = []datasets.Trace{
	{ID: "t1", Time: day(1), Text: "Green tea every morning before work."},
	{ID: "t2", Time: day(2), Text: "Cello lessons with Helen on Tuesdays."},
	{ID: "t3", Time: day(3), Text: "Green tea with honey every morning now."},
	{ID: "t4", Time: day(4), Text: "A garble of words."},
	{ID: "t5", Time: day(5), Text: ""},
	{ID: "t6", Time: day(6), Text: "Something broken here."},
	{ID: "t7", Time: day(7), Text: "周末和朋友去爬山。"},
}

func embedder(t testing.TB, traces []datasets.Trace) llm.Embedder {
	t.Helper()
	var texts []string
	for _, tr := range traces {
		texts = append(texts, tr.Text)
	}
	e, err := offline.FitHashedTFIDF(texts, offline.HashedOptions{Dims: 256})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func noteByTrace(ns []Note, trace string) Note {
	for _, n := range ns {
		if n.TraceID == trace {
			return n
		}
	}
	return Note{}
}

func TestIngestLinksAndEvolution(t *testing.T) {
	research := DefaultConfig()
	rebuildEach := DefaultConfig()
	rebuildEach.EvoThreshold = 1
	textMode := DefaultConfig()
	textMode.NoJSONMode = true
	for _, tc := range []struct {
		name         string
		cfg          Config
		calls        int
		embeds       int
		rebuilds     int
		docEvolved   bool   // n1's index text holds its evolved context
		docSeparator string // how n1's index text begins
	}{
		{"research", research, 12, 12, 0, false, "content:Green tea"},
		{"research text mode", textMode, 12, 12, 0, false, "content:Green tea"},
		{"research rebuild every evolution", rebuildEach, 12, 15, 1, true, "Green tea every morning before work. , evolved context"},
		{"library", LibraryConfig(), 11, 14, 0, true, "content:Green tea"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, srv := fakeClient(t, fakeModel(false))
			m, err := New(client, embedder(t, handmade), tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Ingest(context.Background(), "c", handmade); err != nil {
				t.Fatal(err)
			}
			ns := m.Notes("c")
			if len(ns) != 7 {
				t.Fatalf("%d notes, want one per trace", len(ns))
			}
			n1, n2, n3, n4 := noteByTrace(ns, "t1"), noteByTrace(ns, "t2"), noteByTrace(ns, "t3"), noteByTrace(ns, "t4")
			// links: n3 -> n1 only (index 7 dangles), stored both ways
			if fmt.Sprint(n3.Links) != "[n1]" || fmt.Sprint(n1.Backlinks) != "[n3]" || len(n2.Links)+len(n2.Backlinks)+len(n1.Links) != 0 {
				t.Errorf("links n1 %v<-%v n2 %v<-%v n3 %v", n1.Links, n1.Backlinks, n2.Links, n2.Backlinks, n3.Links)
			}
			// strengthen replaced n3's tags; evolution rewrote n1, kept n2
			if fmt.Sprint(n3.Tags) != "[linked]" || n1.Context != "evolved context" || fmt.Sprint(n1.Tags) != "[evolved]" ||
				n2.Context != "About cello" || fmt.Sprint(n2.Tags) != "[tag-cello]" {
				t.Errorf("evolution: n1 %q %v, n2 %q %v, n3 %v", n1.Context, n1.Tags, n2.Context, n2.Tags, n3.Tags)
			}
			if fmt.Sprint(n1.Keywords) != "[green tea every]" || n4.Context != "General" || len(n4.Keywords) != 0 {
				t.Errorf("notes: n1 %v, n4 %q %v", n1.Keywords, n4.Context, n4.Keywords)
			}
			if strings.Contains(n1.Doc, "evolved context") != tc.docEvolved || !strings.HasPrefix(n1.Doc, tc.docSeparator) {
				t.Errorf("n1 index text %q", n1.Doc)
			}
			s := m.Stats()
			if s.Notes != 7 || s.EmptyTraces != 1 || s.Evolutions != 1 || s.Links != 1 || s.DanglingLinks != 1 || s.NeighborUpdates != 2 ||
				s.Rebuilds != tc.rebuilds || s.InvalidJSON != 2 || fmt.Sprint(s.FailedTraces) != "[t4 t6]" {
				t.Errorf("stats %+v", s)
			}
			mt := m.Meter()
			u := client.Usage().Total()
			if mt.IngestCalls != tc.calls || mt.IngestCalls != len(srv.Calls()) || mt.IngestEmbeds != tc.embeds ||
				mt.IngestTokens == 0 || mt.IngestTokens != u.PromptTokens+u.CompletionTokens || mt.QueryCalls+mt.QueryEmbeds != 0 {
				t.Errorf("meter %+v (server calls %d, usage %+v)", mt, len(srv.Calls()), u)
			}
			// the evolution prompt shows indexes, never note or trace ids
			for _, call := range srv.Calls() {
				if c := call.LastUser(); strings.Contains(c, "n1") || strings.Contains(c, "t1") {
					t.Errorf("call %d shows an id", call.N)
				}
			}
			if !tc.cfg.NoJSONMode && srv.Calls()[0].ResponseFormat != "json_schema" {
				t.Errorf("response format %q", srv.Calls()[0].ResponseFormat)
			}
		})
	}
}

func hitList(hits []retrieval.Hit) string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s:%s%v", h.Kind, h.UnitID, h.TraceIDs))
	}
	return strings.Join(out, " ")
}

func TestSearchNeighbours(t *testing.T) {
	withBack := DefaultConfig()
	withBack.Backlinks = true
	library := LibraryConfig()
	library.Backlinks = true
	for _, tc := range []struct {
		name   string
		cfg    Config
		q      string
		at     time.Time
		k      int
		want   string
		qcalls int
	}{
		{"research: links follow the hit", DefaultConfig(), "green tea with honey every morning now", time.Time{}, 2, "memory:n3[t3] neighbor:n1[t1]", 1},
		{"research: one slot", DefaultConfig(), "green tea with honey every morning now", time.Time{}, 1, "memory:n3[t3]", 1},
		{"backlinks", withBack, "green tea every morning before work", time.Time{}, 2, "memory:n1[t1] neighbor:n3[t3]", 1},
		{"backlink from the future not admitted", withBack, "green tea every morning before work", day(2), 2, "memory:n1[t1] memory:n2[t2]", 1},
		{"before every trace", withBack, "green tea", day(0), 5, "", 0},
		{"library: hits first, neighbours after", library, "green tea every morning before work", day(3), 5, "memory:n1[t1] memory:n3[t3] memory:n2[t2]", 0},
		{"research with chunks", func() Config { c := DefaultConfig(); c.ChunkHits = true; return c }(), "green tea with honey every morning now", time.Time{}, 3,
			"memory:n3[t3] chunk:t3[t3] neighbor:n1[t1]", 1},
		{"library: cut at k", library, "green tea every morning before work", day(3), 2, "memory:n1[t1] memory:n3[t3]", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, _ := fakeClient(t, fakeModel(false))
			m, err := New(client, embedder(t, handmade), tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Ingest(context.Background(), "c", handmade); err != nil {
				t.Fatal(err)
			}
			hits, err := m.Search(context.Background(), datasets.Question{ID: "q", CorpusID: "c", Text: tc.q, AskedAt: tc.at}, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			if got := hitList(hits); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			for _, h := range hits {
				if !tc.at.IsZero() && h.Time.After(tc.at) {
					t.Errorf("hit %s dated %s after %s", h.UnitID, h.Time, tc.at)
				}
				if h.Kind != retrieval.KindChunk && !strings.Contains(h.Text, "memory content: ") || h.Kind == retrieval.KindChunk && h.Text != handmade[2].Text {
					t.Errorf("hit text %q", h.Text)
				}
			}
			if mt := m.Meter(); mt.QueryCalls != tc.qcalls || (tc.want != "" && mt.QueryEmbeds != 1) || (tc.qcalls > 0 && mt.QueryTokens == 0) {
				t.Errorf("query meter %+v", mt)
			}
		})
	}
}

func TestLibraryResultIsTopK(t *testing.T) {
	// library mode puts neighbours after the k hits and cuts at k, and a
	// note is emitted once: the result is the plain top k even when links
	// exist (here every note links to its nearest neighbour).
	client, _ := fakeClient(t, fakeModel(true))
	cfg := LibraryConfig()
	m, err := New(client, embedder(t, handmade), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Ingest(context.Background(), "c", handmade[:3]); err != nil {
		t.Fatal(err)
	}
	hits, err := m.Search(context.Background(), datasets.Question{CorpusID: "c", Text: "cello lessons"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := hitList(hits); got != "memory:n2[t2] memory:n1[t1] memory:n3[t3]" {
		t.Errorf("got %s", got)
	}
	ns := m.Notes("c")
	if fmt.Sprint(ns[1].Links) != "[n1]" || fmt.Sprint(ns[0].Backlinks) != "[n2 n3]" {
		t.Errorf("links %v %v", ns[1].Links, ns[0].Backlinks)
	}
}

func TestInvalidQueryKeywords(t *testing.T) {
	client, _ := fakeClient(t, fakeModel(false))
	m, err := New(client, embedder(t, handmade), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := m.Ingest(ctx, "c", handmade[:3]); err != nil {
		t.Fatal(err)
	}
	hits, err := m.Search(ctx, datasets.Question{ID: "qg", CorpusID: "c", Text: "garble cello lessons"}, 1)
	if err != nil || hitList(hits) != "memory:n2[t2]" {
		t.Fatalf("fallback to the question: %s %v", hitList(hits), err)
	}
	s := m.Stats()
	if s.InvalidJSON != 1 || fmt.Sprint(s.FailedQueries) != "[qg]" || s.QueryCalls != 1 {
		t.Errorf("stats %+v", s)
	}
	calls := m.Calls("c")
	if last := calls[len(calls)-1]; last.Step != "keywords" || !last.Invalid || last.ID != "qg" {
		t.Errorf("audit %+v", last)
	}
}

func TestTemporalAdmissionOnSample(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	var c *datasets.Corpus
	for _, x := range d.Corpora {
		if x.Language == "en" {
			c = x
		}
	}
	if c == nil {
		t.Fatal("no English sample persona")
	}
	for _, cfg := range []Config{func() Config { x := DefaultConfig(); x.Backlinks = true; return x }(), LibraryConfig()} {
		t.Run(cfg.Mode, func(t *testing.T) {
			client, _ := fakeClient(t, fakeModel(true))
			m, err := New(client, embedder(t, c.Traces), cfg)
			if err != nil {
				t.Fatal(err)
			}
			sys := retrieval.NewIncremental(d, m)
			var qs []datasets.Question
			for _, q := range d.Questions {
				if q.CorpusID == c.ID {
					qs = append(qs, q)
				}
			}
			for i := 1; i < len(qs); i++ {
				for j := i; j > 0 && qs[j].AskedAt.Before(qs[j-1].AskedAt); j-- {
					qs[j], qs[j-1] = qs[j-1], qs[j]
				}
			}
			if len(qs) > 10 {
				qs = qs[:10]
			}
			byID := map[string]datasets.Trace{}
			for _, tr := range c.Traces {
				byID[tr.ID] = tr
			}
			ctx := context.Background()
			early := datasets.Question{ID: "early", CorpusID: c.ID, Text: "anything", AskedAt: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}
			if hits, err := sys.Retrieve(ctx, early, 10); err != nil || len(hits) != 0 {
				t.Fatalf("early question: %v %v", hits, err)
			}
			neighbours := 0
			for _, q := range qs {
				hits, err := sys.Retrieve(ctx, q, 10)
				if err != nil {
					t.Fatalf("%s: %v", q.ID, err)
				}
				if len(hits) == 0 || len(hits) > 10 {
					t.Errorf("%s: %d hits", q.ID, len(hits))
				}
				for _, id := range retrieval.TraceRanking(hits) {
					tr, ok := byID[id]
					if !ok {
						t.Fatalf("%s: unknown trace %s", q.ID, id)
					}
					if !q.AskedAt.IsZero() && tr.Time.After(q.AskedAt) {
						t.Errorf("%s asked %s: trace %s dated %s", q.ID, q.AskedAt, id, tr.Time)
					}
				}
				for _, h := range hits {
					if h.Kind == retrieval.KindNeighbor {
						neighbours++
					}
				}
			}
			if cfg.Mode == ModeResearch && neighbours == 0 {
				t.Error("no neighbour hits: the test does not exercise links")
			}
			if s := m.Stats(); s.Links == 0 {
				t.Errorf("no links made: %+v", s)
			}
		})
	}
}

func TestEdgeCases(t *testing.T) {
	client, _ := fakeClient(t, fakeModel(false))
	emb := embedder(t, handmade)
	ctx := context.Background()
	if _, err := New(nil, emb, Config{}); !errors.Is(err, retrieval.ErrNeedsModel) || !strings.Contains(err.Error(), "amem") {
		t.Errorf("nil chatter: %v", err)
	}
	var nilClient *llm.Client
	if _, err := New(nilClient, emb, Config{}); !errors.Is(err, retrieval.ErrNeedsModel) {
		t.Errorf("typed nil client: %v", err)
	}
	if _, err := New(client, nil, Config{}); err == nil {
		t.Error("nil embedder accepted")
	}
	for _, bad := range []Config{{Mode: "x", Neighbors: 5}, {Neighbors: 0, Temperature: 1}, {Neighbors: 5, EvoThreshold: -1}, {Neighbors: 5, Temperature: 3}} {
		if _, err := New(client, emb, bad); err == nil {
			t.Errorf("config %+v accepted", bad)
		}
	}
	m, err := New(client, emb, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if n := m.Name(); !strings.Contains(n, "mode=research") || !strings.Contains(n, "neighbors=5") || !strings.Contains(n, "evo_threshold=100") || !strings.Contains(n, emb.Name()) {
		t.Errorf("name %s", n)
	}
	if hits, err := m.Search(ctx, datasets.Question{CorpusID: "c", Text: "x"}, 3); err != nil || hits != nil {
		t.Errorf("empty memory: %v %v", hits, err)
	}
	if _, err := m.Search(ctx, datasets.Question{CorpusID: "c"}, -1); err == nil {
		t.Error("negative k accepted")
	}
	if err := m.Ingest(ctx, "one", handmade[6:7]); err != nil {
		t.Fatal(err)
	}
	hits, err := m.Search(ctx, datasets.Question{CorpusID: "one", Text: "爬山"}, 3)
	if err != nil || hitList(hits) != "memory:n1[t7]" {
		t.Errorf("one-trace Chinese corpus: %s %v", hitList(hits), err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.Ingest(cctx, "one", handmade[:1]); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ingest: %v", err)
	}
	if _, err := m.Search(cctx, datasets.Question{CorpusID: "one"}, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search: %v", err)
	}
}

func TestParsers(t *testing.T) {
	ev, ok := parseEvolution("```json\n{\"should_evolve\": \"true\", \"actions\": [\"Strengthen\"], \"suggested_connections\": [1, \"2\", \"x\"], \"new_tags_neighborhood\": [[\"a\"], \"b\"]}\n```")
	if !ok || !ev.shouldEvolve || fmt.Sprint(ev.connections) != "[1 2 -1]" || ev.hasTags || len(ev.nbTags) != 2 {
		t.Errorf("evolution %+v %v", ev, ok)
	}
	if _, ok := parseEvolution(`{"actions": []}`); ok {
		t.Error("missing should_evolve accepted")
	}
	for in, want := range map[string]string{`{"keywords": "a, b"}`: "a, b", `{"keywords": ["a", "b"]}`: "a, b", `{"keywords": ""}`: "", `{}`: ""} {
		if got, _ := parseKeywords(in); got != want {
			t.Errorf("parseKeywords(%s) = %q", in, got)
		}
	}
	n := &note{context: "General"}
	if parseNote(`{"keywords": ["a"], "context": "c"}`, n) || n.context != "General" {
		t.Errorf("note without tags accepted: %+v", n)
	}
}
