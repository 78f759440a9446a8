package timeline

import (
	"context"
	"fmt"
	"github.com/memlab/memlab/component"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/text"
)

// Config holds every knob of the timeline memory. Zero values select the
// defaults of DefaultConfig; Name records the resolved values.
type Config struct {
	// K1 and B are the BM25 constants of the lexical ranking (1.5, 0.75).
	K1, B float64
	// TopicThreshold is the cosine between a new trace's TF-IDF vector and a
	// topic centroid above which the trace joins the topic (0.1); below it
	// the trace starts a new topic.
	TopicThreshold float64
	// TopicBoost weighs the strength of a trace's topic for the question in
	// its score (0.3).
	TopicBoost float64
	// NeighborWeight weighs the best normalised score of the trace's episode
	// neighbours (the traces just before and after it, when at most
	// EpisodeGap apart) in its score (0.35).
	NeighborWeight float64
	// EpisodeGap is the largest time between two consecutive traces of one
	// episode (1h). Traces of unknown time have no neighbours.
	EpisodeGap time.Duration
	// ShiftThreshold is the cosine between consecutive traces of a topic
	// below which a lexical shift is recorded (0.05).
	ShiftThreshold float64
	// RelevantFloor is the normalised score a trace needs to be placed on a
	// question's timeline (0.2).
	RelevantFloor float64
	// SupportCoverage is the share of the question's focus weight a sentence
	// must cover to count as evidence in Support (0.35).
	SupportCoverage float64
	// FunctionWeight weighs the question's function words (stopwords,
	// question words such as how, now, usually, Chinese bigrams holding a
	// question character such as 怎么) in its BM25 terms, against 1 for the
	// others (0.5); negative leaves them out.
	FunctionWeight float64
	// WindowBoost is added to the score of a trace dated inside a window the
	// question names (TimeRefs: "last summer", "August 15, 1969", 去年 ...);
	// time-shaped questions also get the best trace of each window on their
	// timeline (0.5). Negative: time references are not read.
	WindowBoost float64
	// Periods is the number of equal periods into which the time from a
	// time-shaped question's earliest relevant trace to its asked-at time
	// is split; the best trace of each period is taken after the best
	// trace overall, those of the windows it names and its earliest and
	// latest relevant traces, before the rest of its timeline (4, chosen on the dev half of the sample: see
	// docs/retrieval.md). Negative: off (the timeline before issue 24's
	// second round).
	Periods int
	// AbstainThreshold is the abstention score (StateReport.Score) at and
	// above which a question is undetermined at its time (0.6, fitted by
	// Youden's J on the odd-numbered questions of the bundled sample: see
	// docs/retrieval.md and notebooks/timeline_state.go).
	AbstainThreshold float64
	// AbstainPrior is the pseudo-count of open and of stated mentions added
	// to the subject's mentions in the abstention score (0.5, set a priori:
	// Jeffreys' prior).
	AbstainPrior float64
	// AbstainAnchors is the number of the question's most specific words
	// (highest idf over the admitted traces) that name its subject (1).
	AbstainAnchors int
	// AbstainMissing is the weight, as open mentions, of the question
	// having a content word that no admitted trace holds (1; negative: 0).
	AbstainMissing float64
	// AbstainWhenWords lets words of time and time shape (seasons, months,
	// year, past, lately, changed, compared, usually; 去年, 最近, 变化, 一般 ...)
	// name the question's subject or count as missing (false: they are
	// skipped, as they say when or how the question asks, not what about;
	// true: the behaviour before issue 24's second round).
	AbstainWhenWords bool
	// NegationScope is the number of tokens around a subject word within
	// which a negation makes a mention of the subject declined (5, NegEx's
	// window); a negation further away leaves the mention stated or
	// decided. Negative: any negation in the sentence declines it (the
	// behaviour before issue 24's second round).
	NegationScope int
	// StateChanges is the most mentions and topic changes the state summary
	// shows (6).
	StateChanges int
	// NoStateHit leaves the state summary hit out of Search's results
	// (false: Search ends with one hit of Kind retrieval.KindState).
	NoStateHit bool
	// ExtractorModel overrides the extractor role's model ("" = the role's).
	ExtractorModel string
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{K1: 1.5, B: 0.75, TopicThreshold: 0.1, TopicBoost: 0.3, NeighborWeight: 0.35, EpisodeGap: time.Hour,
		ShiftThreshold: 0.05, RelevantFloor: 0.2, SupportCoverage: 0.35, FunctionWeight: 0.5, WindowBoost: 0.5,
		Periods: 4, NegationScope: 5, AbstainThreshold: DefaultAbstainThreshold, AbstainPrior: 0.5, AbstainAnchors: 1, AbstainMissing: 1, StateChanges: 6}
}

