package timeline

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/text"
)

// State statuses: what a trace says about a topic or a question's subject.
const (
	// StatusDecided: something done, decided or signed (a commitment cue
	// without a tentative or negating one; with the extractor model, its
	// committed flag).
	StatusDecided = "decided"
	// StatusStated: a plain statement, with no commitment, plan or negation.
	StatusStated = "stated"
	// StatusExplored: only planned, searched for, enquired about, wondered
	// or asked (tentative cues, a question mark, a search history).
	StatusExplored = "explored"
	// StatusDeclined: negated: not done, not entered, not needed.
	StatusDeclined = "declined"
	// StatusUnknown: the subject is mentioned by no admitted trace.
	StatusUnknown = "unknown"
)

// Extractors of the state, as Spec and StateReport name them.
const (
	ExtractorRules = "rules" // offline: cue words and statistics
	ExtractorModel = "model" // the extractor role's model, one call per trace
)

// StateChange is one dated change of a topic's state: from this trace on,
// the topic's status or stance is the one given, until the next change.
type StateChange struct {
	Time time.Time
	// TraceIDs are the traces that support the change (the first is the
	// trace where it is seen).
	TraceIDs []string
	// Status is StatusDecided, StatusStated, StatusExplored or
	// StatusDeclined; Stance is "positive", "negative" or "neutral" (the
	// opinion cue words).
	Status, Stance string
	// Text is the sentence that shows it (offline), or the state the
	// extractor model stated, clipped.
	Text string
}

// TopicState is one topic's dated sequence of state changes, as seen at a
// time.
type TopicState struct {
	Topic, Label string
	Changes      []StateChange
}

// sentState is one sentence of a trace with its status, kept at ingest.
type sentState struct {
	text   string
	stems  []string
	status string
}

// Cue words of a sentence's status (lowercased tokens; Chinese as
// substrings). They are narrower than the transition cues: modal verbs do
// not make a statement tentative.
var (
	exploreEN = words("maybe perhaps might considering consider thinking wondering wonder plan plans planning hoping enquiry enquired enquiring inquiry whether tempted someday yet")
	declineEN = words("haven't hadn't didn't never not no nope won't wasn't weren't")
	exploreZH = []string{"可能", "打算", "考虑", "犹豫", "也许", "计划", "搜", "还在", "想不想", "要不要"}
	declineZH = []string{"没", "不会", "还没", "不用"}
)

// sentenceStatus is the offline rule for one sentence of a trace of the
// given medium.
func sentenceStatus(s, medium string) string {
	if strings.EqualFold(medium, "search_history") {
		return StatusExplored
	}
	explored, declined := strings.ContainsAny(s, "?？") || countZH(s, exploreZH) > 0, countZH(s, declineZH) > 0
	for _, t := range text.Tokens(s) {
		switch {
		case exploreEN[t]:
			explored = true
		case declineEN[t] || strings.HasSuffix(t, "n't"):
			declined = true
		}
	}
	switch {
	case explored:
		return StatusExplored
	case declined:
		return StatusDeclined
	case cues(s).commit:
		return StatusDecided
	}
	return StatusStated
}

// undetermined reports whether a status leaves the subject open.
func undetermined(status string) bool { return status == StatusExplored || status == StatusDeclined }

// stems are the Porter stems of the content tokens of s (Chinese bigrams
// unchanged).
func stems(s string) []string {
	toks := text.ContentTokens(s)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = text.PorterStem(t)
	}
	return out
}

// stemMatch reports whether two stems name the same word: equal, or one a
// prefix of the other when both have at least 5 bytes ("cardiolog" and
// "cardiologist").
func stemMatch(a, b string) bool {
	if a == b {
		return true
	}
	return len(a) >= 5 && len(b) >= 5 && (strings.HasPrefix(a, b) || strings.HasPrefix(b, a))
}

// traceStatus is a trace's status from its sentences: decided when one
// sentence is, else explored, else declined, else stated; a search
// history is explored.
func traceStatus(ss []sentState, medium string) string {
	if strings.EqualFold(medium, "search_history") {
		return StatusExplored
	}
	has := map[string]bool{}
	for _, s := range ss {
		has[s.status] = true
	}
	for _, st := range []string{StatusDecided, StatusExplored, StatusDeclined} {
		if has[st] {
			return st
		}
	}
	return StatusStated
}

// firstWith returns the first sentence of ss with the status, else the first.
func firstWith(ss []sentState, status string) string {
	for _, s := range ss {
		if s.status == status {
			return s.text
		}
	}
	if len(ss) > 0 {
		return ss[0].text
	}
	return ""
}

