package mem0

import (
	"context"
	"encoding/json"
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

// fakeClient starts a fake server answering with r and returns a client
// whose every role points at it.
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

// between returns the text after marker up to the next blank line.
func between(s, marker string) string {
	i := strings.Index(s, marker)
	if i < 0 {
		return ""
	}
	s = s[i+len(marker):]
	if j := strings.Index(s, "\n\n"); j >= 0 {
		s = s[:j]
	}
	return strings.TrimSpace(s)
}

// mini is a deterministic stand-in for the model. Extraction: a trace whose
// text holds a key of script gets that reply; any other trace gets its
// first sentence as its one fact. Update decision, per fact: "Quit X"
// deletes every item mentioning X; an item equal to the fact is NONE; an
// item whose text begins the fact is UPDATEd to the fact; else ADD. A fact
// containing "garble" gets an invalid update answer.
func mini(script map[string]string) llmtest.Responder {
	return func(call llmtest.ChatCall) (string, error) {
		last := call.LastUser()
		if strings.HasPrefix(last, "Input:\n") {
			for key, reply := range script {
				if strings.Contains(last, key) {
					return reply, nil
				}
			}
			text := last[strings.Index(last, "] ")+2:]
			if i := strings.IndexAny(text, ".。!?"); i > 0 {
				text = text[:i]
			}
			js, _ := json.Marshal(map[string][]string{"facts": {text}})
			if !call.JSONAsked() {
				return "```json\n" + string(js) + "\n```", nil
			}
			return string(js), nil
		}
		if !strings.Contains(last, markerFacts) {
			return "", fmt.Errorf("unexpected prompt %q", last)
		}
		var mem []promptMemory
		_ = json.Unmarshal([]byte(between(last, markerMemory)), &mem)
		var facts []string
		if err := json.Unmarshal([]byte(between(last, markerFacts)), &facts); err != nil {
			return "", err
		}
		type item struct {
			ID    string `json:"id"`
			Text  string `json:"text"`
			Event string `json:"event"`
			Old   string `json:"old_memory,omitempty"`
		}
		var out []item
		for _, f := range facts {
			if strings.Contains(f, "garble") {
				return `{"memory": [{"id": "0", "text": "x", "event": "ADD"}`, nil
			}
			done := false
			if what, ok := strings.CutPrefix(f, "Quit "); ok {
				for _, m := range mem {
					if strings.Contains(strings.ToLower(m.Text), strings.ToLower(what)) {
						out = append(out, item{ID: m.ID, Text: m.Text, Event: "DELETE"})
						done = true
					}
				}
			}
			for _, m := range mem {
				if done {
					break
				}
				switch {
				case m.Text == f:
					out = append(out, item{ID: m.ID, Text: m.Text, Event: "NONE"})
					done = true
				case strings.HasPrefix(f, m.Text):
					out = append(out, item{ID: m.ID, Text: f, Event: "UPDATE", Old: m.Text})
					done = true
				}
			}
			if !done {
				out = append(out, item{ID: fmt.Sprint(len(mem) + len(out)), Text: f, Event: "ADD"})
			}
		}
		js, _ := json.Marshal(map[string]any{"memory": out})
		if !call.JSONAsked() {
			return "Here you are: " + string(js), nil
		}
		return string(js), nil
	}
}

func day(d int) time.Time { return time.Date(2024, 3, d, 9, 0, 0, 0, time.UTC) }

// scripted is the hand-made corpus of the decision test.
var scripted = []datasets.Trace{
	{ID: "t1", Time: day(1), Medium: "chat", Text: "Loves green tea. Said so twice."},
	{ID: "t2", Time: day(2), Medium: "diary", Text: "Plays the cello."},
	{ID: "t3", Time: day(3), Medium: "chat", Text: "Loves green tea with honey."},
	{ID: "t4", Time: day(4), Medium: "chat", Text: "Quit the cello."},
	{ID: "t5", Time: day(5), Medium: "chat", Text: "A reply with no JSON at all."},
	{ID: "t6", Time: day(6), Medium: "chat", Text: "A garble of words."},
	{ID: "t7", Time: day(7), Medium: "chat", Text: "   "},
	{ID: "t8", Time: day(8), Medium: "post", Text: "Loves green tea with honey."},
	{ID: "t9", Time: day(9), Medium: "post", Text: "Reads 小说 in the evening."},
}

func embedder(t testing.TB, traces []datasets.Trace) llm.Embedder {
	t.Helper()
	texts := make([]string, 0, len(traces))
	for _, tr := range traces {
		texts = append(texts, tr.Text)
	}
	e, err := offline.FitHashedTFIDF(texts, offline.HashedOptions{Dims: 256})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func texts(rs []Record) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID+"="+r.Text+"@"+strings.Join(r.TraceIDs, "+"))
	}
	return strings.Join(out, " | ")
}

