package mem0

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/memlab/memlab/component"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
)

// Name is the system's label; Memory.Name adds its settings.
const Name = "mem0"

// Events of the update decision, as Mem0 names them.
const (
	EventAdd    = "ADD"
	EventUpdate = "UPDATE"
	EventDelete = "DELETE"
	EventNone   = "NONE"
)

// Config holds every knob of the port, with Mem0's defaults in
// DefaultConfig. The zero Config means DefaultConfig; any other value is
// used as given.
type Config struct {
	// Role is the model role of the extraction and update calls
	// ("" = llm.RoleExtractor); Model overrides the role's model.
	Role, Model string
	// TopS is the number of similar memories fetched per fact (Mem0: 5).
	TopS int
	// Temperature, TopP and MaxTokens of both calls (Mem0: 0.1, 0.1,
	// 2000). TopP 0 and MaxTokens 0 leave them to the server.
	Temperature float64
	TopP        float64
	MaxTokens   int
	// Threshold, when > 0, drops search results with a lower cosine score
	// (Mem0: none).
	Threshold float64
	// ChunkHits makes Search follow each memory hit with chunk hits for its
	// provenance traces (memory-systems.md §8).
	ChunkHits bool
	// NoJSONMode asks for plain text instead of a JSON object answer
	// (Mem0 asks for json_object); the answer is parsed the same way.
	NoJSONMode bool
	// WallClockDate dates the extraction prompt with the wall clock, as Mem0
	// does, instead of with the trace's date (memlab's default).
	WallClockDate bool
}

// DefaultConfig returns Mem0's defaults: TopS 5, temperature 0.1, top_p 0.1,
// max_tokens 2000, no threshold, memory hits only, prompts dated with the
// trace's date.
func DefaultConfig() Config {
	return Config{Role: llm.RoleExtractor, TopS: 5, Temperature: 0.1, TopP: 0.1, MaxTokens: 2000}
}

// Stats counts what the pipeline did.
type Stats struct {
	Traces                             int // traces ingested
	EmptyTraces                        int // traces with empty text (no model call)
	ExtractCalls, UpdateCalls          int
	Facts                              int // facts extracted
	Added, Updated, Deleted, Unchanged int
	// Skipped counts decisions not applied: empty text, unknown id or event.
	Skipped int
	// InvalidJSON counts model answers that were not the expected JSON.
	InvalidJSON int
	// FailedTraces lists the traces whose extraction or update answer was
	// invalid (a trace appears once per invalid answer).
	FailedTraces []string
}

// Record is one memory record as a caller sees it.
type Record struct {
	ID   string
	Text string
	// TraceIDs is the record's provenance, in the order the traces joined.
	TraceIDs []string
	// Time is the time of its latest provenance trace (zero = unknown).
	Time time.Time
}

// Event is one applied decision (Mem0's history table).
type Event struct {
	TraceID  string
	Event    string // EventAdd, EventUpdate, EventDelete or EventNone
	MemoryID string
	Old, New string
}

// Call is the audit record of one model call.
type Call struct {
	TraceID string
	Step    string // "extract" or "update"
	Reply   string // the raw answer
	// IDs maps the ids shown to the model to record ids (update step).
	IDs     map[string]string
	Invalid bool
}

type record struct {
	id   string
	text string
	row  int // its row in the corpus's vector store
	prov []string
	time time.Time
}

type corpus struct {
	emb  llm.Embedder // the corpus's embedder (see retrieval.CorpusEmbedders)
	recs []*record    // live records, creation order
	// vecs holds the records' vectors (nil until the first), rows in
	// creation order, so ties rank the older record first; byRow maps a
	// row back to its record (nil once deleted).
	vecs    *retrieval.MutableVecStore
	byRow   []*record
	traces  map[string]datasets.Trace
	next    int
	history []Event
	calls   []Call
}

