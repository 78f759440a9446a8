package memos

import (
	"context"
	"fmt"
	"github.com/memlab/memlab/component"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
)

// Modes of ingestion and search.
const (
	ModeFast = "fast" // no model: raw windows are the memories; the question is the query
	ModeFine = "fine" // one model call per window to extract memories; one per question to parse the goal
)

// Memory types of MemOS.
const (
	TypeWorking  = "WorkingMemory"
	TypeLongTerm = "LongTermMemory"
	TypeUser     = "UserMemory"
)

// Upstream defaults (MemOS v1.0.0) and memlab's raised caps.
const (
	DefaultWindow      = 10
	DefaultOverlap     = 2
	DefaultWorkingCap  = 20      // upstream, kept: Path A only ever looks at the latest items
	UpstreamLongTerm   = 1500    // upstream LTM cap: FIFO trim forgets beyond it
	UpstreamUser       = 480     // upstream UserMemory cap
	DefaultLongTermCap = 1000000 // raised so the baseline does not silently forget
	DefaultUserCap     = 1000000
)

// Config holds every knob; zero values mean the defaults above.
type Config struct {
	// Mode is ModeFast (default) or ModeFine.
	Mode string
	// Window is the number of messages (traces) per window (10); Overlap the
	// number shared by consecutive windows (2). Window 1 with Overlap 0 is the
	// one-trace-per-memory variant.
	Window, Overlap int
	// NoOverlap forces Overlap 0 (the zero value means the default 2).
	NoOverlap bool
	// WorkingCap, LongTermCap and UserCap are the FIFO caps of the three
	// memory types (20, 1,000,000, 1,000,000; upstream 20/1500/480).
	WorkingCap, LongTermCap, UserCap int
	// ResortByTime re-sorts the final top k by time (not in MemOS code; the
	// "chronological stream" reading).
	ResortByTime bool
	// Model overrides the extractor role's model for both model steps.
	Model string
}

func (c Config) resolve() (Config, error) {
	if c.Mode == "" {
		c.Mode = ModeFast
	}
	if c.Mode != ModeFast && c.Mode != ModeFine {
		return c, fmt.Errorf("memos: config: mode %q, want %q or %q", c.Mode, ModeFast, ModeFine)
	}
	if c.Window == 0 {
		c.Window = DefaultWindow
	}
	if c.NoOverlap {
		c.Overlap = 0
	} else if c.Overlap == 0 && c.Window > 1 {
		c.Overlap = min(DefaultOverlap, c.Window-1)
	}
	if c.WorkingCap == 0 {
		c.WorkingCap = DefaultWorkingCap
	}
	if c.LongTermCap == 0 {
		c.LongTermCap = DefaultLongTermCap
	}
	if c.UserCap == 0 {
		c.UserCap = DefaultUserCap
	}
	switch {
	case c.Window < 1:
		return c, fmt.Errorf("memos: config: window %d, want >= 1", c.Window)
	case c.Overlap < 0 || c.Overlap >= c.Window:
		return c, fmt.Errorf("memos: config: overlap %d, want 0 <= overlap < window %d", c.Overlap, c.Window)
	case c.WorkingCap < 0 || c.LongTermCap < 0 || c.UserCap < 0:
		return c, fmt.Errorf("memos: config: negative cap (working %d, long-term %d, user %d)", c.WorkingCap, c.LongTermCap, c.UserCap)
	}
	return c, nil
}

// Item is one textual memory node.
type Item struct {
	ID string
	// Memory is the node's text (the extracted value, or the raw window in
	// fast mode).
	Memory     string
	Key        string
	Tags       []string
	MemoryType string // TypeLongTerm or TypeUser (the scope it is stored in besides working memory)
	// TraceIDs are the traces of the item's source window; Time is the
	// latest of their times.
	TraceIDs []string
	Time     time.Time
	// Background is the window summary (fine mode).
	Background string
	vec        []float32
}