func TestDecisionsAreApplied(t *testing.T) {
	for _, text := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoJSONMode=%t", text), func(t *testing.T) { testDecisions(t, text) })
	}
}

// testDecisions ingests the scripted traces one by one and checks the
// records after each; in text mode the fake model wraps its JSON in code
// fences or prose, in JSON mode the model layer rejects invalid answers.
func testDecisions(t *testing.T, textMode bool) {
	client, srv := fakeClient(t, mini(map[string]string{"no JSON": "Sorry, I cannot help with that."}))
	cfg := DefaultConfig()
	cfg.NoJSONMode = textMode
	m, err := New(client, embedder(t, scripted), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	steps := []struct {
		trace string
		want  string // records after the trace
	}{
		{"t1", "m1=Loves green tea@t1"},                                               // ADD
		{"t2", "m1=Loves green tea@t1 | m2=Plays the cello@t2"},                       // ADD
		{"t3", "m1=Loves green tea with honey@t1+t3 | m2=Plays the cello@t2"},         // UPDATE keeps t1, adds t3
		{"t4", "m1=Loves green tea with honey@t1+t3"},                                 // DELETE drops m2 and t2
		{"t5", "m1=Loves green tea with honey@t1+t3"},                                 // invalid extraction
		{"t6", "m1=Loves green tea with honey@t1+t3"},                                 // invalid update
		{"t7", "m1=Loves green tea with honey@t1+t3"},                                 // empty trace
		{"t8", "m1=Loves green tea with honey@t1+t3"},                                 // NONE
		{"t9", "m1=Loves green tea with honey@t1+t3 | m3=Reads 小说 in the evening@t9"}, // ADD, Chinese
	}
	for i, st := range steps {
		if err := m.Ingest(ctx, "c", scripted[i:i+1]); err != nil {
			t.Fatalf("%s: %v", st.trace, err)
		}
		if got := texts(m.Records("c")); got != st.want {
			t.Errorf("after %s:\n got %s\nwant %s", st.trace, got, st.want)
		}
	}
	s := m.Stats()
	want := Stats{Traces: 9, EmptyTraces: 1, ExtractCalls: 8, UpdateCalls: 7, Facts: 7, Added: 3, Updated: 1, Deleted: 1, Unchanged: 1,
		InvalidJSON: 2, FailedTraces: []string{"t5", "t6"}}
	if fmt.Sprint(s) != fmt.Sprint(want) {
		t.Errorf("stats\n got %+v\nwant %+v", s, want)
	}
	var events []string
	for _, e := range m.History("c") {
		events = append(events, e.TraceID+":"+e.Event+":"+e.MemoryID)
	}
	if got := strings.Join(events, " "); got != "t1:ADD:m1 t2:ADD:m2 t3:UPDATE:m1 t4:DELETE:m2 t8:NONE:m1 t9:ADD:m3" {
		t.Errorf("history %s", got)
	}
	// the model never sees record ids or trace ids; the audit keeps the map
	for _, call := range srv.Calls() {
		for _, msg := range call.Messages {
			for _, id := range []string{`"m1"`, `"m2"`, "t1", "t3"} {
				if strings.Contains(msg.Content, id) {
					t.Errorf("prompt of call %d shows %s", call.N, id)
				}
			}
		}
	}
	calls := m.Calls("c")
	if len(calls) != 15 || calls[3].Step != "update" || calls[3].IDs["0"] != "m1" || !calls[8].Invalid || !calls[10].Invalid || calls[9].Invalid {
		t.Errorf("audit: %d calls, %+v", len(calls), calls[3])
	}
	// meter: every chat call, their tokens, the embedded texts
	meter := m.Meter()
	usage := client.Usage().Total()
	if meter.IngestCalls != len(srv.Calls()) || meter.IngestCalls != 15 || meter.IngestTokens != usage.PromptTokens+usage.CompletionTokens || meter.IngestTokens == 0 {
		t.Errorf("meter %+v, server calls %d, usage %+v", meter, len(srv.Calls()), usage)
	}
	// facts embedded: 7; ADD/UPDATE texts equal to a fact reuse its vector
	if meter.IngestEmbeds != 7 || meter.QueryCalls+meter.QueryEmbeds != 0 {
		t.Errorf("embeds %+v", meter)
	}

	// search: provenance maps hits to traces; deleted t2 never comes back
	hits, err := m.Search(ctx, datasets.Question{ID: "q", CorpusID: "c", Text: "what tea with honey?", AskedAt: day(30)}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].UnitID != "m1" || hits[0].Kind != retrieval.KindMemory || !hits[0].Time.Equal(day(3)) {
		t.Fatalf("hits %+v", hits)
	}
	if got := strings.Join(retrieval.TraceRanking(hits), " "); got != "t1 t3 t9" {
		t.Errorf("trace ranking %q, want t1 t3 t9", got)
	}
	if mt := m.Meter(); mt.QueryEmbeds != 1 || mt.QueryCalls != 0 {
		t.Errorf("query meter %+v", mt)
	}
	// temporal: a question asked on day 2 sees no record updated later
	hits, _ = m.Search(ctx, datasets.Question{ID: "q", CorpusID: "c", Text: "tea", AskedAt: day(2)}, 10)
	if len(hits) != 0 {
		t.Errorf("asked on day 2: %+v", hits)
	}
	hits, _ = m.Search(ctx, datasets.Question{ID: "q", CorpusID: "c", Text: "tea", AskedAt: day(5)}, 10)
	if len(hits) != 1 || hits[0].UnitID != "m1" {
		t.Errorf("asked on day 5: %+v", hits)
	}
}

func TestChunkHitsAndThreshold(t *testing.T) {
	client, _ := fakeClient(t, mini(nil))
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		cfg  Config
		k    int
		want string
	}{
		{"memory only", DefaultConfig(), 10, "memory:m1[t1 t3] memory:m2[t2]"},
		{"both kinds", Config{TopS: 5, ChunkHits: true}, 10, "memory:m1[t1 t3] chunk:t1[t1] chunk:t3[t3] memory:m2[t2] chunk:t2[t2]"},
		{"both kinds share k", Config{TopS: 5, ChunkHits: true}, 2, "memory:m1[t1 t3] chunk:t1[t1]"},
		{"threshold", Config{TopS: 5, Threshold: 0.99}, 10, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(client, embedder(t, scripted), tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Ingest(ctx, "c", scripted[:3]); err != nil {
				t.Fatal(err)
			}
			hits, err := m.Search(ctx, datasets.Question{CorpusID: "c", Text: "green tea with honey"}, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, fmt.Sprintf("%s:%s%v", h.Kind, h.UnitID, h.TraceIDs))
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("got  %s\nwant %s", strings.Join(got, " "), tc.want)
			}
		})
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
	client, _ := fakeClient(t, mini(nil))
	m, err := New(client, embedder(t, c.Traces), Config{TopS: 5, ChunkHits: true})
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
	qs = sortedByAskedAt(qs)
	if len(qs) > 12 {
		qs = qs[:12]
	}
	byID := map[string]datasets.Trace{}
	for _, tr := range c.Traces {
		byID[tr.ID] = tr
	}
	ctx := context.Background()
	// a question dated before every trace sees nothing
	early := datasets.Question{ID: "early", CorpusID: c.ID, Text: "anything", AskedAt: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if hits, err := sys.Retrieve(ctx, early, 10); err != nil || len(hits) != 0 {
		t.Fatalf("early question: %v %v", hits, err)
	}
	found := 0
	for _, q := range qs {
		hits, err := sys.Retrieve(ctx, q, 10)
		if err != nil {
			t.Fatalf("%s: %v", q.ID, err)
		}
		if len(hits) == 0 {
			t.Errorf("%s: no hits", q.ID)
		}
		for _, id := range retrieval.TraceRanking(hits) {
			tr, ok := byID[id]
			if !ok {
				t.Fatalf("%s: unknown trace %s", q.ID, id)
			}
			if !q.AskedAt.IsZero() && tr.Time.After(q.AskedAt) {
				t.Errorf("%s asked %s: got trace %s dated %s", q.ID, q.AskedAt, id, tr.Time)
			}
		}
		for _, h := range hits {
			if !q.AskedAt.IsZero() && h.Time.After(q.AskedAt) {
				t.Errorf("%s: hit %s dated %s", q.ID, h.UnitID, h.Time)
			}
		}
		found += len(hits)
	}
	if found == 0 {
		t.Fatal("no hits at all")
	}
	if mt := m.Meter(); mt.IngestCalls == 0 || mt.QueryEmbeds != len(qs) {
		t.Errorf("meter %+v", mt)
	}
}

func sortedByAskedAt(qs []datasets.Question) []datasets.Question {
	out := append([]datasets.Question(nil), qs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].AskedAt.Before(out[j-1].AskedAt); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestEdgeCases(t *testing.T) {
	client, _ := fakeClient(t, mini(nil))
	emb := embedder(t, scripted)
	ctx := context.Background()

	if _, err := New(nil, emb, Config{}); !errors.Is(err, retrieval.ErrNeedsModel) || !strings.Contains(err.Error(), "mem0") {
		t.Errorf("nil chatter: %v", err)
	}
	var nilClient *llm.Client
	if _, err := New(nilClient, emb, Config{}); !errors.Is(err, retrieval.ErrNeedsModel) {
		t.Errorf("typed nil client: %v", err)
	}
	if _, err := New(client, nil, Config{}); err == nil {
		t.Error("nil embedder accepted")
	}
	if _, err := New(client, emb, Config{TopS: 0, Temperature: 0.5}); err == nil || !strings.Contains(err.Error(), "TopS") {
		t.Errorf("TopS 0: %v", err)
	}
	if _, err := New(client, emb, Config{TopS: 1, TopP: 2}); err == nil {
		t.Error("top_p 2 accepted")
	}

	m, err := New(client, emb, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Name(), "s=5") || !strings.Contains(m.Name(), "temp=0.1") || !strings.Contains(m.Name(), emb.Name()) {
		t.Errorf("name %s", m.Name())
	}
	// nothing ingested: no hits, no error; negative k: error
	if hits, err := m.Search(ctx, datasets.Question{CorpusID: "c", Text: "x"}, 5); err != nil || hits != nil {
		t.Errorf("empty memory: %v %v", hits, err)
	}
	if _, err := m.Search(ctx, datasets.Question{CorpusID: "c"}, -1); err == nil {
		t.Error("negative k accepted")
	}
	// one trace corpus
	if err := m.Ingest(ctx, "one", scripted[:1]); err != nil {
		t.Fatal(err)
	}
	hits, err := m.Search(ctx, datasets.Question{CorpusID: "one", Text: "tea"}, 5)
	if err != nil || len(hits) != 1 || hits[0].TraceIDs[0] != "t1" {
		t.Errorf("one-trace corpus: %+v %v", hits, err)
	}
	// cancelled context
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.Ingest(cctx, "c", scripted[1:2]); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ingest: %v", err)
	}
	if _, err := m.Search(cctx, datasets.Question{CorpusID: "one"}, 5); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search: %v", err)
	}
}