// Memory is the Mem0 port. It is safe for concurrent use; calls are
// serialised.
type Memory struct {
	chat  llm.Chatter
	emb   llm.Embedder
	embs  *retrieval.CorpusEmbedders
	cur   llm.Embedder // the embedder of the corpus being ingested
	cfg   Config
	now   func() time.Time
	mu    sync.Mutex
	data  map[string]*corpus
	meter retrieval.Meter
	stats Stats
}

// New returns an empty Mem0 memory that calls chat for extraction and
// update decisions and embeds with emb. A nil chat gives an error wrapping
// retrieval.ErrNeedsModel.
func New(chat llm.Chatter, emb llm.Embedder, cfg Config) (*Memory, error) {
	if chat == nil {
		return nil, fmt.Errorf("mem0: new: %w", retrieval.ErrNeedsModel)
	}
	if c, ok := chat.(*llm.Client); ok && c == nil {
		return nil, fmt.Errorf("mem0: new: %w", retrieval.ErrNeedsModel)
	}
	if emb == nil {
		return nil, fmt.Errorf("mem0: new: nil embedder (use an offline embedder such as offline.FitHashedTFIDF or llm.ClientEmbedder)")
	}
	if cfg == (Config{}) {
		cfg = DefaultConfig()
	}
	if cfg.Role == "" {
		cfg.Role = llm.RoleExtractor
	}
	switch {
	case cfg.TopS < 1:
		return nil, fmt.Errorf("mem0: new: Config.TopS = %d, want >= 1", cfg.TopS)
	case math.IsNaN(cfg.Temperature) || cfg.Temperature < 0 || cfg.Temperature > 2:
		return nil, fmt.Errorf("mem0: new: Config.Temperature = %v, want a value in [0, 2]", cfg.Temperature)
	case math.IsNaN(cfg.TopP) || cfg.TopP < 0 || cfg.TopP > 1:
		return nil, fmt.Errorf("mem0: new: Config.TopP = %v, want a value in [0, 1]", cfg.TopP)
	case cfg.MaxTokens < 0:
		return nil, fmt.Errorf("mem0: new: Config.MaxTokens = %d, want >= 0", cfg.MaxTokens)
	case math.IsNaN(cfg.Threshold):
		return nil, fmt.Errorf("mem0: new: Config.Threshold is NaN")
	}
	return &Memory{chat: chat, emb: emb, embs: retrieval.NewCorpusEmbedders(emb), cfg: cfg, now: time.Now, data: map[string]*corpus{}}, nil
}

// Refits returns the cost of refitting a strict embedder
// (retrieval.AdmittedEmbedder) at each ingest batch.
func (m *Memory) Refits() retrieval.RefitStats { return m.embs.Refits() }

// admit fits the corpus's embedder on the traces ingested so far, batch
// included, and re-embeds every live record when it changed.
func (m *Memory) admit(ctx context.Context, corpusID string, c *corpus, traces []datasets.Trace) error {
	emb, refit, err := m.embs.Admit(ctx, corpusID, traces)
	if err != nil {
		return err
	}
	c.emb = emb
	if !refit || len(c.recs) == 0 {
		return nil
	}
	t0 := time.Now()
	texts := make([]string, len(c.recs))
	for i, r := range c.recs {
		texts[i] = r.text
	}
	vs, err := emb.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("re-embed %d records with the refitted %s: %w", len(texts), emb.Name(), err)
	}
	if len(vs) != len(texts) {
		return fmt.Errorf("embedder %s returned %d vectors for %d texts", emb.Name(), len(vs), len(texts))
	}
	c.vecs, c.byRow = nil, nil
	for i, r := range c.recs {
		if err := c.addRow(r, vs[i]); err != nil {
			return fmt.Errorf("re-embed record %s: %w", r.id, err)
		}
	}
	m.embs.Reembedded(len(texts), time.Since(t0))
	return nil
}

// addRow stores vec as record r's row, after every other row.
func (c *corpus) addRow(r *record, vec []float32) error {
	if c.vecs == nil {
		st, err := retrieval.NewMutableVecStore(len(vec))
		if err != nil {
			return err
		}
		c.vecs = st
	}
	i, err := c.vecs.Add(vec, r.time)
	if err != nil {
		return err
	}
	r.row = i
	c.byRow = append(c.byRow, r)
	return nil
}