// DefaultAbstainThreshold is the default AbstainThreshold: the threshold
// of the abstention score that maximises Youden's J on the odd-numbered
// questions of the bundled sample (TestAbstainThresholdDefault refits it).
const DefaultAbstainThreshold = 0.5

func (c Config) resolve() (Config, error) {
	d := DefaultConfig()
	set := func(v *float64, def float64) {
		if *v == 0 {
			*v = def
		}
	}
	set(&c.K1, d.K1)
	set(&c.B, d.B)
	set(&c.TopicThreshold, d.TopicThreshold)
	set(&c.TopicBoost, d.TopicBoost)
	set(&c.NeighborWeight, d.NeighborWeight)
	set(&c.ShiftThreshold, d.ShiftThreshold)
	set(&c.RelevantFloor, d.RelevantFloor)
	set(&c.SupportCoverage, d.SupportCoverage)
	set(&c.AbstainThreshold, d.AbstainThreshold)
	set(&c.AbstainPrior, d.AbstainPrior)
	if c.AbstainAnchors == 0 {
		c.AbstainAnchors = d.AbstainAnchors
	}
	if c.StateChanges == 0 {
		c.StateChanges = d.StateChanges
	}
	switch {
	case c.NegationScope == 0:
		c.NegationScope = d.NegationScope
	case c.NegationScope < 0:
		c.NegationScope = -1 // the whole sentence
	case c.NegationScope > 1000:
		return c, fmt.Errorf("timeline: config: NegationScope = %d, want 1 to 1000 (negative: the whole sentence)", c.NegationScope)
	}
	switch {
	case c.Periods == 0:
		c.Periods = d.Periods
	case c.Periods < 0:
		c.Periods = -1 // off
	case c.Periods > 1000:
		return c, fmt.Errorf("timeline: config: Periods = %d, want 1 to 1000 (negative: off)", c.Periods)
	}
	switch {
	case c.AbstainMissing == 0:
		c.AbstainMissing = d.AbstainMissing
	case c.AbstainMissing < 0:
		c.AbstainMissing = -1 // missing words do not count
	}
	if c.AbstainAnchors < 0 || c.AbstainAnchors > 20 {
		return c, fmt.Errorf("timeline: config: AbstainAnchors = %d, want 1 to 20", c.AbstainAnchors)
	}
	if c.StateChanges < 0 || c.StateChanges > 1000 {
		return c, fmt.Errorf("timeline: config: StateChanges = %d, want 1 to 1000", c.StateChanges)
	}
	if c.EpisodeGap == 0 {
		c.EpisodeGap = d.EpisodeGap
	}
	switch {
	case c.FunctionWeight == 0:
		c.FunctionWeight = d.FunctionWeight
	case c.FunctionWeight < 0:
		c.FunctionWeight = -1 // function words left out
	case math.IsNaN(c.FunctionWeight) || c.FunctionWeight > 1:
		return c, fmt.Errorf("timeline: config: FunctionWeight = %v, want a value up to 1 (negative: left out)", c.FunctionWeight)
	}
	switch {
	case c.WindowBoost == 0:
		c.WindowBoost = d.WindowBoost
	case c.WindowBoost < 0:
		c.WindowBoost = -1 // time references off
	case math.IsNaN(c.WindowBoost) || c.WindowBoost > 100:
		return c, fmt.Errorf("timeline: config: WindowBoost = %v, want a value up to 100 (negative: off)", c.WindowBoost)
	}
	for _, f := range []struct {
		name   string
		v, max float64
	}{{"K1", c.K1, 100}, {"B", c.B, 1}, {"TopicThreshold", c.TopicThreshold, 1}, {"TopicBoost", c.TopicBoost, 100},
		{"NeighborWeight", c.NeighborWeight, 100}, {"ShiftThreshold", c.ShiftThreshold, 1}, {"RelevantFloor", c.RelevantFloor, 1},
		{"SupportCoverage", c.SupportCoverage, 1}, {"AbstainThreshold", c.AbstainThreshold, 1}, {"AbstainPrior", c.AbstainPrior, 100},
		{"AbstainMissing", c.AbstainMissing, 100}} {
		if math.IsNaN(f.v) || (f.v < 0 && f.name != "AbstainMissing") || f.v > f.max {
			return c, fmt.Errorf("timeline: config: %s = %v, want a value in [0, %v]", f.name, f.v, f.max)
		}
	}
	if c.EpisodeGap < 0 {
		c.EpisodeGap = -1 // negative: no neighbours
	}
	return c, nil
}

