package amem

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/memlab/memlab/component"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
)

// Name is the system's label; Memory.Name adds its settings.
const Name = "a-mem"

// Modes: which A-Mem code the port follows where they differ.
const (
	ModeResearch = "research" // WujiangXu/A-mem, behind the paper's numbers
	ModeLibrary  = "library"  // A-mem-sys / agiresearch/A-mem
)

// Config holds every knob of the port. DefaultConfig gives the research
// code's defaults, LibraryConfig the library's. The zero Config means
// DefaultConfig; any other value is used as given.
type Config struct {
	// Mode is ModeResearch or ModeLibrary: how neighbours join search
	// results and the index text used by a rebuild.
	Mode string
	// Role is the model role of every call ("" = llm.RoleExtractor); Model
	// overrides the role's model.
	Role, Model string
	// Neighbors is the number of nearest notes shown to evolution (5).
	Neighbors int
	// EvoThreshold: every this many evolutions the index is rebuilt (100;
	// 0 = never).
	EvoThreshold int
	// Temperature and MaxTokens of every call (0.7 and 1000; MaxTokens 0
	// leaves it to the server).
	Temperature float64
	MaxTokens   int
	// QueryKeywords turns the question into keywords with one model call
	// and embeds those (research) instead of the question (library).
	QueryKeywords bool
	// EvolveEmptyStore makes the evolution call for the first note too
	// (research) instead of skipping it (library).
	EvolveEmptyStore bool
	// ReindexOnEdit re-embeds a neighbour whose context or tags evolution
	// changed at once (library) instead of at the next rebuild (research).
	ReindexOnEdit bool
	// Backlinks also adds the notes linking to a hit as its neighbours
	// (memlab's option; A-Mem follows a hit's own links only).
	Backlinks bool
	// ChunkHits makes Search follow each note hit with a chunk hit for its
	// trace (CloneMem's "both kinds", memory-systems.md §8); they share the
	// k slots.
	ChunkHits bool
	// NoJSONMode asks for plain text answers instead of JSON schema ones;
	// they are parsed the same way.
	NoJSONMode bool
}

// DefaultConfig returns the research code's settings: 5 neighbours,
// rebuild every 100 evolutions, temperature 0.7, 1000 tokens, keyword
// queries, evolution on an empty store, neighbour edits indexed at rebuild.
func DefaultConfig() Config {
	return Config{Mode: ModeResearch, Role: llm.RoleExtractor, Neighbors: 5, EvoThreshold: 100, Temperature: 0.7, MaxTokens: 1000,
		QueryKeywords: true, EvolveEmptyStore: true}
}

// LibraryConfig returns the library's settings: as DefaultConfig but
// library mode, the question embedded as is, no evolution on an empty
// store, and neighbour edits re-indexed at once.
func LibraryConfig() Config {
	c := DefaultConfig()
	c.Mode, c.QueryKeywords, c.EvolveEmptyStore, c.ReindexOnEdit = ModeLibrary, false, false, true
	return c
}

// Note is one memory note as a caller sees it.
type Note struct {
	ID       string
	TraceID  string
	Content  string
	Time     time.Time
	Keywords []string
	Context  string
	Tags     []string
	Category string
	// Links are the ids of the notes this note links to; Backlinks the ids
	// of the notes linking to it.
	Links, Backlinks []string
	// Doc is the text the index holds for the note (it lags behind Context
	// and Tags until a rebuild unless Config.ReindexOnEdit).
	Doc string
}

// Stats counts what the memory did.
type Stats struct {
	Notes, EmptyTraces                      int
	ConstructCalls, EvolveCalls, QueryCalls int
	Evolutions, Links, NeighborUpdates      int
	Rebuilds                                int
	DanglingLinks                           int // suggested connections naming no shown neighbour
	InvalidJSON                             int // answers that were not the expected JSON
	FailedTraces                            []string
	FailedQueries                           []string // question ids whose keyword answer was invalid
}