// clip shortens s to at most n runes on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// recordState appends the topic's state change at entry doc when its
// status or stance differs from the topic's latest change.
func recordState(c *corpus, tp *topic, doc int) {
	e := &c.entries[doc]
	ch := StateChange{Time: e.tr.Time, TraceIDs: []string{e.tr.ID}, Status: e.status, Stance: stanceName(e.cue.stance())}
	if e.state != "" {
		ch.Text = clip(e.state, 160)
	} else {
		ch.Text = clip(firstWith(e.sents, e.status), 160)
	}
	if n := len(tp.states); n > 0 {
		last := &tp.states[n-1]
		if last.Status == ch.Status && last.Stance == ch.Stance && !(e.state != "" && e.changed) {
			last.TraceIDs = append(last.TraceIDs, e.tr.ID)
			return
		}
	}
	tp.states = append(tp.states, ch)
}

// admittedChange returns ch with only the supporting traces admitted at
// at, and false when its first trace is not admitted.
func admittedChange(ch StateChange, times map[string]time.Time, at time.Time) (StateChange, bool) {
	if !admitted(ch.Time, at) {
		return StateChange{}, false
	}
	out := ch
	out.TraceIDs = nil
	for _, id := range ch.TraceIDs {
		if admitted(times[id], at) {
			out.TraceIDs = append(out.TraceIDs, id)
		}
	}
	return out, true
}

// States returns every topic's dated state changes as seen at time at
// (zero: everything): only changes first seen in an admitted trace, each
// with its admitted supporting traces; topics with none are left out.
func (m *Memory) States(corpusID string, at time.Time) []TopicState {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.corp[corpusID]
	if c == nil {
		return nil
	}
	var out []TopicState
	for ti := range c.topics {
		if ts := c.topicState(ti, at); len(ts.Changes) > 0 {
			out = append(out, ts)
		}
	}
	return out
}

func (c *corpus) topicState(ti int, at time.Time) TopicState {
	tp := c.topics[ti]
	ts := TopicState{Topic: fmt.Sprintf("t%d", ti)}
	times := make(map[string]time.Time, len(tp.members))
	all := true
	for _, d := range tp.members {
		e := c.entries[d]
		times[e.tr.ID] = e.tr.Time
		all = all && admitted(e.tr.Time, at)
	}
	// the label of the admitted members only: a later member's words
	// must not name the topic (when every member is admitted, the
	// centroid is their sum, added in the same order)
	if all {
		ts.Label = tp.label(5)
	} else {
		cent := map[string]float64{}
		for _, d := range tp.members {
			if e := c.entries[d]; admitted(e.tr.Time, at) {
				for w, v := range e.vec {
					cent[w] += v
				}
			}
		}
		ts.Label = (&topic{centroid: cent}).label(5)
	}
	for _, ch := range tp.states {
		if a, ok := admittedChange(ch, times, at); ok {
			ts.Changes = append(ts.Changes, a)
		}
	}
	return ts
}

// StateAt returns the state of topic topicID ("t<number>", as Topics and
// States name it) at time at: its latest change dated at or before at
// (changes of unknown time count as before). It reports false for an
// unknown corpus or topic, or a topic with no admitted change.
func (m *Memory) StateAt(corpusID, topicID string, at time.Time) (StateChange, bool) {
	ts, ok := m.topic(corpusID, topicID, at)
	if !ok || len(ts.Changes) == 0 {
		return StateChange{}, false
	}
	return ts.Changes[len(ts.Changes)-1], true
}

// Changes returns how topic topicID changed between from and to: its
// changes dated after from and at or before to, as seen at to (so nothing
// dated after to shapes them), and the state it started from (its latest
// change at or before from; false when it had none).
func (m *Memory) Changes(corpusID, topicID string, from, to time.Time) (start StateChange, had bool, changes []StateChange) {
	ts, ok := m.topic(corpusID, topicID, to)
	if !ok {
		return StateChange{}, false, nil
	}
	for _, ch := range ts.Changes {
		if !from.IsZero() && !ch.Time.IsZero() && !ch.Time.After(from) || ch.Time.IsZero() {
			start, had = ch, true
			continue
		}
		changes = append(changes, ch)
	}
	return start, had, changes
}

func (m *Memory) topic(corpusID, topicID string, at time.Time) (TopicState, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.corp[corpusID]
	var ti int
	if c == nil {
		return TopicState{}, false
	}
	if _, err := fmt.Sscanf(topicID, "t%d", &ti); err != nil || ti < 0 || ti >= len(c.topics) {
		return TopicState{}, false
	}
	return c.topicState(ti, at), true
}