// Stats counts the model steps and their failures.
type Stats struct {
	Windows, Items int
	// ExtractCalls are window extraction calls; ExtractFailures those whose
	// answer was not usable JSON or failed (the raw window was stored as in
	// fast mode); EmptyWindows those where the model listed no memory.
	ExtractCalls, ExtractFailures, EmptyWindows int
	// GoalCalls are question parsing calls; GoalFailures those that fell
	// back to the fast goal (the question itself).
	GoalCalls, GoalFailures int
}

// Memory is the MemOS tree textual memory with the reorganizer off (see the
// package doc). It implements retrieval.Memory and is safe for concurrent
// use.
type Memory struct {
	cfg   Config
	chat  llm.Chatter
	emb   llm.Embedder
	embs  *retrieval.CorpusEmbedders
	mu    sync.Mutex
	store map[string]*store
	meter retrieval.Meter
	stats Stats
}

type store struct {
	seq                  int
	working, long, users []*Item
	emb                  llm.Embedder // the corpus's embedder (see retrieval.CorpusEmbedders)
}

// New returns a MemOS memory. emb embeds the memories and queries (a model
// or an offline embedder). chat is needed in fine mode; without it, or
// without emb, the error wraps retrieval.ErrNeedsModel.
func New(cfg Config, chat llm.Chatter, emb llm.Embedder) (*Memory, error) {
	c, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if emb == nil {
		return nil, fmt.Errorf("memos: new: no embedder: %w", retrieval.ErrNeedsModel)
	}
	if c.Mode == ModeFine && chat == nil {
		return nil, fmt.Errorf("memos: new: fine mode needs a chat model for extraction and goal parsing: %w", retrieval.ErrNeedsModel)
	}
	return &Memory{cfg: c, chat: chat, emb: emb, embs: retrieval.NewCorpusEmbedders(emb), store: map[string]*store{}}, nil
}

// Refits returns the cost of refitting a strict embedder
// (retrieval.AdmittedEmbedder) at each ingest batch.
func (m *Memory) Refits() retrieval.RefitStats { return m.embs.Refits() }

// admit fits the corpus's embedder on the traces ingested so far, batch
// included, and re-embeds every memory held when it changed.
func (m *Memory) admit(ctx context.Context, corpusID string, st *store, traces []datasets.Trace) error {
	emb, refit, err := m.embs.Admit(ctx, corpusID, traces)
	if err != nil {
		return err
	}
	st.emb = emb
	if !refit {
		return nil
	}
	t0 := time.Now()
	seen := map[*Item]bool{}
	var items []*Item
	for _, scope := range [][]*Item{st.working, st.long, st.users} {
		for _, it := range scope {
			if !seen[it] {
				seen[it] = true
				items = append(items, it)
			}
		}
	}
	if len(items) == 0 {
		return nil
	}
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = it.Memory
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("re-embed %d memories with the refitted %s: %w", len(texts), emb.Name(), err)
	}
	if len(vecs) != len(texts) {
		return fmt.Errorf("embedder %s returned %d vectors for %d texts", emb.Name(), len(vecs), len(texts))
	}
	for i, it := range items {
		it.vec = vecs[i]
	}
	m.embs.Reembedded(len(texts), time.Since(t0))
	return nil
}

// Config returns the resolved configuration.
func (m *Memory) Config() Config { return m.cfg }

// Spec is the memory's component spec: every setting (resolved), the
// hash of its prompts, its embedder and, with a chat model, that model.
func (m *Memory) Spec() component.Spec {
	s := component.New("memos").MustFields(m.cfg, "Model").With("prompts", retrieval.HashPrompts(extractPrompt, goalPrompt)).
		Part("embedder", component.Of(m.emb, llm.RedactURLs(m.emb.Name())))
	if m.chat != nil {
		s = s.Part("model", llm.ModelSpec(m.chat, llm.RoleExtractor, m.cfg.Model))
	}
	return s
}