// Call is the audit record of one model call.
type Call struct {
	ID    string // trace id (ingest) or question id (search)
	Step  string // "note", "evolve" or "keywords"
	Reply string
	// IDs maps the memory indexes shown to the model to note ids (evolve).
	IDs     map[string]string
	Invalid bool
}

type note struct {
	id, traceID, content string
	time                 time.Time
	timeRaw              string
	keywords             []string
	context              string
	tags                 []string
	links, backlinks     []*note
	doc                  string
	row                  int // its row in the corpus's vector store: its index in notes
}

// stamp is the note's time as A-Mem writes it (YYYYMMDDHHMM).
func (n *note) stamp() string {
	if n.time.IsZero() {
		if n.timeRaw != "" {
			return n.timeRaw
		}
		return "unknown"
	}
	return n.time.Format("200601021504")
}

// indexText is the research code's text for a note added to the index.
func (n *note) indexText() string {
	return "content:" + n.content + " context:" + n.context + " keywords: " + strings.Join(n.keywords, ", ") + " tags: " + strings.Join(n.tags, ", ")
}

// rebuildText is the research code's text at consolidation.
func (n *note) rebuildText() string {
	return n.content + " , " + n.context + " " + strings.Join(n.keywords, " ") + " " + strings.Join(n.tags, " ")
}

type corpus struct {
	emb   llm.Embedder // the corpus's embedder (see retrieval.CorpusEmbedders)
	notes []*note
	// vecs holds the notes' vectors (nil until the first): row i is
	// notes[i], so ties rank the older note first.
	vecs   *retrieval.MutableVecStore
	evoCnt int
	calls  []Call
}

// addRow stores vec as the row of the note appended next to c.notes.
func (c *corpus) addRow(n *note, vec []float32) error {
	if c.vecs == nil {
		st, err := retrieval.NewMutableVecStore(len(vec))
		if err != nil {
			return err
		}
		c.vecs = st
	}
	_, err := c.vecs.Add(vec, n.time)
	return err
}

// reload replaces every note's vector (vs[i] is c.notes[i]'s), by a new
// store: a refitted embedder may change the vectors' length.
func (c *corpus) reload(vs [][]float32) error {
	c.vecs = nil
	for i, n := range c.notes {
		if err := c.addRow(n, vs[i]); err != nil {
			return fmt.Errorf("note %s: %w", n.id, err)
		}
	}
	return nil
}

type scored struct {
	n     *note
	score float64
}

// search returns the k notes most similar to v among those admitted at at
// (zero = all), best first, ties in creation order.
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
		out[i] = scored{c.notes[r.Index], r.Score}
	}
	return out, nil
}

// Memory is the A-Mem port. It is safe for concurrent use; calls are
// serialised.
type Memory struct {
	chat  llm.Chatter
	emb   llm.Embedder
	embs  *retrieval.CorpusEmbedders
	cur   llm.Embedder // the embedder of the corpus being ingested
	cfg   Config
	mu    sync.Mutex
	data  map[string]*corpus
	meter retrieval.Meter
	stats Stats
}