// Mention is one admitted sentence that mentions a question's subject.
type Mention struct {
	Time    time.Time
	TraceID string
	Status  string
	Text    string
}

// StateReport is State's answer for one question: the dated state of what
// the question asks about, as the traces admitted at its time show it, the
// abstention score and decision, and the compact summary handed to readers.
type StateReport struct {
	QuestionID string
	AskedAt    time.Time
	// Extractor is ExtractorRules or ExtractorModel.
	Extractor string
	// Subject are the question's anchor words (stemmed): its most specific
	// words found in the admitted traces (highest idf over them).
	Subject []string
	// Missing are the question's content words that no admitted trace
	// holds (Chinese bigrams left out: one found nowhere mostly spans two
	// words).
	Missing []string
	// Mentions are the admitted sentences that mention the subject, in time
	// order, each with its status.
	Mentions []Mention
	// Status is the subject's state at the question's time: StatusDecided
	// or StatusStated when some mention states it, else StatusExplored or
	// StatusDeclined (its latest mention's), else StatusUnknown.
	Status string
	// Decided is true when some admitted mention is StatusDecided.
	Decided bool
	// Topics are the dated state changes of the topics of the question's
	// best traces (at most three topics, latest changes last).
	Topics []TopicState
	// Score is the abstention score in (0, 1): the share of the subject's
	// mentions that leave it open (explored or declined), with the
	// question's missing words counted as open mentions of weight
	// AbstainMissing and a prior of AbstainPrior open and AbstainPrior
	// stated mentions. Threshold is the memory's AbstainThreshold, and
	// Undetermined is Score >= Threshold: a reader should then answer
	// "cannot be determined".
	Score, Threshold float64
	Undetermined     bool
	// Reason says why, in one sentence; Summary is the compact dated state
	// summary given to readers (StateText).
	Reason, Summary string
}