type scored struct {
	rec   *record
	score float64
}

// search returns the k live records most similar to v among those admitted
// at at (zero = all), best first, ties in creation order.
func (c *corpus) search(v []float32, k int, at time.Time) ([]scored, error) {
	if c.vecs == nil {
		return nil, nil
	}
	rows, err := c.vecs.Search(v, k, at)
	if err != nil {
		return nil, err
	}
	out := make([]scored, len(rows))
	for i, r := range rows {
		out[i] = scored{c.byRow[r.Index], r.Score}
	}
	return out, nil
}

// Name is "mem0(...)" with every setting and the embedder's name.
func (m *Memory) Name() string {
	c := m.cfg
	date := "trace"
	if c.WallClockDate {
		date = "wallclock"
	}
	model := c.Role
	if c.Model != "" {
		model += ":" + c.Model
	}
	format := llm.FormatJSONObject
	if c.NoJSONMode {
		format = "text"
	}
	return fmt.Sprintf("%s(model=%s,s=%d,temp=%g,top_p=%g,max_tokens=%d,format=%s,threshold=%g,chunks=%t,date=%s,emb=%s)",
		Name, model, c.TopS, c.Temperature, c.TopP, c.MaxTokens, format, c.Threshold, c.ChunkHits, date, m.emb.Name())
}

// Spec is the memory's component spec: every setting, the hash of its
// prompt templates, its model and its embedder.
func (m *Memory) Spec() component.Spec {
	return component.New(Name).MustFields(m.cfg, "Role", "Model").With("role", m.cfg.Role).
		With("prompts", retrieval.HashPrompts(extractSystem, extractUser(datasets.Trace{}), updatePrompt(nil, nil))).
		Part("model", llm.ModelSpec(m.chat, m.cfg.Role, m.cfg.Model)).Part("embedder", component.Of(m.emb, llm.RedactURLs(m.emb.Name())))
}

// Config returns the settings in use.
func (m *Memory) Config() Config { return m.cfg }

// Meter returns the model use so far.
func (m *Memory) Meter() retrieval.Meter {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.meter
}

// Stats returns the pipeline counts so far.
func (m *Memory) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.stats
	s.FailedTraces = append([]string(nil), s.FailedTraces...)
	return s
}

// Records returns the live records of a corpus in creation order.
func (m *Memory) Records(corpusID string) []Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.data[corpusID]
	if c == nil {
		return nil
	}
	out := make([]Record, len(c.recs))
	for i, r := range c.recs {
		out[i] = Record{ID: r.id, Text: r.text, TraceIDs: append([]string(nil), r.prov...), Time: r.time}
	}
	return out
}

// History returns the applied decisions of a corpus, in order.
func (m *Memory) History(corpusID string) []Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.data[corpusID]; c != nil {
		return append([]Event(nil), c.history...)
	}
	return nil
}

// Calls returns the audit records of a corpus's model calls, in order.
func (m *Memory) Calls(corpusID string) []Call {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.data[corpusID]; c != nil {
		return append([]Call(nil), c.calls...)
	}
	return nil
}

// Ingest runs the add() pipeline on each trace, in the order given.
func (m *Memory) Ingest(ctx context.Context, corpusID string, traces []datasets.Trace) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.data[corpusID]
	if c == nil {
		c = &corpus{traces: map[string]datasets.Trace{}}
		m.data[corpusID] = c
	}
	if err := m.admit(ctx, corpusID, c, traces); err != nil {
		return fmt.Errorf("mem0: ingest %s: %w", corpusID, err)
	}
	m.cur = c.emb
	for _, t := range traces {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("mem0: ingest %s trace %q: %w", corpusID, t.ID, err)
		}
		if err := m.add(ctx, c, t); err != nil {
			return fmt.Errorf("mem0: ingest %s trace %q: %w", corpusID, t.ID, err)
		}
	}
	return nil
}