// New returns an empty A-Mem memory that calls chat for notes, evolution
// and query keywords and embeds with emb. A nil chat gives an error
// wrapping retrieval.ErrNeedsModel.
func New(chat llm.Chatter, emb llm.Embedder, cfg Config) (*Memory, error) {
	if chat == nil {
		return nil, fmt.Errorf("amem: new: %w", retrieval.ErrNeedsModel)
	}
	if c, ok := chat.(*llm.Client); ok && c == nil {
		return nil, fmt.Errorf("amem: new: %w", retrieval.ErrNeedsModel)
	}
	if emb == nil {
		return nil, fmt.Errorf("amem: new: nil embedder (use an offline embedder such as offline.FitHashedTFIDF or llm.ClientEmbedder)")
	}
	if cfg == (Config{}) {
		cfg = DefaultConfig()
	}
	if cfg.Mode == "" {
		cfg.Mode = ModeResearch
	}
	if cfg.Role == "" {
		cfg.Role = llm.RoleExtractor
	}
	switch {
	case cfg.Mode != ModeResearch && cfg.Mode != ModeLibrary:
		return nil, fmt.Errorf("amem: new: Config.Mode = %q, want %q or %q", cfg.Mode, ModeResearch, ModeLibrary)
	case cfg.Neighbors < 1:
		return nil, fmt.Errorf("amem: new: Config.Neighbors = %d, want >= 1", cfg.Neighbors)
	case cfg.EvoThreshold < 0:
		return nil, fmt.Errorf("amem: new: Config.EvoThreshold = %d, want >= 0", cfg.EvoThreshold)
	case math.IsNaN(cfg.Temperature) || cfg.Temperature < 0 || cfg.Temperature > 2:
		return nil, fmt.Errorf("amem: new: Config.Temperature = %v, want a value in [0, 2]", cfg.Temperature)
	case cfg.MaxTokens < 0:
		return nil, fmt.Errorf("amem: new: Config.MaxTokens = %d, want >= 0", cfg.MaxTokens)
	}
	return &Memory{chat: chat, emb: emb, embs: retrieval.NewCorpusEmbedders(emb), cfg: cfg, data: map[string]*corpus{}}, nil
}

// Refits returns the cost of refitting a strict embedder
// (retrieval.AdmittedEmbedder) at each ingest batch.
func (m *Memory) Refits() retrieval.RefitStats { return m.embs.Refits() }

// admit fits the corpus's embedder on the traces ingested so far, batch
// included, and re-embeds every note's index text when it changed.
func (m *Memory) admit(ctx context.Context, corpusID string, c *corpus, traces []datasets.Trace) error {
	emb, refit, err := m.embs.Admit(ctx, corpusID, traces)
	if err != nil {
		return err
	}
	c.emb = emb
	if !refit || len(c.notes) == 0 {
		return nil
	}
	t0 := time.Now()
	docs := make([]string, len(c.notes))
	for i, n := range c.notes {
		docs[i] = n.doc
	}
	vs, err := emb.Embed(ctx, docs)
	if err != nil {
		return fmt.Errorf("re-embed %d notes with the refitted %s: %w", len(docs), emb.Name(), err)
	}
	if len(vs) != len(docs) {
		return fmt.Errorf("embedder %s returned %d vectors for %d texts", emb.Name(), len(vs), len(docs))
	}
	if err := c.reload(vs); err != nil {
		return fmt.Errorf("re-embed with the refitted %s: %w", emb.Name(), err)
	}
	m.embs.Reembedded(len(docs), time.Since(t0))
	return nil
}

// Name is "a-mem(...)" with every setting and the embedder's name.
func (m *Memory) Name() string {
	c := m.cfg
	model := c.Role
	if c.Model != "" {
		model += ":" + c.Model
	}
	format := llm.FormatJSONSchema
	if c.NoJSONMode {
		format = "text"
	}
	return fmt.Sprintf("%s(mode=%s,model=%s,neighbors=%d,evo_threshold=%d,temp=%g,max_tokens=%d,format=%s,query_keywords=%t,evolve_empty=%t,reindex_on_edit=%t,backlinks=%t,chunks=%t,emb=%s)",
		Name, c.Mode, model, c.Neighbors, c.EvoThreshold, c.Temperature, c.MaxTokens, format, c.QueryKeywords, c.EvolveEmptyStore,
		c.ReindexOnEdit, c.Backlinks, c.ChunkHits, m.emb.Name())
}

// Spec is the memory's component spec: every setting, the hash of its
// prompt templates, its model and its embedder.
func (m *Memory) Spec() component.Spec {
	return component.New(Name).MustFields(m.cfg, "Role", "Model").With("role", m.cfg.Role).
		With("prompts", retrieval.HashPrompts(notePrompt(""), noteSchema, evolvePrompt(&note{}, nil), evolveSchema,
			keywordsPrompt(""), keywordsSchema)).
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

// Stats returns the counts so far.
func (m *Memory) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.stats
	s.FailedTraces = append([]string(nil), s.FailedTraces...)
	s.FailedQueries = append([]string(nil), s.FailedQueries...)
	return s
}