// Transition is one recorded change of a topic's state: between two
// consecutive traces of the topic, From → To.
type Transition struct {
	Kind string // TransitionStance, TransitionCommitment, TransitionShift or TransitionModel
	// FromTraceID and ToTraceID are the consecutive traces of the topic; the
	// change is seen at ToTraceID, at Time.
	FromTraceID, ToTraceID string
	Time                   time.Time
	// From and To describe the state before and after (cue-word stance or
	// the model's stated state).
	From, To string
}

// Topic is one topic's timeline: its traces in time order and its
// transitions.
type Topic struct {
	ID string
	// Label is the topic's heaviest centroid terms.
	Label       string
	TraceIDs    []string
	Times       []time.Time
	Transitions []Transition
}

// Stats counts the extractor's work and failures.
type Stats struct {
	// StateCalls is the number of extractor calls; ParseFailures those whose
	// answer was not the expected JSON (the offline rule was used instead).
	StateCalls, ParseFailures int
	// CallFailures counts calls that failed (the offline rule was used).
	CallFailures int
}

// Memory is memlab's timeline memory (see the package doc). It implements
// retrieval.Memory and is safe for concurrent use.
type Memory struct {
	cfg   Config
	chat  llm.Chatter
	mu    sync.Mutex
	corp  map[string]*corpus
	meter retrieval.Meter
	stats Stats
}

// New returns a timeline memory. chat is the optional extractor: nil works
// offline (cue words and lexical shifts mark transitions); with a model the
// topic state at each trace is asked of it (one call per trace at ingest).
func New(cfg Config, chat llm.Chatter) (*Memory, error) {
	c, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	return &Memory{cfg: c, chat: chat, corp: map[string]*corpus{}}, nil
}

// Config returns the resolved configuration.
func (m *Memory) Config() Config { return m.cfg }

// Spec is the memory's component spec: every setting (resolved) and, with
// an extractor model, that model and the hash of its prompt.
func (m *Memory) Spec() component.Spec {
	s := component.New("timeline").MustFields(m.cfg, "ExtractorModel").With("extractor", ExtractorRules)
	if m.chat != nil {
		s = s.With("extractor", ExtractorModel)
		s = s.With("prompts", retrieval.HashPrompts(statePrompt)).Part("extractor", llm.ModelSpec(m.chat, llm.RoleExtractor, m.cfg.ExtractorModel))
	}
	return s
}