// State reads the question's subject and its state at q.AskedAt from the
// admitted traces only (see StateReport), with the topics of its best k
// traces (k <= 0: 10). It never calls a model.
func (m *Memory) State(ctx context.Context, q datasets.Question, k int) (StateReport, error) {
	if err := ctx.Err(); err != nil {
		return StateReport{}, fmt.Errorf("timeline: state %q: %w", q.ID, err)
	}
	if k <= 0 {
		k = 10
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state(ctx, q, k, nil)
}

// state is State with the memory locked; order, when not nil, is the
// question's ranking (entries).
func (m *Memory) state(ctx context.Context, q datasets.Question, k int, order []int) (StateReport, error) {
	r := StateReport{QuestionID: q.ID, AskedAt: q.AskedAt, Extractor: ExtractorRules, Threshold: m.cfg.AbstainThreshold, Status: StatusUnknown}
	if m.chat != nil {
		r.Extractor = ExtractorModel
	}
	c := m.corp[q.CorpusID]
	if c == nil {
		r.finish(m.cfg)
		return r, nil
	}
	var adm []int
	for i, e := range c.entries {
		if admitted(e.tr.Time, q.AskedAt) {
			adm = append(adm, i)
		}
	}
	if order == nil {
		qtoks, qw := m.queryTerms(q.Text)
		sc, err := m.score(ctx, c, qtoks, qw, q.AskedAt, nil)
		if err != nil {
			return r, fmt.Errorf("timeline: state %q: %w", q.ID, err)
		}
		order = ranked(sc, k)
	}
	// document frequency of the question's words over the admitted traces
	type fw struct {
		w   string
		df  int
		idf float64
	}
	var focus []fw
	seen := map[string]bool{}
	for _, t := range text.ContentTokens(q.Text) {
		if qWords[t] || functionWord(t) || (!m.cfg.AbstainWhenWords && whenWord(t)) {
			continue
		}
		s := text.PorterStem(t)
		if seen[s] {
			continue
		}
		seen[s] = true
		docs := map[int]bool{}
		for _, v := range c.similar(s) {
			for _, d := range c.stemDocs[v] {
				if admitted(c.entries[d].tr.Time, q.AskedAt) {
					docs[d] = true
				}
			}
		}
		focus = append(focus, fw{s, len(docs), retrieval.IDF(len(docs), len(adm))})
	}
	sort.SliceStable(focus, func(i, j int) bool {
		if focus[i].idf != focus[j].idf {
			return focus[i].idf > focus[j].idf
		}
		return focus[i].w < focus[j].w
	})
	for _, f := range focus {
		switch {
		case f.df == 0 && !cjk(f.w):
			// a Chinese bigram found nowhere is mostly one that spans two
			// words, not a missing subject
			r.Missing = append(r.Missing, f.w)
		case f.df > 0 && len(r.Subject) < m.cfg.AbstainAnchors:
			r.Subject = append(r.Subject, f.w)
		}
	}
	// the subject's mentions
	var open, closed float64
	cand := map[int]bool{}
	for _, a := range r.Subject {
		for _, v := range c.similar(a) {
			for _, d := range c.stemDocs[v] {
				if admitted(c.entries[d].tr.Time, q.AskedAt) {
					cand[d] = true
				}
			}
		}
	}
	for _, d := range adm {
		if !cand[d] {
			continue
		}
		e := c.entries[d]
		for _, s := range e.sents {
			if !mentions(s.stems, r.Subject) {
				continue
			}
			if s.status == StatusDeclined && m.cfg.NegationScope > 0 && !negatedNear(s.text, r.Subject, m.cfg.NegationScope) {
				s.status = unnegatedStatus(s.text) // the negation is about something else
			}
			if e.state != "" && e.committed && !undetermined(s.status) {
				s.status = StatusDecided // the extractor model's committed flag
			}
			r.Mentions = append(r.Mentions, Mention{Time: e.tr.Time, TraceID: e.tr.ID, Status: s.status, Text: clip(s.text, 160)})
			if undetermined(s.status) {
				open++
			} else {
				closed++
			}
			if s.status == StatusDecided {
				r.Decided = true
			}
		}
	}
	if len(r.Missing) > 0 && m.cfg.AbstainMissing > 0 {
		open += m.cfg.AbstainMissing
	}
	switch {
	case closed > 0 && r.Decided:
		r.Status = StatusDecided
	case closed > 0:
		r.Status = StatusStated
	case len(r.Mentions) > 0:
		r.Status = r.Mentions[len(r.Mentions)-1].Status
	}
	p := m.cfg.AbstainPrior
	r.Score = (open + p) / (open + closed + 2*p)
	// the topics of the best traces
	have := map[int]bool{}
	for _, d := range order {
		ti := c.entries[d].topic
		if have[ti] || len(r.Topics) == 3 {
			continue
		}
		have[ti] = true
		if ts := c.topicState(ti, q.AskedAt); len(ts.Changes) > 0 {
			r.Topics = append(r.Topics, ts)
		}
	}
	r.finish(m.cfg)
	return r, nil
}

// cjk reports whether s holds a Han character.
func cjk(s string) bool {
	for _, r := range s {
		if r >= 0x4e00 && r <= 0x9fff {
			return true
		}
	}
	return false
}

// similar returns the stems of the corpus that stemMatch s.
func (c *corpus) similar(s string) []string {
	if len(s) < 5 {
		if _, ok := c.stemDocs[s]; ok {
			return []string{s}
		}
		return nil
	}
	var out []string
	for _, v := range c.prefix5[s[:5]] {
		if stemMatch(v, s) {
			out = append(out, v)
		}
	}
	return out
}

// mentions reports whether a sentence's stems hold one of the subject's.
func mentions(ss, subject []string) bool {
	for _, a := range subject {
		for _, s := range ss {
			if stemMatch(a, s) {
				return true
			}
		}
	}
	return false
}

// finish sets the decision, the reason and the summary.
func (r *StateReport) finish(cfg Config) {
	if r.Score == 0 && len(r.Mentions) == 0 && len(r.Missing) == 0 {
		r.Score = 0.5 // nothing known either way: the prior
	}
	r.Undetermined = r.Score >= r.Threshold
	var open int
	for _, mt := range r.Mentions {
		if undetermined(mt.Status) {
			open++
		}
	}
	subj := strings.Join(r.Subject, " ")
	switch {
	case len(r.Subject) == 0:
		r.Reason = "no word of the question is found in the admitted traces"
	case len(r.Mentions) == 0:
		r.Reason = fmt.Sprintf("nothing admitted mentions %q", subj)
	default:
		r.Reason = fmt.Sprintf("%d of %d admitted mentions of %q only plan, search, ask or deny it", open, len(r.Mentions), subj)
	}
	if len(r.Missing) > 0 && cfg.AbstainMissing > 0 {
		r.Reason += fmt.Sprintf("; no admitted trace holds %q", strings.Join(r.Missing, ", "))
	}
	r.Summary = StateText(*r, cfg.StateChanges)
}

// StateText renders a report as the compact dated summary a reader is
// given: the question's time, the subject's state and its latest mentions
// (at most n, dated, with their status and trace), the latest changes of
// the best traces' topics (at most n in all), and the verdict with the
// score and threshold.
func StateText(r StateReport, n int) string {
	if n <= 0 {
		n = 6
	}
	var b strings.Builder
	when := "unknown time"
	if !r.AskedAt.IsZero() {
		when = r.AskedAt.Format("2006-01-02")
	}
	fmt.Fprintf(&b, "State of things at %s (from memories dated up to then only).\n", when)
	if len(r.Subject) > 0 {
		fmt.Fprintf(&b, "What the question is about (%s): %s", strings.Join(r.Subject, ", "), r.Status)
		if r.Decided {
			b.WriteString(", something was done or decided")
		}
		b.WriteString(".\n")
	}
	ms := r.Mentions
	if len(ms) > n {
		ms = ms[len(ms)-n:]
	}
	for _, mt := range ms {
		fmt.Fprintf(&b, "- %s %s [%s]: %s\n", dateOf(mt.Time), mt.Status, mt.TraceID, mt.Text)
	}
	left := n
	for _, ts := range r.Topics {
		if left <= 0 {
			break
		}
		chs := ts.Changes
		if len(chs) > left {
			chs = chs[len(chs)-left:]
		}
		left -= len(chs)
		fmt.Fprintf(&b, "Topic %q:", ts.Label)
		for i, ch := range chs {
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " %s %s/%s [%s]", dateOf(ch.Time), ch.Status, ch.Stance, ch.TraceIDs[0])
		}
		b.WriteString("\n")
	}
	verdict := "determined"
	if r.Undetermined {
		verdict = "NOT determined at this time"
	}
	fmt.Fprintf(&b, "Verdict: %s (abstention score %.2f, threshold %.2f): %s.", verdict, r.Score, r.Threshold, r.Reason)
	return b.String()
}

