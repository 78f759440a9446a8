package timeline

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/text"
)

// scored is the per-question view of the admitted traces. Slices are
// indexed by entry.
type scored struct {
	adm    []int     // admitted entries, in ingest (time) order
	s      []float64 // normalised BM25 (best = 1)
	final  []float64
	cand   []int     // entries with a positive final score
	topicS []float64 // topic strength for the question, by topic
}

// score ranks the admitted traces of c for the question tokens: BM25 over
// the admitted traces only (N, avgdl and df from them), normalised by the
// best score, plus TopicBoost × the strength of the trace's topic (mean of
// its three best normalised member scores) plus NeighborWeight × the best
// normalised score of its episode neighbours.
func (m *Memory) score(ctx context.Context, c *corpus, qtoks []string, qw []float64, at time.Time, spans []Window) (*scored, error) {
	ne := len(c.entries)
	sc := &scored{s: make([]float64, ne), final: make([]float64, ne), topicS: make([]float64, len(c.topics))}
	ok := make([]bool, ne)
	pos := make([]int, ne)
	var lenSum float64
	for i, e := range c.entries {
		if admitted(e.tr.Time, at) {
			ok[i] = true
			pos[i] = len(sc.adm)
			sc.adm = append(sc.adm, i)
			lenSum += float64(e.length)
		}
	}
	n := len(sc.adm)
	if n == 0 {
		return sc, nil
	}
	avgdl := lenSum / float64(n)
	if avgdl == 0 {
		avgdl = 1
	}
	k1, b := m.cfg.K1, m.cfg.B
	raw := sc.s
	var touched []int
	for qi, t := range qtoks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pl := c.postings[t]
		df := 0
		for _, p := range pl {
			if ok[p.doc] {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := qw[qi] * retrieval.IDF(df, n)
		for _, p := range pl {
			if !ok[p.doc] {
				continue
			}
			tf := float64(p.tf)
			norm := k1 * (1 - b + b*float64(c.entries[p.doc].length)/avgdl)
			if raw[p.doc] == 0 {
				touched = append(touched, int(p.doc))
			}
			raw[p.doc] += idf * tf * (k1 + 1) / (tf + norm)
		}
	}
	var best float64
	for _, d := range touched {
		best = math.Max(best, raw[d])
	}
	if best <= 0 {
		return sc, nil
	}
	// topic strength: mean of the three best member scores
	top3 := make([][3]float64, len(c.topics))
	for _, d := range touched {
		raw[d] /= best
		v, t3 := raw[d], &top3[c.entries[d].topic]
		switch {
		case v > t3[0]:
			t3[0], t3[1], t3[2] = v, t3[0], t3[1]
		case v > t3[1]:
			t3[1], t3[2] = v, t3[1]
		case v > t3[2]:
			t3[2] = v
		}
	}
	for ti, t3 := range top3 {
		sc.topicS[ti] = (t3[0] + t3[1] + t3[2]) / 3
	}
	// neighbours within an episode, in admitted order
	nbr := make([]float64, ne)
	if m.cfg.EpisodeGap > 0 {
		for _, d := range touched {
			v, i := sc.s[d], pos[d]
			for _, j := range []int{i - 1, i + 1} {
				if j < 0 || j >= n {
					continue
				}
				o := sc.adm[j]
				if m.sameEpisode(c.entries[d].tr.Time, c.entries[o].tr.Time) && v > nbr[o] {
					if nbr[o] == 0 && sc.s[o] == 0 {
						touched = append(touched, o)
					}
					nbr[o] = v
				}
			}
		}
	}
	for _, d := range touched {
		sc.final[d] = sc.s[d] + m.cfg.TopicBoost*sc.topicS[c.entries[d].topic]*b2f(sc.s[d] > 0) + m.cfg.NeighborWeight*nbr[d]
		if inSpans(spans, c.entries[d].tr.Time) {
			sc.final[d] += m.cfg.WindowBoost
		}
	}
	sc.cand = touched
	return sc, nil
}

// inSpans reports whether t falls in one of the windows.
func inSpans(spans []Window, t time.Time) bool {
	for _, w := range spans {
		if w.Contains(t) {
			return true
		}
	}
	return false
}

// queryTerms are the lexical terms of a question and their weights: its
// tokens, with function words (stopwords, question words, Chinese bigrams
// holding a question or addressee character) weighted FunctionWeight and
// left out when it is negative, unless the question has nothing else.
func (m *Memory) queryTerms(q string) ([]string, []float64) {
	toks := text.Tokens(q)
	out, ws := make([]string, 0, len(toks)), make([]float64, 0, len(toks))
	for _, t := range toks {
		w := 1.0
		if functionWord(t) {
			w = m.cfg.FunctionWeight
		}
		if w > 0 {
			out, ws = append(out, t), append(ws, w)
		}
	}
	if len(out) == 0 {
		for range toks {
			ws = append(ws, 1)
		}
		return toks, ws
	}
	return out, ws
}

// functionWord reports whether a query token says how the question is
// asked rather than what about: an English stopword or question word
// (qWords; "where's" counts as "where") or a Chinese token holding a
// question or addressee character (你 您 吗 呢 么 哪 谁 什 怎).
func functionWord(t string) bool {
	base := strings.TrimSuffix(t, "'s")
	return text.IsStopword(t) || text.IsStopword(base) || qWords[base] || strings.ContainsAny(t, "你您吗呢么哪谁什怎")
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (m *Memory) sameEpisode(a, b time.Time) bool {
	if a.IsZero() || b.IsZero() {
		return false
	}
	d := a.Sub(b)
	if d < 0 {
		d = -d
	}
	return d <= m.cfg.EpisodeGap
}

// ranked returns the n best candidates by final score descending, then
// time order.
func ranked(sc *scored, n int) []int {
	better := func(x, y int) bool {
		if sc.final[x] != sc.final[y] {
			return sc.final[x] > sc.final[y]
		}
		return x < y
	}
	out := make([]int, 0, n+1)
	for _, d := range sc.cand {
		if len(out) == n && !better(d, out[n-1]) {
			continue
		}
		i := sort.Search(len(out), func(i int) bool { return better(d, out[i]) })
		out = append(out, 0)
		copy(out[i+1:], out[i:])
		out[i] = d
		if len(out) > n {
			out = out[:n]
		}
	}
	return out
}

// Search returns at most k raw-trace hits (Kind chunk) for q among the
// traces of q.CorpusID admitted at q.AskedAt. Point questions get the
// ranking (lexical, topic, episode and time-window scores); trajectory,
// comparison and pattern questions get the timeline of their best topics:
// the best trace of each window the question names (TimeRefs), the
// earliest and latest relevant traces, the best trace of each of Periods
// equal periods up to the question's time, then transition points, then the
// best of the rest spread over time, then the ranking. Use Support for the
// abstention signal.
func (m *Memory) Search(ctx context.Context, q datasets.Question, k int) ([]retrieval.Hit, error) {
	if k < 0 {
		return nil, fmt.Errorf("timeline: search %q: k = %d, want >= 0", q.ID, k)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("timeline: search %q: %w", q.ID, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.corp[q.CorpusID]
	if c == nil || k == 0 {
		return nil, nil
	}
	var refs, spans []Window
	if m.cfg.WindowBoost >= 0 {
		refs = TimeRefs(q.Text, q.AskedAt)
		for _, w := range refs {
			if w.Kind == RefSpan {
				spans = append(spans, w)
			}
		}
	}
	qtoks, qw := m.queryTerms(q.Text)
	sc, err := m.score(ctx, c, qtoks, qw, q.AskedAt, spans)
	if err != nil {
		return nil, fmt.Errorf("timeline: search %q: %w", q.ID, err)
	}
	order := ranked(sc, k)
	var picks []int
	if Shape(q.Task, q.Text) != ShapePoint {
		picks = m.spread(c, sc, order, k, spans, q.AskedAt)
	}
	seen := map[int]bool{}
	for _, d := range picks {
		seen[d] = true
	}
	for _, d := range order {
		if len(picks) >= k {
			break
		}
		if !seen[d] {
			seen[d] = true
			picks = append(picks, d)
		}
	}
	if len(picks) > k {
		picks = picks[:k]
	}
	hits := make([]retrieval.Hit, len(picks), len(picks)+1)
	for i, d := range picks {
		e := c.entries[d]
		hits[i] = retrieval.Hit{UnitID: e.tr.ID, TraceIDs: []string{e.tr.ID}, Score: sc.final[d], Text: e.tr.Text,
			Kind: retrieval.KindChunk, Time: e.tr.Time}
	}
	if !m.cfg.NoStateHit && len(hits) > 0 {
		r, err := m.state(ctx, q, k, order)
		if err != nil {
			return nil, fmt.Errorf("timeline: search %q: %w", q.ID, err)
		}
		hits = append(hits, StateHit(r))
	}
	return hits, nil
}

// StateHit is the hit that hands a reader a StateReport: Kind
// retrieval.KindState, UnitID "state", no trace ids, the summary as its
// text, the abstention score as its score and the decision as
// Undetermined.
func StateHit(r StateReport) retrieval.Hit {
	return retrieval.Hit{UnitID: "state", Kind: retrieval.KindState, Text: r.Summary, Score: r.Score, Undetermined: r.Undetermined}
}

// spread picks up to k traces across the timeline of the question's best
// topics: the relevant members (normalised score >= RelevantFloor) of the
// topics whose strength is at least half the best one's, plus the relevant
// traces among the k best overall.
func (m *Memory) spread(c *corpus, sc *scored, order []int, k int, spans []Window, at time.Time) []int {
	var bestT float64
	for _, v := range sc.topicS {
		bestT = math.Max(bestT, v)
	}
	if bestT == 0 {
		return nil
	}
	in := map[int]bool{}
	var rel []int
	for _, d := range sc.cand {
		if v := sc.s[d]; v >= m.cfg.RelevantFloor && sc.topicS[c.entries[d].topic] >= bestT/2 {
			in[d] = true
			rel = append(rel, d)
		}
	}
	for i := 0; i < len(order) && i < k; i++ {
		if d := order[i]; !in[d] && sc.s[d] >= m.cfg.RelevantFloor {
			in[d] = true
			rel = append(rel, d)
		}
	}
	if len(rel) == 0 {
		return nil
	}
	sort.Ints(rel) // ingest order = time order
	var picks []int
	taken := map[int]bool{}
	take := func(d int) {
		if !taken[d] && len(picks) < k {
			taken[d] = true
			picks = append(picks, d)
		}
	}
	take(order[0])
	// the best trace of each window the question names
	for _, w := range spans {
		best := -1
		for _, d := range sc.cand {
			if sc.s[d] > 0 && w.Contains(c.entries[d].tr.Time) && (best < 0 || sc.final[d] > sc.final[best] || (sc.final[d] == sc.final[best] && d < best)) {
				best = d
			}
		}
		if best >= 0 {
			take(best)
		}
	}
	take(rel[0])
	take(rel[len(rel)-1])
	if m.cfg.Periods > 0 {
		for _, d := range m.periodBest(c, sc, rel, at) {
			take(d)
		}
	}
	// transition points of the topics on the timeline
	for _, d := range rel {
		tp := c.topics[c.entries[d].topic]
		for _, t := range tp.transitions {
			if t.ToTraceID == c.entries[d].tr.ID && t.Kind != TransitionShift {
				take(d)
			}
		}
	}
	// the rest: best score times distance in time (position) to the picks
	for len(picks) < k {
		bestD, bestV := -1, -1.0
		for _, d := range rel {
			if taken[d] {
				continue
			}
			gap := len(c.entries)
			for _, p := range picks {
				gap = min(gap, abs(p-d))
			}
			v := sc.final[d] * (1 + math.Log1p(float64(gap)))
			if v > bestV {
				bestD, bestV = d, v
			}
		}
		if bestD < 0 {
			break
		}
		take(bestD)
	}
	return picks
}

// periodBest splits the time from the earliest dated relevant trace of rel
// to the question's time at (zero: to the latest relevant trace) into
// Periods equal periods and returns the best trace (final score) of each
// period that has one, best first: the topic's span covered by one trace
// per period rather than by the most similar passages. Only admitted
// traces are in rel, so nothing after at shapes the periods.
func (m *Memory) periodBest(c *corpus, sc *scored, rel []int, at time.Time) []int {
	var lo, hi time.Time
	for _, d := range rel {
		t := c.entries[d].tr.Time
		if t.IsZero() {
			continue
		}
		if lo.IsZero() || t.Before(lo) {
			lo = t
		}
		if t.After(hi) {
			hi = t
		}
	}
	if !at.IsZero() {
		hi = at.Add(time.Nanosecond) // the last period holds the question's own time
	}
	if lo.IsZero() || !hi.After(lo) {
		return nil
	}
	p := m.cfg.Periods
	best := make([]int, p)
	for i := range best {
		best[i] = -1
	}
	span := float64(hi.Sub(lo))
	for _, d := range rel {
		t := c.entries[d].tr.Time
		if t.IsZero() {
			continue
		}
		i := min(int(float64(t.Sub(lo))/span*float64(p)), p-1)
		if b := best[i]; b < 0 || sc.final[d] > sc.final[b] {
			best[i] = d
		}
	}
	var out []int
	for _, d := range best {
		if d >= 0 {
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return sc.final[out[i]] > sc.final[out[j]] })
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// SupportReport is Support's answer: whether the admitted traces commit to
// what the question asks about, and on which traces.
type SupportReport struct {
	QuestionID string
	// Shape is the question's time shape (Shape).
	Shape string
	// Supported is false when nothing admitted commits to what the question
	// asks about: a reader should then abstain ("cannot be determined").
	Supported bool
	// Focus are the question's content words, heaviest first.
	Focus []string
	// Evidence are the traces with a sentence covering at least
	// SupportCoverage of the focus weight, best first; Committed are those
	// whose covering sentence states something done, decided or felt, and
	// Tentative those whose covering sentences only plan, search, wonder,
	// ask or negate.
	Evidence, Committed, Tentative []string
	// Reason explains the decision in one sentence.
	Reason string
}

// Support tells whether the traces admitted at q.AskedAt support a
// committed answer to q. The focus is q's content words minus question
// words, weighted by idf over the admitted traces (a word found nowhere
// gets the highest idf). Each sentence of each admitted trace covers the
// summed weight of the focus words it contains; a trace is evidence when
// one of its sentences covers at least SupportCoverage of the total. An
// evidence trace is committed when a covering sentence has no tentative
// cue (maybe, plan, wonder, a question mark, 打算, 犹豫 ...), no negation and
// the trace is not a search history (with an extractor model, the model's
// committed flag must also hold). Supported is true when some evidence is
// committed.
func (m *Memory) Support(ctx context.Context, q datasets.Question) (SupportReport, error) {
	r := SupportReport{QuestionID: q.ID, Shape: Shape(q.Task, q.Text)}
	if err := ctx.Err(); err != nil {
		return r, fmt.Errorf("timeline: support %q: %w", q.ID, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.corp[q.CorpusID]
	var adm []int
	if c != nil {
		for i, e := range c.entries {
			if admitted(e.tr.Time, q.AskedAt) {
				adm = append(adm, i)
			}
		}
	}
	if len(adm) == 0 {
		r.Reason = "no committed evidence: no trace is admitted at the question's time"
		return r, nil
	}
	// focus words and their idf over the admitted traces
	weights := map[string]float64{}
	for _, t := range text.ContentTokens(q.Text) {
		if !qWords[t] {
			weights[t] = 0
		}
	}
	if len(weights) == 0 {
		r.Reason = "no committed evidence: the question has no content word"
		return r, nil
	}
	df := map[string]int{}
	for _, d := range adm {
		for t := range c.entries[d].vec {
			if _, ok := weights[t]; ok {
				df[t]++
			}
		}
	}
	var total float64
	for t := range weights {
		weights[t] = retrieval.IDF(df[t], len(adm))
		total += weights[t]
		r.Focus = append(r.Focus, t)
	}
	sort.Slice(r.Focus, func(i, j int) bool {
		if weights[r.Focus[i]] != weights[r.Focus[j]] {
			return weights[r.Focus[i]] > weights[r.Focus[j]]
		}
		return r.Focus[i] < r.Focus[j]
	})
	type ev struct {
		d         int
		cover     float64
		committed bool
	}
	var evs []ev
	for i, d := range adm {
		if i&255 == 0 {
			if err := ctx.Err(); err != nil {
				return r, fmt.Errorf("timeline: support %q: %w", q.ID, err)
			}
		}
		e := c.entries[d]
		var best float64
		committed := false
		for _, s := range sentences(e.tr.Text) {
			have := map[string]bool{}
			var cov float64
			for _, t := range text.ContentTokens(s) {
				if w, ok := weights[t]; ok && !have[t] {
					have[t] = true
					cov += w
				}
			}
			cov /= total
			if cov < m.cfg.SupportCoverage {
				continue
			}
			best = math.Max(best, cov)
			cu := cues(s)
			if !cu.tentative && !cu.negated && !strings.EqualFold(e.tr.Medium, "search_history") && (m.chat == nil || e.state == "" || e.committed) {
				committed = true
			}
		}
		if best > 0 {
			evs = append(evs, ev{d, best, committed})
		}
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].cover > evs[j].cover })
	for _, x := range evs {
		id := c.entries[x.d].tr.ID
		r.Evidence = append(r.Evidence, id)
		if x.committed {
			r.Committed = append(r.Committed, id)
		} else {
			r.Tentative = append(r.Tentative, id)
		}
	}
	switch {
	case len(r.Committed) > 0:
		r.Supported = true
		r.Reason = fmt.Sprintf("supported: %d trace(s) state it (%s first)", len(r.Committed), r.Committed[0])
	case len(r.Tentative) > 0:
		r.Reason = fmt.Sprintf("no committed evidence: %d trace(s) only plan, search, wonder or deny it (%s first)", len(r.Tentative), r.Tentative[0])
	default:
		r.Reason = "no committed evidence: no admitted sentence covers the question's focus"
	}
	return r, nil
}