// Name is "timeline" with every knob, and "+model" with an extractor.
func (m *Memory) Name() string {
	c := m.cfg
	s := fmt.Sprintf("timeline(k1=%g,b=%g,topic=%g,boost=%g,nbr=%g,gap=%s,shift=%g,floor=%g,support=%g,fn=%g,window=%g,"+
		"periods=%d,abstain=%g,prior=%g,anchors=%d,missing=%g,when=%s,negscope=%d,changes=%d",
		c.K1, c.B, c.TopicThreshold, c.TopicBoost, c.NeighborWeight, c.EpisodeGap, c.ShiftThreshold, c.RelevantFloor, c.SupportCoverage,
		c.FunctionWeight, c.WindowBoost, c.Periods, c.AbstainThreshold, c.AbstainPrior, c.AbstainAnchors, c.AbstainMissing, map[bool]string{false: "skip", true: "keep"}[c.AbstainWhenWords], c.NegationScope, c.StateChanges)
	if c.NoStateHit {
		s += ",nostate"
	}
	if m.chat != nil {
		s += ",extractor=model"
		if c.ExtractorModel != "" {
			s += ":" + c.ExtractorModel
		}
	}
	return s + ")"
}

// Meter returns the model use so far.
func (m *Memory) Meter() retrieval.Meter {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.meter
}

// Stats returns the extractor counters.
func (m *Memory) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}

// candidateWords is the number of heaviest words of a new trace whose
// topics are candidates for it.
const candidateWords = 8

type posting struct {
	doc int32
	tf  int32
}

type entry struct {
	tr     datasets.Trace
	length int
	vec    map[string]float64 // L2-normalised TF-IDF of content words at ingest
	topic  int
	cue    cueProfile
	state  string // the model's stated state ("" offline)
	// committed is the model's commitment flag (offline: from cue words).
	committed bool
	// changed is the model's "changed" flag ("" state offline).
	changed bool
	// sents are the trace's sentences with their status, status the
	// trace's (traceStatus, or the model's).
	sents  []sentState
	status string
}

type topic struct {
	members     []int
	centroid    map[string]float64
	norm2       float64
	transitions []Transition
	// lastStance is the member with the latest non-neutral stance (-1: none).
	lastStance int
	// states are the topic's dated state changes (recordState).
	states []StateChange
}

type corpus struct {
	entries    []entry
	postings   map[string][]posting
	df         map[string]int // content-word document frequency
	topics     []*topic
	termTopics map[string][]int32
	// stemDocs maps a content-word stem to the entries holding it, in
	// ingest order; prefix5 maps the first 5 bytes of each stem of 5 bytes
	// or more to those stems (for stemMatch).
	stemDocs map[string][]int
	prefix5  map[string][]string
}

// Ingest adds traces (in time order) to corpusID's memory: indexes them,
// assigns each to a topic and records transitions.
func (m *Memory) Ingest(ctx context.Context, corpusID string, traces []datasets.Trace) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.corp[corpusID]
	if c == nil {
		c = &corpus{postings: map[string][]posting{}, df: map[string]int{}, termTopics: map[string][]int32{},
			stemDocs: map[string][]int{}, prefix5: map[string][]string{}}
		m.corp[corpusID] = c
	}
	for i, tr := range traces {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("timeline: ingest %s trace %d (%s): %w", corpusID, i, tr.ID, err)
		}
		if err := m.add(ctx, c, tr); err != nil {
			return fmt.Errorf("timeline: ingest %s trace %d (%s): %w", corpusID, i, tr.ID, err)
		}
	}
	return nil
}