// Notes returns a corpus's notes in creation order.
func (m *Memory) Notes(corpusID string) []Note {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.data[corpusID]
	if c == nil {
		return nil
	}
	out := make([]Note, len(c.notes))
	for i, n := range c.notes {
		out[i] = Note{ID: n.id, TraceID: n.traceID, Content: n.content, Time: n.time, Keywords: append([]string(nil), n.keywords...),
			Context: n.context, Tags: append([]string(nil), n.tags...), Category: "Uncategorized",
			Links: ids(n.links), Backlinks: ids(n.backlinks), Doc: n.doc}
	}
	return out
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

func ids(ns []*note) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.id)
	}
	return out
}

// Ingest adds one note per trace, in the order given.
func (m *Memory) Ingest(ctx context.Context, corpusID string, traces []datasets.Trace) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.data[corpusID]
	if c == nil {
		c = &corpus{}
		m.data[corpusID] = c
	}
	if err := m.admit(ctx, corpusID, c, traces); err != nil {
		return fmt.Errorf("amem: ingest %s: %w", corpusID, err)
	}
	m.cur = c.emb
	for _, t := range traces {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("amem: ingest %s trace %q: %w", corpusID, t.ID, err)
		}
		if err := m.add(ctx, c, t); err != nil {
			return fmt.Errorf("amem: ingest %s trace %q: %w", corpusID, t.ID, err)
		}
	}
	return nil
}

func (m *Memory) add(ctx context.Context, c *corpus, t datasets.Trace) error {
	n := &note{id: fmt.Sprintf("n%d", len(c.notes)+1), traceID: t.ID, content: t.Text, time: t.Time, timeRaw: t.TimeRaw,
		context: "General", row: len(c.notes)}
	m.stats.Notes++
	if strings.TrimSpace(t.Text) == "" {
		m.stats.EmptyTraces++
		return m.index(ctx, c, n)
	}
	// 1. note construction
	reply, bad, err := m.call(ctx, m.noteRequest(t.Text), false)
	if err != nil {
		return fmt.Errorf("note construction: %w", err)
	}
	m.stats.ConstructCalls++
	ok := !bad && parseNote(reply, n)
	c.calls = append(c.calls, Call{ID: t.ID, Step: "note", Reply: reply, Invalid: !ok})
	if !ok {
		m.invalidTrace(t.ID)
	}
	// 2. neighbours
	var nbs []*note
	if len(c.notes) > 0 {
		vs, err := m.embed(ctx, []string{n.content})
		if err != nil {
			return fmt.Errorf("embed content: %w", err)
		}
		near, err := c.search(vs[0], m.cfg.Neighbors, time.Time{})
		if err != nil {
			return fmt.Errorf("neighbours: %w", err)
		}
		for _, s := range near {
			nbs = append(nbs, s.n)
		}
	}
	// 3. evolution
	evolved := false
	if len(nbs) > 0 || m.cfg.EvolveEmptyStore {
		reply, bad, err := m.call(ctx, m.evolveRequest(n, nbs), false)
		if err != nil {
			return fmt.Errorf("evolution: %w", err)
		}
		m.stats.EvolveCalls++
		idMap := map[string]string{}
		for i, nb := range nbs {
			idMap[strconv.Itoa(i)] = nb.id
		}
		ev, ok := parseEvolution(reply)
		ok = ok && !bad
		c.calls = append(c.calls, Call{ID: t.ID, Step: "evolve", Reply: reply, IDs: idMap, Invalid: !ok})
		if !ok {
			m.invalidTrace(t.ID)
		} else if ev.shouldEvolve {
			evolved = true
			if err := m.evolve(ctx, c, n, nbs, ev); err != nil {
				return err
			}
		}
	}
	// 5. index
	if err := m.index(ctx, c, n); err != nil {
		return err
	}
	// 6. rebuild
	if evolved {
		m.stats.Evolutions++
		c.evoCnt++
		if m.cfg.EvoThreshold > 0 && c.evoCnt%m.cfg.EvoThreshold == 0 {
			return m.rebuild(ctx, c)
		}
	}
	return nil
}

