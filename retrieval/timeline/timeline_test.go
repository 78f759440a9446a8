package timeline

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/retrieval"
)

func day(d int) time.Time { return time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC).AddDate(0, 0, d) }

// handMade is a corpus of two topics (cello, remote work) with an opinion
// flip on remote work.
func handMade() []datasets.Trace {
	return []datasets.Trace{
		{ID: "w1", Time: day(0), Text: "I love remote work. Working from home at my desk is great, remote work is the best."},
		{ID: "c1", Time: day(1), Text: "First cello lesson with Helen. The cello bow felt strange, the cello strings scratchy."},
		{ID: "w2", Time: day(5), Text: "Remote work again today, working from home, the desk by the window."},
		{ID: "c2", Time: day(6), Text: "Cello practice: scales on the cello, Helen says my bow arm is improving."},
		{ID: "w3", Time: day(10), Text: "Remote work is lonely and overrated. I hate working from home at this desk now."},
		{ID: "c3", Time: day(12), Text: "Returned the cello to the shop. No more cello lessons with Helen."},
		{ID: "w4", Time: day(20), Text: "Remote work from home with a coworking desk twice a week: I love it again, remote work is great."},
	}
}

func newMem(t *testing.T, cfg Config) *Memory {
	t.Helper()
	m, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func topicOf(ts []Topic, id string) string {
	for _, tp := range ts {
		for _, x := range tp.TraceIDs {
			if x == id {
				return tp.ID
			}
		}
	}
	return ""
}

func TestTopicsAndTransitions(t *testing.T) {
	m := newMem(t, Config{})
	if err := m.Ingest(context.Background(), "p", handMade()); err != nil {
		t.Fatal(err)
	}
	ts := m.Topics("p", time.Time{})
	for _, g := range [][]string{{"w1", "w2", "w3", "w4"}, {"c1", "c2", "c3"}} {
		for _, id := range g[1:] {
			if topicOf(ts, id) != topicOf(ts, g[0]) {
				t.Errorf("%s in topic %q, %s in %q: want one topic", id, topicOf(ts, id), g[0], topicOf(ts, g[0]))
			}
		}
	}
	if topicOf(ts, "w1") == topicOf(ts, "c1") {
		t.Errorf("cello and remote work share topic %s", topicOf(ts, "w1"))
	}
	var work Topic
	for _, tp := range ts {
		if tp.ID == topicOf(ts, "w1") {
			work = tp
		}
	}
	if fmt.Sprint(work.TraceIDs) != "[w1 w2 w3 w4]" || !strings.Contains(work.Label, "remote") {
		t.Errorf("work topic = %+v", work)
	}
	var flips []string
	for _, tr := range work.Transitions {
		if tr.Kind == TransitionStance {
			flips = append(flips, fmt.Sprintf("%s>%s:%s->%s", tr.FromTraceID, tr.ToTraceID, tr.From, tr.To))
		}
	}
	// w2 is neutral: the flip at w3 is against w1, the latest stance
	if got := strings.Join(flips, " "); got != "w1>w3:positive->negative w3>w4:negative->positive" {
		t.Errorf("stance transitions = %q", got)
	}
	// seen from day 6, the work topic has two traces and no transition
	early := m.Topics("p", day(6))
	for _, tp := range early {
		for _, tr := range tp.Transitions {
			if tr.Time.After(day(6)) {
				t.Errorf("transition at %s seen on day 6", tr.Time)
			}
		}
		for _, tt := range tp.Times {
			if tt.After(day(6)) {
				t.Errorf("topic %s shows a trace of %s on day 6", tp.ID, tt)
			}
		}
	}
}

func TestIncrementalEqualsBatch(t *testing.T) {
	ctx := context.Background()
	a, b := newMem(t, Config{}), newMem(t, Config{})
	tr := handMade()
	if err := a.Ingest(ctx, "p", tr); err != nil {
		t.Fatal(err)
	}
	for i := range tr {
		if err := b.Ingest(ctx, "p", tr[i:i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(a.Topics("p", time.Time{})) != fmt.Sprint(b.Topics("p", time.Time{})) {
		t.Error("topics differ between one batch and one trace at a time")
	}
	q := datasets.Question{ID: "q", CorpusID: "p", Text: "cello lessons", AskedAt: day(7)}
	ha, _ := a.Search(ctx, q, 3)
	hb, _ := b.Search(ctx, q, 3)
	if fmt.Sprint(retrieval.TraceRanking(ha)) != fmt.Sprint(retrieval.TraceRanking(hb)) || len(ha) == 0 {
		t.Errorf("hits differ: %v vs %v", retrieval.TraceRanking(ha), retrieval.TraceRanking(hb))
	}
	for i, h := range ha {
		if i == len(ha)-1 {
			if h.Kind != retrieval.KindState || len(h.TraceIDs) != 0 || fmt.Sprint(h) != fmt.Sprint(hb[len(hb)-1]) {
				t.Errorf("last hit %+v: want the same state hit, naming no trace, as %+v", h, hb[len(hb)-1])
			}
			continue
		}
		if h.Time.After(day(7)) || h.Kind != retrieval.KindChunk || h.Text == "" {
			t.Errorf("hit %+v: after the question, or not a raw chunk", h)
		}
	}
}

func TestShape(t *testing.T) {
	for _, tc := range []struct{ task, text, want string }{
		{"trajectory", "anything", ShapeTrajectory},
		{"comparison", "x", ShapeComparison},
		{"unanswerable", "how has it changed?", ShapePoint},
		{"", "How has your view of remote work changed?", ShapeTrajectory},
		{"", "Compared with last year, how is it?", ShapeComparison},
		{"", "Do you still play the cello?", ShapePattern},
		{"", "你现在对大小周的看法，跟去年比有什么不一样？", ShapeComparison},
		{"", "辞职以后，你的心情经历了怎样的变化？", ShapeTrajectory},
		{"Information Extraction", "What brand was the bag?", ShapePoint},
	} {
		if got := Shape(tc.task, tc.text); got != tc.want {
			t.Errorf("Shape(%q, %q) = %s, want %s", tc.task, tc.text, got, tc.want)
		}
	}
}

// TestTimeSpread: a trajectory question gets the earliest and the latest
// traces of its topic even with k below the topic size, a point question
// the lexical best.
func TestTimeSpread(t *testing.T) {
	ctx := context.Background()
	var traces []datasets.Trace
	for i := 0; i < 8; i++ {
		txt := fmt.Sprintf("Remote work note %d: my view of remote work, working from home again.", i)
		if i == 4 || i == 5 || i == 6 {
			txt = "Remote work, remote work, remote work: my view of remote work today, working from home, remote work."
		}
		traces = append(traces, datasets.Trace{ID: fmt.Sprintf("r%d", i), Time: day(i * 10), Text: txt})
	}
	m := newMem(t, Config{NoStateHit: true})
	if err := m.Ingest(ctx, "p", traces); err != nil {
		t.Fatal(err)
	}
	traj := datasets.Question{ID: "t", CorpusID: "p", Task: "trajectory", Text: "How has your view of remote work changed?"}
	hits, err := m.Search(ctx, traj, 3)
	if err != nil {
		t.Fatal(err)
	}
	ids := strings.Join(retrieval.TraceRanking(hits), " ")
	if !strings.Contains(ids, "r0") || !strings.Contains(ids, "r7") || len(hits) != 3 {
		t.Errorf("trajectory hits %q: want the earliest (r0) and latest (r7) among 3", ids)
	}
	point := traj
	point.Task, point.Text = "single_point_factual", "What was your view of remote work?"
	hits, _ = m.Search(ctx, point, 3)
	if got := strings.Join(retrieval.TraceRanking(hits), " "); got != "r4 r5 r6" {
		t.Errorf("point hits %q, want the three dense traces r4 r5 r6", got)
	}
}

func TestSupport(t *testing.T) {
	ctx := context.Background()
	hand := []datasets.Trace{
		{ID: "s1", Time: day(0), Text: "- half marathon training plan beginners\n- avon valley half marathon entry"},
		{ID: "s2", Time: day(1), Text: "Maybe a half marathon this spring? I keep opening the entry page."},
		{ID: "s3", Time: day(2), Text: "Ran my first parkrun in 34:12 this Saturday."},
	}
	hand[0].Medium = "search_history"
	m := newMem(t, Config{})
	if err := m.Ingest(ctx, "h", hand); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text      string
		supported bool
		tentative int
	}{
		{"Which half marathon did you run this spring?", false, 1},
		{"What was your first parkrun time?", true, 0},
		{"What did the cardiologist say?", false, 0},
	} {
		r, err := m.Support(ctx, datasets.Question{ID: "q", CorpusID: "h", Text: tc.text})
		if err != nil {
			t.Fatal(err)
		}
		if r.Supported != tc.supported || len(r.Tentative) != tc.tentative || r.Reason == "" {
			t.Errorf("%q: %+v, want supported %v with %d tentative", tc.text, r, tc.supported, tc.tentative)
		}
	}
	// the sample: an unanswerable question (plans, never entered) vs an answerable one
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"q39": false, "q08": true}
	s := newMem(t, Config{})
	inc := retrieval.NewIncremental(d, s)
	for _, q := range byAskedAt(d, func(q datasets.Question) bool { _, ok := want[q.ID]; return ok }) {
		if _, err := inc.Retrieve(ctx, q, 1); err != nil {
			t.Fatal(err)
		}
		r, err := s.Support(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if r.Supported != want[q.ID] {
			t.Errorf("%s %q: supported %v (%s), want %v", q.ID, q.Text, r.Supported, r.Reason, want[q.ID])
		}
	}
	if r, _ := s.Support(ctx, datasets.Question{ID: "x", CorpusID: "nope", Text: "anything"}); r.Supported {
		t.Error("unknown corpus supported")
	}
}

// TestTemporalSample: through the temporal protocol, no returned trace is
// dated after its question.
func TestTemporalSample(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	times := map[string]time.Time{}
	for _, c := range d.Corpora {
		for _, tr := range c.Traces {
			times[c.ID+"/"+tr.ID] = tr.Time
		}
	}
	m := newMem(t, Config{NoStateHit: true})
	sys := retrieval.NewIncremental(d, m)
	for _, q := range byAskedAt(d, func(datasets.Question) bool { return true }) {
		hits, err := sys.Retrieve(context.Background(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			t.Errorf("%s: no hit", q.ID)
		}
		for _, h := range hits {
			if tt := times[q.CorpusID+"/"+h.TraceIDs[0]]; tt.After(q.AskedAt) || !h.Time.Equal(tt) {
				t.Errorf("%s asked %s got %s of %s", q.ID, q.AskedAt, h.TraceIDs[0], tt)
			}
		}
	}
}

func TestEdgeCases(t *testing.T) {
	ctx := context.Background()
	m := newMem(t, Config{})
	zh := []datasets.Trace{
		{ID: "z1", Time: day(0), Text: "我觉得年轻就该拼，大小周能学到东西，我很喜欢。"},
		{ID: "z2", Time: day(1), Text: ""},
		{ID: "z3", Time: day(30), Text: "我现在觉得年轻人的大小周不值，学不到东西，很累，后悔。"},
	}
	if err := m.Ingest(ctx, "zh", zh); err != nil {
		t.Fatal(err)
	}
	hits, err := m.Search(ctx, datasets.Question{ID: "q", CorpusID: "zh", Text: "你现在对大小周的看法，跟去年比有什么不一样？"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(retrieval.TraceRanking(hits), " "); !strings.Contains(got, "z1") || !strings.Contains(got, "z3") || strings.Contains(got, "z2") {
		t.Errorf("Chinese comparison hits %q, want z1 and z3, not the empty z2", got)
	}
	var stance bool
	for _, tp := range m.Topics("zh", time.Time{}) {
		for _, tr := range tp.Transitions {
			stance = stance || (tr.Kind == TransitionStance && tr.ToTraceID == "z3")
		}
	}
	if !stance {
		t.Errorf("no stance transition at z3: %+v", m.Topics("zh", time.Time{}))
	}
	for _, q := range []datasets.Question{
		{ID: "early", CorpusID: "zh", Text: "大小周", AskedAt: day(-1)},
		{ID: "none", CorpusID: "nope", Text: "x"},
		{ID: "empty", CorpusID: "zh", Text: ""},
	} {
		if hits, err := m.Search(ctx, q, 5); err != nil || len(hits) != 0 {
			t.Errorf("%s: hits %v err %v, want none", q.ID, hits, err)
		}
	}
	if _, err := m.Search(ctx, datasets.Question{CorpusID: "zh"}, -1); err == nil {
		t.Error("negative k: no error")
	}
	one := newMem(t, Config{NoStateHit: true})
	if err := one.Ingest(ctx, "one", zh[:1]); err != nil {
		t.Fatal(err)
	}
	hits, _ = one.Search(ctx, datasets.Question{ID: "q", CorpusID: "one", Task: "trajectory", Text: "大小周怎么变化"}, 3)
	if len(hits) != 1 || hits[0].UnitID != "z1" {
		t.Errorf("one-trace corpus: %+v", hits)
	}
	if _, err := New(Config{TopicThreshold: 2}, nil); err == nil || !strings.Contains(err.Error(), "TopicThreshold") {
		t.Errorf("bad config: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := one.Ingest(cctx, "one", zh); err == nil {
		t.Error("cancelled ingest: no error")
	}
}

// TestModelExtractor: with an extractor model the stated states become
// transitions; a broken answer falls back to the offline rule and is
// counted.
func TestModelExtractor(t *testing.T) {
	m, _ := modelMemory(t, func(c llmtest.ChatCall) (string, error) {
		p := c.Messages[len(c.Messages)-1].Content
		switch {
		case strings.Contains(p, "\"\"\"\nw3 "):
			return `{"state": "finds remote work lonely", "changed": true, "committed": false}`, nil
		case strings.Contains(p, "\"\"\"\nw4 "):
			return `not json at all`, nil
		}
		return `{"state": "likes remote work", "changed": false, "committed": true}`, nil
	})
	var tr []datasets.Trace
	for _, x := range handMade() {
		x.Text = x.ID + " " + x.Text
		tr = append(tr, x)
	}
	if err := m.Ingest(context.Background(), "p", tr); err != nil {
		t.Fatal(err)
	}
	st := m.Stats()
	if st.StateCalls != 7 || st.ParseFailures+st.CallFailures != 1 || m.Meter().IngestCalls != 7 || !strings.Contains(m.Name(), "extractor=model") {
		t.Errorf("stats %+v meter %+v name %s", st, m.Meter(), m.Name())
	}
	var kinds []string
	for _, tp := range m.Topics("p", time.Time{}) {
		for _, x := range tp.Transitions {
			kinds = append(kinds, x.Kind+":"+x.ToTraceID+":"+x.To)
		}
	}
	got := strings.Join(kinds, " ")
	if !strings.Contains(got, "model:w3:finds remote work lonely") || !strings.Contains(got, "stance:w4:positive") {
		t.Errorf("transitions %q: want the model's at w3 and the offline fallback at w4; %+v %+v", got, m.Topics("p", time.Time{}), m.Stats())
	}
	// the state changes carry the model's stated state and its commitment
	var states []string
	for _, ts := range m.States("p", time.Time{}) {
		for _, ch := range ts.Changes {
			states = append(states, ch.TraceIDs[0]+":"+ch.Status+":"+ch.Text)
		}
	}
	if s := strings.Join(states, " | "); !strings.Contains(s, "w3:stated:finds remote work lonely") || !strings.Contains(s, ":decided:likes remote work") {
		t.Errorf("state changes %q: want the model's states (w3 stated, a committed one decided)", s)
	}
	r, err := m.State(context.Background(), datasets.Question{ID: "q", CorpusID: "p", Text: "remote work", AskedAt: day(30)}, 5)
	if err != nil || r.Extractor != ExtractorModel {
		t.Errorf("state report %+v, %v: want the model extractor named", r, err)
	}
	if sp := m.Spec().String(); !strings.Contains(sp, `"extractor":"model"`) {
		t.Errorf("spec %s: want extractor=model", sp)
	}
}

// modelMemory returns a timeline memory whose extractor is the fake server
// answering with respond (one attempt per call), and the server, closed
// when the test ends.
func modelMemory(t *testing.T, respond llmtest.Responder) (*Memory, *llmtest.Server) {
	t.Helper()
	srv, err := llmtest.Start(llmtest.Options{Responder: respond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cfg := llm.SingleEndpoint(srv.URL(), "m")
	cfg.Endpoints["default"].MaxAttempts = 1
	cl, err := llm.New(cfg, llm.Options{BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{}, cl)
	if err != nil {
		t.Fatal(err)
	}
	return m, srv
}