func (m *Memory) add(ctx context.Context, c *corpus, tr datasets.Trace) error {
	doc := len(c.entries)
	toks := text.Tokens(tr.Text)
	tf := map[string]int32{}
	for _, t := range toks {
		tf[t]++
	}
	for t, n := range tf {
		c.postings[t] = append(c.postings[t], posting{doc: int32(doc), tf: n})
	}
	ctf := map[string]int{}
	for _, t := range text.ContentTokens(tr.Text) {
		ctf[t]++
	}
	for t := range ctf {
		c.df[t]++
	}
	n := doc + 1
	vec := map[string]float64{}
	var norm float64
	for t, f := range ctf {
		w := (1 + math.Log(float64(f))) * retrieval.IDF(c.df[t], n)
		vec[t] = w
		norm += w * w
	}
	if norm > 0 {
		norm = math.Sqrt(norm)
		for t := range vec {
			vec[t] /= norm
		}
	}
	e := entry{tr: tr, length: len(toks), vec: vec, cue: cues(tr.Text)}
	e.committed = e.cue.commit && !e.cue.tentative
	seenStem := map[string]bool{}
	for _, st := range sentences(tr.Text) {
		ss := sentState{text: st, stems: stems(st), status: sentenceStatus(st, tr.Medium)}
		e.sents = append(e.sents, ss)
		for _, v := range ss.stems {
			if seenStem[v] {
				continue
			}
			seenStem[v] = true
			if _, ok := c.stemDocs[v]; !ok && len(v) >= 5 {
				c.prefix5[v[:5]] = append(c.prefix5[v[:5]], v)
			}
			c.stemDocs[v] = append(c.stemDocs[v], doc)
		}
	}
	e.status = traceStatus(e.sents, tr.Medium)
	e.topic = c.assign(vec, m.cfg.TopicThreshold)
	c.entries = append(c.entries, e)
	tp := c.topics[e.topic]
	tp.members = append(tp.members, doc)
	defer recordState(c, tp, doc)
	if len(tp.members) < 2 && m.chat == nil {
		if e.cue.stance() != 0 {
			tp.lastStance = doc
		}
		return nil
	}
	prev := -1
	if len(tp.members) >= 2 {
		prev = tp.members[len(tp.members)-2]
	}
	if m.chat != nil {
		if ok, err := m.modelState(ctx, c, tp, prev, doc); err != nil {
			return err
		} else if ok {
			if e.cue.stance() != 0 {
				tp.lastStance = doc
			}
			return nil
		}
	}
	if prev >= 0 {
		if t, ok := offlineTransition(c.entries, tp.lastStance, prev, doc, m.cfg.ShiftThreshold); ok {
			tp.transitions = append(tp.transitions, t)
		}
	}
	if e.cue.stance() != 0 {
		tp.lastStance = doc
	}
	return nil
}

// assign puts vec in the most similar topic (cosine to the centroid at least
// threshold) or a new one, updates the centroid and returns the topic.
func (c *corpus) assign(vec map[string]float64, threshold float64) int {
	n := len(c.entries) + 1
	// candidate topics: those sharing one of the heaviest words of vec
	// (very common words would make every topic a candidate: skipped)
	type tw struct {
		t string
		w float64
	}
	var heavy []tw
	for t, w := range vec {
		// a word seen only now has no topic; a very common word makes
		// every topic a candidate
		if c.df[t] < 2 || (n >= 20 && float64(c.df[t]) > 0.1*float64(n)) {
			continue
		}
		heavy = append(heavy, tw{t, w})
	}
	sort.Slice(heavy, func(i, j int) bool {
		if heavy[i].w != heavy[j].w {
			return heavy[i].w > heavy[j].w
		}
		return heavy[i].t < heavy[j].t
	})
	if len(heavy) > candidateWords {
		heavy = heavy[:candidateWords]
	}
	cand := map[int32]bool{}
	for _, h := range heavy {
		for _, ti := range c.termTopics[h.t] {
			cand[ti] = true
		}
	}
	best, bestCos := -1, 0.0
	for ti := range cand {
		tp := c.topics[ti]
		if tp.norm2 <= 0 {
			continue
		}
		var d float64
		for t, w := range vec {
			d += w * tp.centroid[t]
		}
		cos := d / math.Sqrt(tp.norm2)
		if cos > bestCos || (cos == bestCos && int(ti) < best) {
			best, bestCos = int(ti), cos
		}
	}
	if best < 0 || bestCos < threshold {
		best = len(c.topics)
		c.topics = append(c.topics, &topic{centroid: map[string]float64{}, lastStance: -1})
	}
	tp := c.topics[best]
	var dot, vn float64
	for t, w := range vec {
		dot += w * tp.centroid[t]
		vn += w * w
		if _, ok := tp.centroid[t]; !ok {
			c.termTopics[t] = append(c.termTopics[t], int32(best))
		}
		tp.centroid[t] += w
	}
	tp.norm2 += 2*dot + vn
	return best
}