// evolve applies an evolution decision (step 4).
func (m *Memory) evolve(ctx context.Context, c *corpus, n *note, nbs []*note, ev evolution) error {
	for _, action := range ev.actions {
		switch strings.ToLower(strings.TrimSpace(action)) {
		case "strengthen":
			for _, i := range ev.connections {
				if i < 0 || i >= len(nbs) {
					m.stats.DanglingLinks++
					continue
				}
				nb := nbs[i]
				if has(n.links, nb) {
					continue
				}
				n.links = append(n.links, nb)
				nb.backlinks = append(nb.backlinks, n)
				m.stats.Links++
			}
			if ev.hasTags {
				n.tags = ev.tags
			}
		case "update_neighbor":
			for i := 0; i < min(len(nbs), len(ev.nbTags)); i++ {
				nb := nbs[i]
				nb.tags = ev.nbTags[i]
				if i < len(ev.nbContexts) {
					nb.context = ev.nbContexts[i]
				}
				m.stats.NeighborUpdates++
				if m.cfg.ReindexOnEdit {
					nb.doc = nb.indexText()
					vs, err := m.embed(ctx, []string{nb.doc})
					if err != nil {
						return fmt.Errorf("re-embed neighbour %s: %w", nb.id, err)
					}
					if err := c.vecs.Set(nb.row, vs[0]); err != nil {
						return fmt.Errorf("re-index neighbour %s: %w", nb.id, err)
					}
				}
			}
		}
	}
	return nil
}

func has(ns []*note, x *note) bool {
	for _, n := range ns {
		if n == x {
			return true
		}
	}
	return false
}

// index embeds a new note's index text and adds it.
func (m *Memory) index(ctx context.Context, c *corpus, n *note) error {
	n.doc = n.indexText()
	vs, err := m.embed(ctx, []string{n.doc})
	if err != nil {
		return fmt.Errorf("embed note: %w", err)
	}
	if err := c.addRow(n, vs[0]); err != nil {
		return fmt.Errorf("index note: %w", err)
	}
	c.notes = append(c.notes, n)
	return nil
}

// rebuild re-embeds every note (A-Mem's consolidate_memories).
func (m *Memory) rebuild(ctx context.Context, c *corpus) error {
	docs := make([]string, len(c.notes))
	for i, n := range c.notes {
		if m.cfg.Mode == ModeResearch {
			docs[i] = n.rebuildText()
		} else {
			docs[i] = n.indexText()
		}
	}
	vs, err := m.embed(ctx, docs)
	if err != nil {
		return fmt.Errorf("rebuild index of %d notes: %w", len(docs), err)
	}
	if err := c.reload(vs); err != nil {
		return fmt.Errorf("rebuild index: %w", err)
	}
	for i, n := range c.notes {
		n.doc = docs[i]
	}
	m.stats.Rebuilds++
	return nil
}

func (m *Memory) invalidTrace(id string) {
	m.stats.InvalidJSON++
	m.stats.FailedTraces = append(m.stats.FailedTraces, id)
}

// request is the chat request sending prompt, answered with JSON of schema
// (named name) unless Config.NoJSONMode.
func (m *Memory) request(prompt, schema, name string) llm.ChatRequest {
	req := llm.ChatRequest{Role: m.cfg.Role, Model: m.cfg.Model, Messages: []llm.Message{{Role: "user", Content: prompt}},
		Temperature: m.cfg.Temperature, MaxTokens: m.cfg.MaxTokens}
	if !m.cfg.NoJSONMode {
		req.ResponseFormat, req.JSONSchema, req.SchemaName = llm.FormatJSONSchema, schema, name
	}
	return req
}

// noteRequest is the note-construction request for a trace's text.
func (m *Memory) noteRequest(content string) llm.ChatRequest {
	return m.request(notePrompt(content), noteSchema, "note")
}

// evolveRequest is the evolution request for new note n and its neighbours.
func (m *Memory) evolveRequest(n *note, nbs []*note) llm.ChatRequest {
	return m.request(evolvePrompt(n, nbs), evolveSchema, "evolve")
}