// Name is "memos" with its mode, window, caps, embedder and flags.
func (m *Memory) Name() string {
	c := m.cfg
	s := fmt.Sprintf("memos(mode=%s,window=%d,overlap=%d,caps=%d/%d/%d,emb=%s", c.Mode, c.Window, c.Overlap,
		c.WorkingCap, c.LongTermCap, c.UserCap, m.emb.Name())
	if c.Model != "" {
		s += ",model=" + c.Model
	}
	if c.ResortByTime {
		s += ",resort=time"
	}
	return s + ")"
}

// Meter returns the model use so far.
func (m *Memory) Meter() retrieval.Meter {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.meter
}

// Stats returns the counters.
func (m *Memory) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}

// Items returns copies of the memory nodes of corpusID by scope:
// TypeWorking, TypeLongTerm or TypeUser.
func (m *Memory) Items(corpusID, memoryType string) []Item {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.store[corpusID]
	if st == nil {
		return nil
	}
	var src []*Item
	switch memoryType {
	case TypeWorking:
		src = st.working
	case TypeLongTerm:
		src = st.long
	case TypeUser:
		src = st.users
	}
	out := make([]Item, len(src))
	for i, it := range src {
		out[i] = *it
		out[i].vec = nil
		out[i].Tags = append([]string(nil), it.Tags...)
		out[i].TraceIDs = append([]string(nil), it.TraceIDs...)
	}
	return out
}

func chatTime(t time.Time) string {
	if t.IsZero() {
		return "unknown time"
	}
	return t.Format("2006-01-02 15:04")
}

// windows cuts n messages into windows of size w overlapping by o.
func windows(n, w, o int) [][2]int {
	var out [][2]int
	for start := 0; start < n; start += w - o {
		end := min(start+w, n)
		out = append(out, [2]int{start, end})
		if end == n {
			break
		}
	}
	return out
}

// window is one window of a batch as Ingest stores or extracts it.
type window struct {
	text   string    // the messages, one "user: [time]: text" line each (Window 1: the trace's text)
	ids    []string  // the traces' ids
	latest time.Time // the latest trace time
}

// windows cuts a batch of traces into its windows and renders them.
func (m *Memory) windows(traces []datasets.Trace) []window {
	var out []window
	for _, w := range windows(len(traces), m.cfg.Window, m.cfg.Overlap) {
		win := traces[w[0]:w[1]]
		var lines []string
		ids := make([]string, len(win))
		var latest time.Time
		for i, tr := range win {
			ids[i] = tr.ID
			lines = append(lines, fmt.Sprintf("user: [%s]: %s", chatTime(tr.Time), tr.Text))
			if tr.Time.After(latest) {
				latest = tr.Time
			}
		}
		text := strings.Join(lines, "\n")
		if m.cfg.Window == 1 {
			text = win[0].Text
		}
		out = append(out, window{text: text, ids: ids, latest: latest})
	}
	return out
}