func dateOf(t time.Time) string {
	if t.IsZero() {
		return "undated"
	}
	return t.Format("2006-01-02")
}

// timeWordsEN are English words that say when or how often (seasons,
// months, weekdays, units of time, deictic time words), and shapeWordsEN
// those that say the question's time shape (changed, compared, usually):
// neither names what a question is about.
var (
	timeWordsEN = words("spring summer autumn fall winter year years month months week weeks weekend day days today yesterday tomorrow tonight morning mornings evening evenings night nights past last next ago recent recently lately currently nowadays time times moment season " +
		"january february march april may june july august september october november december monday tuesday wednesday thursday friday saturday sunday")
	shapeWordsEN = words("change changed changes changing compare compared comparison compares usually usual often always since evolve evolved differ different difference typically normally")
	// whenZH are Chinese characters or bigrams of time and time shape: a
	// bigram holding one of them says when, not what.
	whenZH = []string{"年", "月", "天", "周末", "星期", "最近", "现在", "以前", "以后", "后来", "当初", "刚开始", "开始", "时候", "变化", "一样", "相比", "比起", "一般", "通常", "平时", "总是", "经常"}
)

// whenWord reports whether a question token says when or in what time
// shape rather than what about.
func whenWord(t string) bool {
	if timeWordsEN[t] || shapeWordsEN[t] {
		return true
	}
	if cjk(t) {
		for _, w := range whenZH {
			if strings.Contains(t, w) || (len([]rune(w)) > 2 && strings.Contains(w, t)) {
				return true
			}
		}
	}
	return false
}

// negationToken reports whether a token is a negation cue of the declined
// status (declineEN, a word ending in n't, a Chinese token holding a
// declineZH cue).
func negationToken(t string) bool {
	return declineEN[t] || strings.HasSuffix(t, "n't") || countZH(t, declineZH) > 0
}

// negatedNear reports whether a negation cue of sentence s lies within
// scope tokens of a word of the subject (the scope of negation is local,
// as in NegEx's five-word window): "so no cardiology referral needed"
// declines the cardiologist, "I cried so hard ... and then I couldn't stop
// laughing" does not decline what was hard.
func negatedNear(s string, subject []string, scope int) bool {
	toks := text.Tokens(s)
	var subj, neg []int
	for i, t := range toks {
		if negationToken(t) {
			neg = append(neg, i)
		}
		if mentions([]string{text.PorterStem(t)}, subject) {
			subj = append(subj, i)
		}
	}
	for _, a := range subj {
		for _, b := range neg {
			if abs(a-b) <= scope {
				return true
			}
		}
	}
	return false
}

// unnegatedStatus is a sentence's status when its negation does not bear
// on the subject: decided with a commitment cue, else stated.
func unnegatedStatus(s string) string {
	if cues(s).commit {
		return StatusDecided
	}
	return StatusStated
}