// add is Mem0's add() for one trace.
func (m *Memory) add(ctx context.Context, c *corpus, t datasets.Trace) error {
	c.traces[t.ID] = t
	m.stats.Traces++
	if strings.TrimSpace(t.Text) == "" {
		m.stats.EmptyTraces++
		return nil
	}
	// 1. fact extraction
	reply, bad, err := m.call(ctx, m.extractRequest(t))
	if err != nil {
		return fmt.Errorf("fact extraction: %w", err)
	}
	m.stats.ExtractCalls++
	facts, ok := parseFacts(reply)
	ok = ok && !bad
	c.calls = append(c.calls, Call{TraceID: t.ID, Step: "extract", Reply: reply, Invalid: !ok})
	if !ok {
		m.invalid(t.ID)
		return nil
	}
	if len(facts) == 0 {
		return nil
	}
	m.stats.Facts += len(facts)
	// 2. similar memories per fact
	vecs, err := m.embed(ctx, facts)
	if err != nil {
		return fmt.Errorf("embed %d facts: %w", len(facts), err)
	}
	factVec := map[string][]float32{}
	var shown []*record
	seen := map[*record]bool{}
	for i, f := range facts {
		factVec[f] = vecs[i]
		similar, err := c.search(vecs[i], m.cfg.TopS, time.Time{})
		if err != nil {
			return fmt.Errorf("records similar to fact %d: %w", i+1, err)
		}
		for _, s := range similar {
			if r := s.rec; !seen[r] {
				seen[r] = true
				shown = append(shown, r)
			}
		}
	}
	// 3. ids shown to the model
	ids := map[string]*record{}
	idMap := map[string]string{}
	current := make([]promptMemory, len(shown))
	for i, r := range shown {
		pid := fmt.Sprint(i)
		ids[pid] = r
		idMap[pid] = r.id
		current[i] = promptMemory{ID: pid, Text: r.text}
	}
	// 4. update decision
	reply, bad, err = m.call(ctx, m.updateRequest(current, facts))
	if err != nil {
		return fmt.Errorf("update decision: %w", err)
	}
	m.stats.UpdateCalls++
	decisions, ok := parseDecisions(reply)
	ok = ok && !bad
	c.calls = append(c.calls, Call{TraceID: t.ID, Step: "update", Reply: reply, IDs: idMap, Invalid: !ok})
	if !ok {
		m.invalid(t.ID)
		return nil
	}
	// 5. apply
	for _, d := range decisions {
		if err := m.apply(ctx, c, t, d, ids, factVec); err != nil {
			return err
		}
	}
	return nil
}

func (m *Memory) invalid(traceID string) {
	m.stats.InvalidJSON++
	m.stats.FailedTraces = append(m.stats.FailedTraces, traceID)
}

