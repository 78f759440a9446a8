package memos

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
)

// goalPrompt is memlab's wording of the TaskGoalParser step (fine mode).
const goalPrompt = `Someone is about to search their own memories to answer a question.
Possibly related memories found so far:
%s
Question: %s

Work out what to look for. Answer with JSON only:
{"keys": ["short titles of memories to look up"], "tags": ["topic tags"], "goal_type": "retrieval, qa or generation",
 "rephrased_instruction": "the question restated so it stands alone", "internet_search": false,
 "memories": ["2 to 5 ways the memory that answers it could be worded"]}`

type goal struct {
	Keys       []string `json:"keys"`
	Tags       []string `json:"tags"`
	GoalType   string   `json:"goal_type"`
	Rephrased  string   `json:"rephrased_instruction"`
	Internet   bool     `json:"internet_search"`
	Paraphrase []string `json:"memories"`
}

type cand struct {
	it    *Item
	score float64
}

func best(cs []cand, n int) []cand {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].score > cs[j].score })
	if len(cs) > n {
		cs = cs[:n]
	}
	return cs
}

// Search returns at most k memories for q among those whose source traces
// are all admitted at q.AskedAt (filtered before ranking). Fast mode embeds
// the question; fine mode first asks the model for keys, tags, a rephrased
// question and paraphrases (pre-searching 5 memories for context), embeds
// the rephrased question and up to 4 paraphrases, and scores a memory by
// its best cosine. Path A ranks working memory; path B, per scope (long-term,
// user), unites graph recall (key among the keys, or at least 2 shared tags)
// and vector recall (2k per query vector) and keeps the 2k best; the union
// is deduplicated by text (best score kept), sorted and cut at k.
func (m *Memory) Search(ctx context.Context, q datasets.Question, k int) ([]retrieval.Hit, error) {
	if k < 0 {
		return nil, fmt.Errorf("memos: search %q: k = %d, want >= 0", q.ID, k)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memos: search %q: %w", q.ID, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.store[q.CorpusID]
	if st == nil || k == 0 {
		return nil, nil
	}
	adm := func(items []*Item) []*Item {
		var out []*Item
		for _, it := range items {
			if q.AskedAt.IsZero() || it.Time.IsZero() || !it.Time.After(q.AskedAt) {
				out = append(out, it)
			}
		}
		return out
	}
	working, long, users := adm(st.working), adm(st.long), adm(st.users)
	if len(working)+len(long)+len(users) == 0 {
		return nil, nil
	}
	qv, err := m.embed(ctx, st, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("memos: search %q: %w", q.ID, err)
	}
	vecs := qv
	g := goal{Keys: []string{q.Text}}
	if m.cfg.Mode == ModeFine {
		pre := m.rank(append(append([]*Item(nil), long...), users...), vecs, 5)
		var ctxLines []string
		for i, c := range pre {
			ctxLines = append(ctxLines, fmt.Sprintf("%d. %s", i+1, c.it.Memory))
		}
		if len(ctxLines) == 0 {
			ctxLines = []string{"(none)"}
		}
		if pg, ok, err := m.parseGoal(ctx, strings.Join(ctxLines, "\n"), q.Text); err != nil {
			return nil, fmt.Errorf("memos: search %q: %w", q.ID, err)
		} else if ok {
			g = pg
			texts := []string{q.Text}
			if s := strings.TrimSpace(g.Rephrased); s != "" {
				texts[0] = s
			}
			for _, p := range g.Paraphrase {
				if s := strings.TrimSpace(p); s != "" && len(texts) < 5 {
					texts = append(texts, s)
				}
			}
			if vecs, err = m.embed(ctx, st, texts); err != nil {
				return nil, fmt.Errorf("memos: search %q: %w", q.ID, err)
			}
		}
	}
	// Path A: working memory
	all := m.rank(working, vecs, k)
	// Path B: per scope, graph recall ∪ vector recall, best 2k
	for _, scope := range [][]*Item{long, users} {
		in := map[*Item]bool{}
		var pool []*Item
		for _, it := range scope {
			if graphHit(it, g) {
				in[it] = true
				pool = append(pool, it)
			}
		}
		for _, v := range vecs {
			for _, c := range m.rank(scope, [][]float32{v}, 2*k) {
				if !in[c.it] {
					in[c.it] = true
					pool = append(pool, c.it)
				}
			}
		}
		all = append(all, m.rank(pool, vecs, 2*k)...)
	}
	// merge: dedup by text keeping the best score
	byText := map[string]int{}
	var merged []cand
	for _, c := range all {
		if i, ok := byText[c.it.Memory]; ok {
			if c.score > merged[i].score {
				merged[i] = c
			}
			continue
		}
		byText[c.it.Memory] = len(merged)
		merged = append(merged, c)
	}
	merged = best(merged, k)
	if m.cfg.ResortByTime {
		sort.SliceStable(merged, func(i, j int) bool { return merged[i].it.Time.Before(merged[j].it.Time) })
	}
	kind := retrieval.KindMemory
	if m.cfg.Window == 1 && m.cfg.Mode == ModeFast {
		kind = retrieval.KindChunk
	}
	hits := make([]retrieval.Hit, len(merged))
	for i, c := range merged {
		hits[i] = retrieval.Hit{UnitID: c.it.ID, TraceIDs: append([]string(nil), c.it.TraceIDs...), Score: c.score,
			Text: c.it.Memory, Kind: kind, Time: c.it.Time}
	}
	return hits, nil
}

func graphHit(it *Item, g goal) bool {
	for _, k := range g.Keys {
		if it.Key != "" && strings.EqualFold(strings.TrimSpace(k), it.Key) {
			return true
		}
	}
	shared := 0
	for _, t := range g.Tags {
		for _, u := range it.Tags {
			if strings.EqualFold(t, u) {
				shared++
				break
			}
		}
	}
	return shared >= 2
}

// rank scores items by their best cosine to the query vectors and keeps n.
func (m *Memory) rank(items []*Item, vecs [][]float32, n int) []cand {
	cs := make([]cand, 0, len(items))
	for _, it := range items {
		s := math.Inf(-1)
		for _, v := range vecs {
			s = math.Max(s, retrieval.Cosine(it.vec, v))
		}
		cs = append(cs, cand{it, s})
	}
	return best(cs, n)
}

func (m *Memory) embed(ctx context.Context, st *store, texts []string) ([][]float32, error) {
	v, err := st.emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if len(v) != len(texts) {
		return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", st.emb.Name(), len(v), len(texts))
	}
	m.meter.QueryEmbeds += len(texts)
	return v, nil
}

// goalRequest is the goal-parsing request: related lists the pre-searched
// memories, one per line.
func (m *Memory) goalRequest(related, question string) llm.ChatRequest {
	return llm.ChatRequest{Role: llm.RoleExtractor, Model: m.cfg.Model, Temperature: 0,
		ResponseFormat: llm.FormatJSONObject, Messages: []llm.Message{{Role: "user", Content: fmt.Sprintf(goalPrompt, related, question)}}}
}

// parseGoal runs the goal-parsing call; false means the answer was unusable
// (counted; the fast goal is used).
func (m *Memory) parseGoal(ctx context.Context, related, question string) (goal, bool, error) {
	m.stats.GoalCalls++
	m.meter.QueryCalls++
	resp, err := m.chat.Chat(ctx, m.goalRequest(related, question))
	if err != nil {
		if ctx.Err() != nil {
			return goal{}, false, ctx.Err()
		}
		m.stats.GoalFailures++
		return goal{}, false, nil
	}
	m.meter.QueryTokens += resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	var g goal
	if llm.DecodeReply(resp.Content, &g) != nil {
		m.stats.GoalFailures++
		return goal{}, false, nil
	}
	if len(g.Keys) == 0 {
		g.Keys = []string{question}
	}
	return g, true, nil
}

// PrefixStable is true in fast mode: windows are ranked by cosine to the
// question and cut at k, whatever k (checked by the catalog's
// TestPrefixStable). Fine mode makes no claim.
func (m *Memory) PrefixStable() bool { return m.cfg.Mode == ModeFast }