func stanceName(s int) string {
	switch {
	case s > 0:
		return "positive"
	case s < 0:
		return "negative"
	}
	return "neutral"
}

func cosine(a, b map[string]float64) float64 {
	if len(a) > len(b) {
		a, b = b, a
	}
	var d float64
	for t, w := range a {
		d += w * b[t]
	}
	return d
}

// offlineTransition is the offline rule at a topic's new member doc: a
// stance flip against the topic's latest non-neutral member (lastStance),
// else a new commitment against the previous member prev, else a lexical
// shift from prev.
func offlineTransition(es []entry, lastStance, prev, doc int, shift float64) (Transition, bool) {
	p, e := es[prev], es[doc]
	t := Transition{FromTraceID: p.tr.ID, ToTraceID: e.tr.ID, Time: e.tr.Time}
	if lastStance >= 0 {
		ls, ns := es[lastStance].cue.stance(), e.cue.stance()
		if ns != 0 && ns != ls {
			t.FromTraceID, t.Kind, t.From, t.To = es[lastStance].tr.ID, TransitionStance, stanceName(ls), stanceName(ns)
			return t, true
		}
	}
	switch {
	case e.committed && !p.committed:
		t.Kind, t.From, t.To = TransitionCommitment, "no commitment", "commitment"
	case len(p.vec) > 0 && len(e.vec) > 0 && cosine(p.vec, e.vec) < shift:
		t.Kind, t.From, t.To = TransitionShift, "", ""
	default:
		return t, false
	}
	return t, true
}

// label returns the n heaviest centroid terms (ties by term), joined by
// spaces.
func (tp *topic) label(n int) string {
	type tw struct {
		t string
		w float64
	}
	better := func(a, b tw) bool { return a.w > b.w || a.w == b.w && a.t < b.t }
	top := make([]tw, 0, n+1)
	for t, w := range tp.centroid {
		x := tw{t, w}
		if len(top) == n && !better(x, top[n-1]) {
			continue
		}
		i := sort.Search(len(top), func(i int) bool { return better(x, top[i]) })
		top = append(top, tw{})
		copy(top[i+1:], top[i:])
		top[i] = x
		if len(top) > n {
			top = top[:n]
		}
	}
	out := make([]string, len(top))
	for i, x := range top {
		out[i] = x.t
	}
	return strings.Join(out, " ")
}

// Topics returns corpusID's topics as seen at time at (zero: everything):
// only admitted traces, and transitions between admitted traces; topics
// with no admitted trace are left out. Topic ids are "t<number>".
func (m *Memory) Topics(corpusID string, at time.Time) []Topic {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.corp[corpusID]
	if c == nil {
		return nil
	}
	var out []Topic
	for ti, tp := range c.topics {
		t := Topic{ID: fmt.Sprintf("t%d", ti), Label: tp.label(5)}
		ok := map[string]bool{}
		for _, d := range tp.members {
			e := c.entries[d]
			if admitted(e.tr.Time, at) {
				t.TraceIDs = append(t.TraceIDs, e.tr.ID)
				t.Times = append(t.Times, e.tr.Time)
				ok[e.tr.ID] = true
			}
		}
		if len(t.TraceIDs) == 0 {
			continue
		}
		for _, tr := range tp.transitions {
			if ok[tr.FromTraceID] && ok[tr.ToTraceID] {
				t.Transitions = append(t.Transitions, tr)
			}
		}
		out = append(out, t)
	}
	return out
}

func admitted(t, at time.Time) bool { return at.IsZero() || t.IsZero() || !t.After(at) }