// apply carries out one decision.
func (m *Memory) apply(ctx context.Context, c *corpus, t datasets.Trace, d decision, ids map[string]*record, factVec map[string][]float32) error {
	text := strings.TrimSpace(d.Text)
	switch d.Event {
	case EventAdd:
		if text == "" {
			m.stats.Skipped++
			return nil
		}
		vec, err := m.vectorOf(ctx, text, factVec)
		if err != nil {
			return err
		}
		c.next++
		r := &record{id: fmt.Sprintf("m%d", c.next), text: text, prov: []string{t.ID}, time: t.Time}
		if err := c.addRow(r, vec); err != nil {
			return fmt.Errorf("add record %s: %w", r.id, err)
		}
		c.recs = append(c.recs, r)
		c.history = append(c.history, Event{TraceID: t.ID, Event: EventAdd, MemoryID: r.id, New: text})
		m.stats.Added++
	case EventUpdate:
		r := ids[d.ID]
		if r == nil || text == "" || !live(c, r) {
			m.stats.Skipped++
			return nil
		}
		vec, err := m.vectorOf(ctx, text, factVec)
		if err != nil {
			return err
		}
		if err := c.vecs.Set(r.row, vec); err != nil {
			return fmt.Errorf("update record %s: %w", r.id, err)
		}
		old := r.text
		r.text = text
		if !contains(r.prov, t.ID) {
			r.prov = append(r.prov, t.ID)
		}
		if t.Time.After(r.time) {
			r.time = t.Time
			if err := c.vecs.SetTime(r.row, r.time); err != nil {
				return fmt.Errorf("update record %s: %w", r.id, err)
			}
		}
		c.history = append(c.history, Event{TraceID: t.ID, Event: EventUpdate, MemoryID: r.id, Old: old, New: text})
		m.stats.Updated++
	case EventDelete:
		r := ids[d.ID]
		if r == nil || !live(c, r) {
			m.stats.Skipped++
			return nil
		}
		for i, x := range c.recs {
			if x == r {
				c.recs = append(c.recs[:i], c.recs[i+1:]...)
				break
			}
		}
		if err := c.vecs.Delete(r.row); err != nil {
			return fmt.Errorf("delete record %s: %w", r.id, err)
		}
		c.byRow[r.row] = nil
		c.history = append(c.history, Event{TraceID: t.ID, Event: EventDelete, MemoryID: r.id, Old: r.text})
		m.stats.Deleted++
	case EventNone:
		r := ids[d.ID]
		if r == nil || !live(c, r) {
			m.stats.Skipped++
			return nil
		}
		c.history = append(c.history, Event{TraceID: t.ID, Event: EventNone, MemoryID: r.id, Old: r.text})
		m.stats.Unchanged++
	default:
		m.stats.Skipped++
	}
	return nil
}

func live(c *corpus, r *record) bool {
	for _, x := range c.recs {
		if x == r {
			return true
		}
	}
	return false
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// vectorOf reuses a fact's embedding for an identical text, else embeds.
func (m *Memory) vectorOf(ctx context.Context, text string, factVec map[string][]float32) ([]float32, error) {
	if v, ok := factVec[text]; ok {
		return v, nil
	}
	vs, err := m.embed(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("embed memory text: %w", err)
	}
	return vs[0], nil
}

// request is the chat request of one ingest call sending msgs.
func (m *Memory) request(msgs []llm.Message) llm.ChatRequest {
	format := llm.FormatJSONObject
	if m.cfg.NoJSONMode {
		format = llm.FormatText
	}
	return llm.ChatRequest{Role: m.cfg.Role, Model: m.cfg.Model, Messages: msgs,
		Temperature: m.cfg.Temperature, TopP: m.cfg.TopP, MaxTokens: m.cfg.MaxTokens, ResponseFormat: format}
}

// extractRequest is the fact-extraction request for trace t (step 1).
func (m *Memory) extractRequest(t datasets.Trace) llm.ChatRequest {
	sys := strings.Replace(extractSystem, "%DATE%", today(t, m.cfg.WallClockDate, m.now), 1)
	return m.request([]llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: extractUser(t)}})
}

// updateRequest is the update-decision request (step 4).
func (m *Memory) updateRequest(current []promptMemory, facts []string) llm.ChatRequest {
	return m.request([]llm.Message{{Role: "user", Content: updatePrompt(current, facts)}})
}

// call makes one ingest chat call and meters it. An answer the model layer
// rejected as not JSON (llm.ErrBadOutput) is not an error: bad is true and
// reply holds the rejection, for the caller to count.
func (m *Memory) call(ctx context.Context, req llm.ChatRequest) (reply string, bad bool, err error) {
	return retrieval.ChatMetered(ctx, m.chat, req, &m.meter, false)
}

// embed embeds ingest texts and meters them.
func (m *Memory) embed(ctx context.Context, texts []string) ([][]float32, error) {
	return retrieval.EmbedMetered(ctx, m.cur, texts, &m.meter, false)
}