// keywordsRequest is the query-keywords request for a question.
func (m *Memory) keywordsRequest(question string) llm.ChatRequest {
	return m.request(keywordsPrompt(question), keywordsSchema, "keywords")
}

// call makes one chat call and meters it (query = true: at search time).
// An answer the model layer rejected as not JSON is not an error: bad is
// true and reply holds the rejection.
func (m *Memory) call(ctx context.Context, req llm.ChatRequest, query bool) (reply string, bad bool, err error) {
	return retrieval.ChatMetered(ctx, m.chat, req, &m.meter, query)
}

// embed embeds ingest texts and meters them.
func (m *Memory) embed(ctx context.Context, texts []string) ([][]float32, error) {
	return retrieval.EmbedMetered(ctx, m.cur, texts, &m.meter, false)
}

// Search returns at most k hits for q (see the package doc). k = 0 gives no
// hits; a negative k is an error; a corpus with nothing ingested gives no
// hits and makes no call.
func (m *Memory) Search(ctx context.Context, q datasets.Question, k int) ([]retrieval.Hit, error) {
	if k < 0 {
		return nil, fmt.Errorf("amem: search %q: k = %d, want >= 0", q.ID, k)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("amem: search %q: %w", q.ID, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.data[q.CorpusID]
	if k == 0 || c == nil || len(c.notes) == 0 {
		return nil, nil
	}
	admitted := func(n *note) bool { return q.AskedAt.IsZero() || n.time.IsZero() || !n.time.After(q.AskedAt) }
	seen := false
	for _, n := range c.notes {
		seen = seen || admitted(n)
	}
	if !seen {
		return nil, nil
	}
	query := q.Text
	if m.cfg.QueryKeywords {
		reply, bad, err := m.call(ctx, m.keywordsRequest(q.Text), true)
		if err != nil {
			return nil, fmt.Errorf("amem: search %q: query keywords: %w", q.ID, err)
		}
		m.stats.QueryCalls++
		kw, ok := parseKeywords(reply)
		ok = ok && !bad
		c.calls = append(c.calls, Call{ID: q.ID, Step: "keywords", Reply: reply, Invalid: !ok})
		if ok {
			query = kw
		} else {
			m.stats.InvalidJSON++
			m.stats.FailedQueries = append(m.stats.FailedQueries, q.ID)
		}
	}
	vs, err := c.emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("amem: search %q: embed query: %w", q.ID, err)
	}
	if len(vs) != 1 {
		return nil, fmt.Errorf("amem: search %q: embedder %s returned %d vectors for 1 text", q.ID, c.emb.Name(), len(vs))
	}
	m.meter.QueryEmbeds++
	ranked, err := c.search(vs[0], len(c.notes), q.AskedAt)
	if err != nil {
		return nil, fmt.Errorf("amem: search %q: %w", q.ID, err)
	}
	score := map[*note]float64{}
	for _, s := range ranked {
		score[s.n] = s.score
	}
	if len(ranked) > k {
		ranked = ranked[:k]
	}
	var hits []retrieval.Hit
	emitted := map[*note]bool{}
	byID := map[string]*note{}
	emit := func(n *note, kind string) bool {
		if emitted[n] || !admitted(n) {
			return false
		}
		emitted[n] = true
		byID[n.id] = n
		hits = append(hits, hitOf(n, kind, score[n]))
		return true
	}
	linked := func(n *note) []*note {
		if !m.cfg.Backlinks {
			return n.links
		}
		return append(append([]*note(nil), n.links...), n.backlinks...)
	}
	if m.cfg.Mode == ModeResearch {
		// the research code appends each hit's links after it, with one
		// neighbour counter j over the whole list: append, stop this hit's
		// links once j >= k, else j++.
		j := 0
		for _, s := range ranked {
			emit(s.n, retrieval.KindMemory)
			for _, nb := range linked(s.n) {
				if !emit(nb, retrieval.KindNeighbor) {
					continue
				}
				if j >= k {
					break
				}
				j++
			}
		}
	} else {
		for _, s := range ranked {
			emit(s.n, retrieval.KindMemory)
		}
		added := 0
		for _, s := range ranked {
			for _, nb := range linked(s.n) {
				if added < k && emit(nb, retrieval.KindNeighbor) {
					added++
				}
			}
		}
	}
	if m.cfg.ChunkHits {
		withChunks := make([]retrieval.Hit, 0, 2*len(hits))
		for _, h := range hits {
			withChunks = append(withChunks, h, retrieval.Hit{UnitID: h.TraceIDs[0], TraceIDs: h.TraceIDs, Score: h.Score,
				Text: byID[h.UnitID].content, Kind: retrieval.KindChunk, Time: h.Time})
		}
		hits = withChunks
	}
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

// hitOf renders a note as a hit, in the research code's reader format.
func hitOf(n *note, kind string, score float64) retrieval.Hit {
	text := "talk start time:" + n.stamp() + " memory content: " + n.content + " memory context: " + n.context +
		" memory keywords: " + jsonText(n.keywords) + " memory tags: " + jsonText(n.tags)
	return retrieval.Hit{UnitID: n.id, TraceIDs: []string{n.traceID}, Score: score, Text: text, Kind: kind, Time: n.time}
}

// parseNote fills n's keywords, context and tags from a construction
// answer; on failure n keeps its defaults.
func parseNote(reply string, n *note) bool {
	obj, ok := llm.ReplyObject(reply)
	if !ok {
		return false
	}
	kw, ok1 := llm.JSONStrings(obj["keywords"])
	tags, ok2 := llm.JSONStrings(obj["tags"])
	var ctx string
	ok3 := json.Unmarshal(obj["context"], &ctx) == nil
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	n.keywords, n.tags = kw, tags
	if strings.TrimSpace(ctx) != "" {
		n.context = ctx
	}
	return true
}

type evolution struct {
	shouldEvolve bool
	actions      []string
	connections  []int
	hasTags      bool
	tags         []string
	nbContexts   []string
	nbTags       [][]string
}

// parseEvolution reads an evolution answer. should_evolve may be a boolean
// or "true"/"false"; connections may be numbers or numeric strings (others
// count as dangling); missing lists are empty.
func parseEvolution(reply string) (evolution, bool) {
	var ev evolution
	obj, ok := llm.ReplyObject(reply)
	if !ok {
		return ev, false
	}
	var raw any
	if json.Unmarshal(obj["should_evolve"], &raw) != nil {
		return ev, false
	}
	switch x := raw.(type) {
	case bool:
		ev.shouldEvolve = x
	case string:
		ev.shouldEvolve = strings.EqualFold(strings.TrimSpace(x), "true")
	default:
		return ev, false
	}
	ev.actions, _ = llm.JSONStrings(obj["actions"])
	conns, _ := llm.JSONStrings(obj["suggested_connections"])
	for _, s := range conns {
		i, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			i = -1
		}
		ev.connections = append(ev.connections, i)
	}
	if raw, ok := obj["tags_to_update"]; ok {
		ev.tags, ev.hasTags = llm.JSONStrings(raw)
	}
	ev.nbContexts, _ = llm.JSONStrings(obj["new_context_neighborhood"])
	var lists []json.RawMessage
	if json.Unmarshal(obj["new_tags_neighborhood"], &lists) == nil {
		for _, l := range lists {
			tags, _ := llm.JSONStrings(l)
			ev.nbTags = append(ev.nbTags, tags)
		}
	}
	return ev, true
}

// parseKeywords reads {"keywords": "k1, k2"} (a list is joined with ", ").
func parseKeywords(reply string) (string, bool) {
	obj, ok := llm.ReplyObject(reply)
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(obj["keywords"], &s) == nil {
		return s, strings.TrimSpace(s) != ""
	}
	if list, ok := llm.JSONStrings(obj["keywords"]); ok && len(list) > 0 {
		return strings.Join(list, ", "), true
	}
	return "", false
}