func TestPromptDate(t *testing.T) {
	client, srv := fakeClient(t, mini(nil))
	emb := embedder(t, scripted)
	for _, tc := range []struct {
		wall bool
		want string
	}{{false, "Today is 2024-03-02."}, {true, "Today is 2031-07-04."}} {
		srv.Reset()
		cfg := DefaultConfig()
		cfg.WallClockDate = tc.wall
		m, err := New(client, emb, cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.now = func() time.Time { return time.Date(2031, 7, 4, 0, 0, 0, 0, time.UTC) }
		if err := m.Ingest(context.Background(), "c", scripted[1:2]); err != nil {
			t.Fatal(err)
		}
		call := srv.Calls()[0]
		if !strings.Contains(call.Messages[0].Content, tc.want) || call.Messages[1].Content != "Input:\nuser: [2024-03-02 09:00, diary] Plays the cello." {
			t.Errorf("wall=%t: %q / %q", tc.wall, call.Messages[0].Content, call.Messages[1].Content)
		}
		if call.ResponseFormat != "json_object" || call.Temperature != 0.1 || call.TopP != 0.1 || call.MaxTokens != 2000 {
			t.Errorf("request settings %+v", call)
		}
	}
}

func TestParsers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{`{"facts": ["a", " ", "b"]}`, "[a b]", true},
		{"```json\n{\"facts\": []}\n```", "[]", true},
		{`noise {"facts": ["x", 3, null]} trailing`, "[x 3]", true},
		{`{"fact": ["x"]}`, "[]", false},
		{`{"facts": "x"}`, "[]", false},
		{`no json`, "[]", false},
		{`{"facts": [`, "[]", false},
	} {
		got, ok := parseFacts(tc.in)
		if fmt.Sprint(got) != tc.want && !(len(got) == 0 && tc.want == "[]") || ok != tc.ok {
			t.Errorf("parseFacts(%q) = %v %v", tc.in, got, ok)
		}
	}
	ds, ok := parseDecisions(`{"memory": [{"id": 0, "text": "a", "event": "update", "old_memory": "b"}, "junk", null, {"id": "1", "event": "NONE"}]}`)
	if !ok || len(ds) != 2 || ds[0] != (decision{ID: "0", Text: "a", Event: "UPDATE", Old: "b"}) || ds[1].ID != "1" {
		t.Errorf("decisions %+v %v", ds, ok)
	}
	if _, ok := parseDecisions(`{"memories": []}`); ok {
		t.Error("missing memory field accepted")
	}
}