// Ingest adds one batch of traces (one MemOS add call): cut into windows,
// each window becomes memories (fine: extracted by the model; fast: the raw
// window), which are embedded and stored in working memory and their scope.
func (m *Memory) Ingest(ctx context.Context, corpusID string, traces []datasets.Trace) error {
	if len(traces) == 0 {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.store[corpusID]
	if st == nil {
		st = &store{}
		m.store[corpusID] = st
	}
	if err := m.admit(ctx, corpusID, st, traces); err != nil {
		return fmt.Errorf("memos: ingest %s: %w", corpusID, err)
	}
	var items []*Item
	for _, w := range m.windows(traces) {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("memos: ingest %s: %w", corpusID, err)
		}
		m.stats.Windows++
		var got []*Item
		if m.cfg.Mode == ModeFine {
			var err error
			if got, err = m.extract(ctx, w.text); err != nil {
				return fmt.Errorf("memos: ingest %s window of traces %s..%s: %w", corpusID, w.ids[0], w.ids[len(w.ids)-1], err)
			}
		}
		if got == nil { // fast mode, or a failed extraction: the raw window
			got = []*Item{{Memory: w.text, Tags: []string{"mode:fast"}, MemoryType: TypeUser}}
		}
		for _, it := range got {
			it.TraceIDs = w.ids
			it.Time = w.latest
			items = append(items, it)
		}
	}
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = it.Memory
	}
	vecs, err := st.emb.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("memos: ingest %s: embed %d memories: %w", corpusID, len(texts), err)
	}
	if len(vecs) != len(texts) {
		return fmt.Errorf("memos: ingest %s: embedder %s returned %d vectors for %d texts", corpusID, st.emb.Name(), len(vecs), len(texts))
	}
	m.meter.IngestEmbeds += len(texts)
	for i, it := range items {
		st.seq++
		it.ID = fmt.Sprintf("%s/m%d", corpusID, st.seq)
		it.vec = vecs[i]
		m.stats.Items++
		st.working = trim(append(st.working, it), m.cfg.WorkingCap)
		if it.MemoryType == TypeUser {
			st.users = trim(append(st.users, it), m.cfg.UserCap)
		} else {
			st.long = trim(append(st.long, it), m.cfg.LongTermCap)
		}
	}
	return nil
}

// trim keeps the latest n items (FIFO).
func trim(items []*Item, n int) []*Item {
	if len(items) > n {
		return append([]*Item(nil), items[len(items)-n:]...)
	}
	return items
}

// extractPrompt is memlab's wording of the MemReader step.
const extractPrompt = `You read a stretch of someone's records (messages, diary entries, emails, posts) and write down what that person would remember from it.
Rules: keep what the person said, did, felt, planned and learned, including things others told them that they took on board;
turn relative dates into absolute dates using the record times (when something happened can differ from when it was written);
name people instead of using pronouns; write in the third person; prefer complete memories to short ones; write in the language of the records.
Records:
%s

Answer with JSON only, in this shape:
{"memory list": [{"key": "short title", "memory_type": "LongTermMemory or UserMemory", "value": "the memory", "tags": ["topic", "..."]}], "summary": "a 120 to 200 word summary of the records"}`

type extraction struct {
	List []struct {
		Key        string   `json:"key"`
		MemoryType string   `json:"memory_type"`
		Value      string   `json:"value"`
		Tags       []string `json:"tags"`
	} `json:"memory list"`
	Summary string `json:"summary"`
}

// extractRequest is the MemReader request for one rendered window.
func (m *Memory) extractRequest(window string) llm.ChatRequest {
	return llm.ChatRequest{Role: llm.RoleExtractor, Model: m.cfg.Model, Temperature: 0,
		ResponseFormat: llm.FormatJSONObject, Messages: []llm.Message{{Role: "user", Content: fmt.Sprintf(extractPrompt, window)}}}
}

// extract runs the MemReader call on one window. It returns nil items when
// the answer is unusable (counted; the caller stores the raw window) and an
// error only when ctx ended.
func (m *Memory) extract(ctx context.Context, window string) ([]*Item, error) {
	m.stats.ExtractCalls++
	m.meter.IngestCalls++
	resp, err := m.chat.Chat(ctx, m.extractRequest(window))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		m.stats.ExtractFailures++
		return nil, nil
	}
	m.meter.IngestTokens += resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	var x extraction
	if llm.DecodeReply(resp.Content, &x) != nil {
		m.stats.ExtractFailures++
		return nil, nil
	}
	items := []*Item{}
	for _, e := range x.List {
		v := strings.TrimSpace(e.Value)
		if v == "" {
			continue
		}
		typ := TypeLongTerm
		if strings.EqualFold(strings.TrimSpace(e.MemoryType), TypeUser) {
			typ = TypeUser
		}
		items = append(items, &Item{Memory: v, Key: strings.TrimSpace(e.Key), Tags: e.Tags, MemoryType: typ, Background: x.Summary})
	}
	if len(items) == 0 {
		m.stats.EmptyWindows++
	}
	return items, nil
}