// Search returns the k best records admitted at q.AskedAt (see the package
// doc). k = 0 gives no hits; a negative k is an error; a corpus with
// nothing ingested gives no hits.
func (m *Memory) Search(ctx context.Context, q datasets.Question, k int) ([]retrieval.Hit, error) {
	if k < 0 {
		return nil, fmt.Errorf("mem0: search %q: k = %d, want >= 0", q.ID, k)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mem0: search %q: %w", q.ID, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.data[q.CorpusID]
	if k == 0 || c == nil || len(c.recs) == 0 {
		return nil, nil
	}
	vs, err := c.emb.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("mem0: search %q: embed question: %w", q.ID, err)
	}
	if len(vs) != 1 {
		return nil, fmt.Errorf("mem0: search %q: embedder %s returned %d vectors for 1 text", q.ID, c.emb.Name(), len(vs))
	}
	m.meter.QueryEmbeds++
	// Each record gives at least one hit: k records are enough.
	ranked, err := c.search(vs[0], k, q.AskedAt)
	if err != nil {
		return nil, fmt.Errorf("mem0: search %q: %w", q.ID, err)
	}
	var hits []retrieval.Hit
	emitted := map[string]bool{}
	for _, sr := range ranked {
		if len(hits) >= k {
			break
		}
		if m.cfg.Threshold > 0 && sr.score < m.cfg.Threshold {
			break
		}
		r := sr.rec
		hits = append(hits, retrieval.Hit{UnitID: r.id, TraceIDs: append([]string(nil), r.prov...), Score: sr.score,
			Text: r.text, Kind: retrieval.KindMemory, Time: r.time})
		if !m.cfg.ChunkHits {
			continue
		}
		for _, id := range r.prov {
			if emitted[id] || len(hits) >= k {
				continue
			}
			emitted[id] = true
			t := c.traces[id]
			hits = append(hits, retrieval.Hit{UnitID: id, TraceIDs: []string{id}, Score: sr.score, Text: t.Text,
				Kind: retrieval.KindChunk, Time: t.Time})
		}
	}
	return hits, nil
}

// parseFacts reads {"facts":[str]}; blank facts are dropped.
func parseFacts(reply string) ([]string, bool) {
	obj, ok := llm.ReplyObject(reply)
	if !ok {
		return nil, false
	}
	raw, ok := obj["facts"]
	if !ok {
		return nil, false
	}
	list, ok := llm.JSONStrings(raw)
	if !ok {
		return nil, false
	}
	var facts []string
	for _, f := range list {
		if f = strings.TrimSpace(f); f != "" {
			facts = append(facts, f)
		}
	}
	return facts, true
}

type decision struct {
	ID, Text, Event, Old string
}

// parseDecisions reads {"memory":[{"id","text","event","old_memory"}]}.
// Items that are not objects are dropped; ids may be strings or numbers;
// events are matched without regard to case.
func parseDecisions(reply string) ([]decision, bool) {
	obj, ok := llm.ReplyObject(reply)
	if !ok {
		return nil, false
	}
	raw, ok := obj["memory"]
	if !ok {
		return nil, false
	}
	var items []map[string]any
	if err := json.Unmarshal(raw, &items); err != nil {
		items = nil
		var loose []any
		if json.Unmarshal(raw, &loose) != nil {
			return nil, false
		}
		for _, it := range loose {
			if o, ok := it.(map[string]any); ok {
				items = append(items, o)
			}
		}
	}
	out := make([]decision, 0, len(items))
	for _, it := range items {
		if it == nil {
			continue
		}
		var d decision
		d.ID, _ = llm.JSONText(it["id"])
		d.Text, _ = llm.JSONText(it["text"])
		ev, _ := llm.JSONText(it["event"])
		d.Event = strings.ToUpper(strings.TrimSpace(ev))
		d.Old, _ = llm.JSONText(it["old_memory"])
		out = append(out, d)
	}
	return out, true
}

// PrefixStable is true: memories are ranked by cosine and their hits
// (with their chunks, ChunkHits) emitted in that order and cut at k
// (checked by the catalog's TestPrefixStable against the fake server).
func (m *Memory) PrefixStable() bool { return true }
