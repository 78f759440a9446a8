package construct

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/llm"
)

// KnowMe-Bench's tasks, in the order of the paper, with their levels.
var KnowMeTasks = []KnowMeTask{
	{"Information Extraction", "I", "recall of a precise detail of one moment (a name, a place, an object, a number, a date)"},
	{"Adversarial Abstention", "I", "a question whose premise is false or whose answer the stream never gives: the right answer abstains"},
	{"Temporal Reasoning", "I", "time: the duration between two moments, or which came first, from their timestamps"},
	{"Logical Event Ordering", "II", "rank the key events of an episode along a dimension the question names, each with its reasoning"},
	{"Mnestic Trigger Analysis", "II", "what in the present evoked a memory, and what the memory is (flashbacks and associations)"},
	{"Mind-Body Interaction", "III", "how what the narrator thinks or feels relates to what they do or perceive"},
	{"Expert-Annotated Psychoanalysis", "III", "the narrator's motives, fears and patterns of behaviour, as a psychoanalyst would read them"},
}

// KnowMeTask is one of KnowMe-Bench's seven tasks.
type KnowMeTask struct {
	Name, Level, Description string
}

// KnowMeParams are the KnowMe-Bench pipeline's parameters.
type KnowMeParams struct {
	// Name is the dataset's name: the stream file is input/NAME.json.
	Name string `json:"name"`
	// Narrative is the raw autobiographical text.
	Narrative string `json:"narrative"`
	// Start is the date (YYYY-MM-DD) the narrative's present starts at
	// when its first units state none.
	Start string `json:"start"`
	// WindowChars is the most characters one segmentation call reads
	// (cut at paragraph ends; default 6000).
	WindowChars int `json:"window_chars"`
	// QuestionsPerTask is how many questions each task gets (default 2).
	QuestionsPerTask int `json:"questions_per_task"`
	// Tasks are the task names to ask (default all seven).
	Tasks []string `json:"tasks"`
}

func (p KnowMeParams) withDefaults() KnowMeParams {
	if p.Name == "" {
		p.Name = "narrative"
	}
	if p.Start == "" {
		p.Start = "2000-01-01"
	}
	if p.WindowChars <= 0 {
		p.WindowChars = 6000
	}
	if p.QuestionsPerTask <= 0 {
		p.QuestionsPerTask = 2
	}
	if len(p.Tasks) == 0 {
		for _, t := range KnowMeTasks {
			p.Tasks = append(p.Tasks, t.Name)
		}
	}
	return p
}

// The KnowMe pipeline's step names.
const (
	KnowMeSegment     = "knowme.segment"
	KnowMeANU         = "knowme.anu"
	KnowMeRealign     = "knowme.realign"
	KnowMeInstantiate = "knowme.instantiate"
	KnowMeQuestions   = "knowme.question"
)

// KnowMe epsilons of the verify-and-revise checks (KnowMe-Bench appendix
// A): module B 0.05, module C 0.00, module D 0.03; the questions, whose
// threshold the paper does not state, 0.03.
const (
	EpsilonANU         = 0.05
	EpsilonRealign     = 0.0
	EpsilonInstantiate = 0.03
	EpsilonQuestion    = 0.03
)

// --- step inputs and outputs ---

type segmentIn struct {
	Window    int        `json:"window"`
	First     int        `json:"first"`
	Sentences []Sentence `json:"sentences"`
}

type segmentOut struct {
	Boundaries []int `json:"boundaries"`
}

type anuIn struct {
	Segment int    `json:"segment"`
	Text    string `json:"text"`
}

// ANU is an Atomic Narrative Unit: its id, verbatim temporal anchor,
// location and the five primitives ("" for none).
type ANU struct {
	ID          string `json:"id,omitempty"`
	TAnch       string `json:"t_anch"`
	Location    string `json:"location"`
	Action      string `json:"action"`
	Dialogue    string `json:"dialogue"`
	Environment string `json:"environment"`
	Background  string `json:"background"`
	Mind        string `json:"mind"`
}

func (u ANU) fields() []*string {
	return []*string{&u.Action, &u.Dialogue, &u.Environment, &u.Background, &u.Mind}
}

func (u *ANU) fieldPtrs() []*string {
	return []*string{&u.Action, &u.Dialogue, &u.Environment, &u.Background, &u.Mind}
}

type anuOut struct {
	Units []ANU `json:"units"`
}

type realignIn struct {
	Segment int    `json:"segment"`
	Text    string `json:"text"`
	Units   []ANU  `json:"units"`
}

// Realignment is a unit's temporal operation.
type Realignment struct {
	ID        string `json:"id"`
	Op        string `json:"op"`
	Time      string `json:"time"`
	ShiftDays int    `json:"shift_days"`
	Clock     string `json:"clock"`
	Trigger   string `json:"trigger"`
	Location  string `json:"location"`
}

type realignOut struct {
	Units []Realignment `json:"units"`
}

type instantiateIn struct {
	Segment int   `json:"segment"`
	Entries []ANU `json:"entries"`
}

type instantiateOut struct {
	Entries []ANU `json:"entries"`
}

// StreamEntry is an entry of the released stream.
type StreamEntry struct {
	ID          int    `json:"id"`
	Timestamp   string `json:"timestamp"`
	Location    string `json:"location"`
	Action      string `json:"action,omitempty"`
	Dialogue    string `json:"dialogue,omitempty"`
	Environment string `json:"environment,omitempty"`
	Background  string `json:"background,omitempty"`
	Mind        string `json:"mind,omitempty"`
}

type questionIn struct {
	Task         string        `json:"task"`
	Number       int           `json:"number"`
	Level        string        `json:"level"`
	Description  string        `json:"task_description"`
	Instructions string        `json:"instructions"`
	Entries      []StreamEntry `json:"entries"`
}

type questionOut struct {
	Question  string          `json:"question"`
	Answer    json.RawMessage `json:"answer"`
	Evidence  []int           `json:"evidence"`
	Type      string          `json:"type"`
	Strategy  string          `json:"strategy"`
	Reasoning string          `json:"reasoning"`
}

// --- the pipeline ---

// KnowMePipeline returns the KnowMe-Bench construction pipeline: (A)
// extractive segmentation by sentence index, (B) Atomic Narrative Units,
// (C) flashback-aware realignment, (D) first-person instantiation, and the
// questions of the seven tasks; B, C, D and the questions each with a
// verify-and-revise check. role names the model of every generating step
// ("" = backbone); the checks use the judge role.
func KnowMePipeline() *Pipeline {
	seg := &Step{Name: KnowMeSegment, Stage: "A", Title: "segments (sentence indices)", Version: 1, Role: llm.RoleExtractor,
		Prompt: knowMeSegmentPrompt, Revise: &knowMeSegmentRevise, MaxTokens: 512,
		Check: &Check{Code: checkSegment}, Stub: stubSegment}
	anu := &Step{Name: KnowMeANU, Stage: "B", Title: "atomic narrative units", Version: 1, Role: llm.RoleExtractor, After: []string{KnowMeSegment},
		Prompt: knowMeANUPrompt, Revise: &knowMeANURevise, MaxTokens: 4096,
		Check: &Check{Code: checkANU, Prompt: &knowMeANUCheck, Epsilon: EpsilonANU,
			Source: func(in any) any { return in.(anuIn).Text }}, Stub: stubANU}
	re := &Step{Name: KnowMeRealign, Stage: "C", Title: "temporal realignment", Version: 1, Role: llm.RoleExtractor, After: []string{KnowMeANU},
		Prompt: knowMeRealignPrompt, Revise: &knowMeRealignRevise, MaxTokens: 2048,
		Check: &Check{Code: checkRealign, Prompt: &knowMeRealignCheck, Epsilon: EpsilonRealign}, Stub: stubRealign}
	inst := &Step{Name: KnowMeInstantiate, Stage: "D", Title: "first-person records", Version: 1, Role: llm.RoleExtractor, After: []string{KnowMeRealign},
		Prompt: knowMeInstantiatePrompt, Revise: &knowMeInstantiateRevise, MaxTokens: 4096,
		Check: &Check{Code: checkInstantiate, Prompt: &knowMeInstantiateCheck, Epsilon: EpsilonInstantiate}, Stub: stubInstantiate}
	q := &Step{Name: KnowMeQuestions, Stage: "Q", Title: "questions", Version: 1, Role: llm.RoleBackbone, After: []string{KnowMeInstantiate},
		Prompt: knowMeQuestionPrompt, Revise: &knowMeQuestionRevise, MaxTokens: 1024, Temperature: 0,
		Check: &Check{Code: checkQuestion, Prompt: &knowMeQuestionCheck, Epsilon: EpsilonQuestion}, Stub: stubQuestion}
	return &Pipeline{Name: "knowme", Version: 1, Steps: []*Step{seg, anu, re, inst, q}}
}

// KnowMeResult is what a KnowMe build made.
type KnowMeResult struct {
	Build   *Build
	Stream  []StreamEntry
	Tasks   map[string][]KnowMeQuestion
	Dropped []Dropped
	// Provenance says which item made each stream entry and question.
	Provenance []Provenance
	mu         sync.Mutex
}

// KnowMeQuestion is one generated question with its reference answer.
type KnowMeQuestion struct {
	ID        int
	Task      string
	Question  string
	Answer    json.RawMessage
	Evidence  []int
	Type      string
	Strategy  string
	Reasoning string
}

// Dropped is an item left out of the benchmark: rejected by its check
// after its revisions, or removed by a filter; flagged for review.
type Dropped struct {
	Step, Item, Reason string
	Revisions          int
}

// Provenance says which item made an element of the output.
type Provenance struct {
	File    string   `json:"file"`
	ID      string   `json:"id"`
	Step    string   `json:"step"`
	Item    string   `json:"item"`
	Key     string   `json:"key"`
	Prompt  string   `json:"prompt"`
	Model   string   `json:"model"`
	Sources []string `json:"from,omitempty"`
}

// segment is one segment of the narrative with what the steps made of it.
type segment struct {
	n       int
	text    string
	ref     Ref
	units   []ANU
	uref    Ref
	realign []Realignment
	rref    Ref
	entries []ANU // after the split, before instantiation
	inst    []ANU
	iref    Ref
	dropped bool
}

// BuildKnowMe runs the KnowMe-Bench pipeline over params.Narrative. A
// failed call fails the build (after every other item that could be made
// was made and stored); running it again resumes.
func BuildKnowMe(ctx context.Context, params KnowMeParams, opts Options) (*KnowMeResult, error) {
	params = params.withDefaults()
	if strings.TrimSpace(params.Narrative) == "" {
		return nil, errors.New("construct: knowme: the narrative is empty")
	}
	start, err := time.Parse("2006-01-02", params.Start)
	if err != nil {
		return nil, fmt.Errorf("construct: knowme: start %q: want YYYY-MM-DD: %w", params.Start, err)
	}
	for _, t := range params.Tasks {
		if knowMeTask(t) == nil {
			return nil, fmt.Errorf("construct: knowme: unknown task %q", t)
		}
	}
	p := KnowMePipeline()
	b, err := Start(ctx, p, params, opts)
	if err != nil {
		return nil, err
	}
	res := &KnowMeResult{Build: b, Tasks: map[string][]KnowMeQuestion{}}
	err = knowMeRun(ctx, b, p, params, start, res)
	return res, b.Finish(err)
}

func knowMeRun(ctx context.Context, b *Build, p *Pipeline, params KnowMeParams, start time.Time, res *KnowMeResult) error {
	text := params.Narrative
	sents := Sentences(text)
	if len(sents) == 0 {
		return errors.New("construct: knowme: the narrative has no sentence")
	}
	// (A) Windows of whole paragraphs, one segmentation call each.
	windows := windowsOf(sents, params.WindowChars)
	segs := make([][]*segment, len(windows))
	var segErrs error
	segErrs = Each(len(windows), func(w int) error {
		ws := windows[w]
		var out segmentOut
		in := segmentIn{Window: w, First: ws[0].N, Sentences: ws}
		ref, err := b.Do(ctx, p.Step(KnowMeSegment), fmt.Sprintf("window %d", w), in, &out)
		if err != nil {
			return err
		}
		bounds := out.Boundaries
		if !ref.Accepted() {
			// Rejected boundaries: the window's paragraphs are its segments.
			res.drop(KnowMeSegment, ref, "boundaries rejected; the window is cut at its paragraphs instead")
			bounds = nil
			for _, s := range ws {
				if s.ParagraphStart {
					bounds = append(bounds, s.N)
				}
			}
		}
		bounds = normalizeBounds(bounds, ws)
		for i, bn := range bounds {
			end := ws[len(ws)-1].End
			if i+1 < len(bounds) {
				end = sents[bounds[i+1]].Start
			}
			segs[w] = append(segs[w], &segment{text: strings.TrimSpace(text[sents[bn].Start:end]), ref: ref})
		}
		return nil
	})
	var all []*segment
	for _, ss := range segs {
		all = append(all, ss...)
	}
	for i, s := range all {
		s.n = i
	}
	// (B), (C), (D) per segment, each as soon as the one before is done.
	perSeg := Each(len(all), func(i int) error { return knowMeSegmentSteps(ctx, b, p, all[i], res) })
	if err := errors.Join(segErrs, perSeg); err != nil {
		return err
	}
	// The stack machine over every segment, in narrative order.
	var refs []Ref
	for _, s := range all {
		if !s.dropped {
			refs = append(refs, s.iref)
		}
	}
	joined := b.Join(KnowMeInstantiate, refs...)
	var metas []entryMeta
	res.Stream, metas, res.Provenance = assembleStream(all, start, params.Name, b)
	if len(res.Stream) == 0 {
		return errors.New("construct: knowme: every segment was rejected: no stream")
	}
	// Questions.
	type job struct {
		task KnowMeTask
		k    int
		in   questionIn
	}
	var jobs []job
	for _, name := range params.Tasks {
		t := *knowMeTask(name)
		for k := range params.QuestionsPerTask {
			entries, instr := selectEntries(res.Stream, metas, t, k, b.Seed())
			if len(entries) == 0 {
				res.drop(KnowMeQuestions, Ref{Item: fmt.Sprintf("%s %d", t.Name, k+1)}, "the stream has no entries this task can ask about")
				continue
			}
			jobs = append(jobs, job{t, k, questionIn{Task: t.Name, Number: k + 1, Level: t.Level, Description: t.Description, Instructions: instr, Entries: entries}})
		}
	}
	outs := make([]questionOut, len(jobs))
	qrefs := make([]Ref, len(jobs))
	err := Each(len(jobs), func(i int) error {
		var err error
		qrefs[i], err = b.Do(ctx, p.Step(KnowMeQuestions), fmt.Sprintf("%s %d", jobs[i].task.Name, jobs[i].k+1), jobs[i].in, &outs[i], joined)
		return err
	})
	if err != nil {
		return err
	}
	for i, j := range jobs {
		if !qrefs[i].Accepted() {
			res.drop(KnowMeQuestions, qrefs[i], "the check rejected the question after its revisions")
			continue
		}
		o := outs[i]
		q := KnowMeQuestion{ID: len(res.Tasks[j.task.Name]) + 1, Task: j.task.Name, Question: o.Question, Answer: o.Answer,
			Evidence: o.Evidence, Type: o.Type, Strategy: o.Strategy, Reasoning: o.Reasoning}
		res.Tasks[j.task.Name] = append(res.Tasks[j.task.Name], q)
		res.Provenance = append(res.Provenance, Provenance{File: "question/" + j.task.Name + "_questions.json", ID: strconv.Itoa(q.ID),
			Step: KnowMeQuestions, Item: qrefs[i].Item, Key: qrefs[i].Key, Prompt: knowMeQuestionPrompt.ID(),
			Model: b.target(llm.RoleBackbone, ""), Sources: evidenceStrings(o.Evidence)})
	}
	return nil
}

func evidenceStrings(ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "stream " + strconv.Itoa(id)
	}
	return out
}

func (res *KnowMeResult) drop(step string, r Ref, why string) {
	res.mu.Lock()
	defer res.mu.Unlock()
	res.Dropped = append(res.Dropped, Dropped{Step: step, Item: r.Item, Reason: why, Revisions: r.Revisions})
}

func knowMeTask(name string) *KnowMeTask {
	for i := range KnowMeTasks {
		if strings.EqualFold(KnowMeTasks[i].Name, name) {
			return &KnowMeTasks[i]
		}
	}
	return nil
}

// knowMeSegmentSteps runs B, C and D on one segment.
func knowMeSegmentSteps(ctx context.Context, b *Build, p *Pipeline, s *segment, res *KnowMeResult) error {
	item := fmt.Sprintf("segment %d", s.n)
	var a anuOut
	ref, err := b.Do(ctx, p.Step(KnowMeANU), item, anuIn{Segment: s.n, Text: s.text}, &a, s.ref)
	if err != nil {
		return err
	}
	s.uref = ref
	if !ref.Accepted() {
		s.dropped = true
		res.drop(KnowMeANU, ref, "the units were rejected after their revisions: the segment is left out of the stream")
		return nil
	}
	s.units = a.Units
	for i := range s.units {
		s.units[i].ID = fmt.Sprintf("s%du%d", s.n, i+1)
	}
	var r realignOut
	ref, err = b.Do(ctx, p.Step(KnowMeRealign), item, realignIn{Segment: s.n, Text: s.text, Units: s.units}, &r, s.uref)
	if err != nil {
		return err
	}
	s.rref = ref
	if !ref.Accepted() {
		s.dropped = true
		res.drop(KnowMeRealign, ref, "the realignment was rejected after its revisions: the segment is left out of the stream")
		return nil
	}
	s.realign = r.Units
	s.entries = splitTriggers(s.units, s.realign)
	var inst instantiateOut
	ref, err = b.Do(ctx, p.Step(KnowMeInstantiate), item, instantiateIn{Segment: s.n, Entries: s.entries}, &inst, s.rref)
	if err != nil {
		return err
	}
	s.iref = ref
	if !ref.Accepted() {
		s.dropped = true
		res.drop(KnowMeInstantiate, ref, "the first-person records were rejected after their revisions: the segment is left out of the stream")
		return nil
	}
	s.inst = inst.Entries
	return nil
}

// windowsOf groups sentences into windows of whole paragraphs of at most
// max characters (a longer paragraph is a window of its own).
func windowsOf(sents []Sentence, maxChars int) [][]Sentence {
	var out [][]Sentence
	var cur []Sentence
	size := 0
	for i, s := range sents {
		if s.ParagraphStart && len(cur) > 0 {
			// the paragraph's size
			psize := 0
			for j := i; j < len(sents) && (j == i || !sents[j].ParagraphStart); j++ {
				psize += len(sents[j].Text) + 1
			}
			if size+psize > maxChars {
				out = append(out, cur)
				cur, size = nil, 0
			}
		}
		cur = append(cur, s)
		size += len(s.Text) + 1
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// normalizeBounds keeps the boundaries inside the window, sorted, unique,
// starting with the window's first sentence.
func normalizeBounds(bounds []int, ws []Sentence) []int {
	first, last := ws[0].N, ws[len(ws)-1].N
	set := map[int]bool{first: true}
	for _, b := range bounds {
		if b >= first && b <= last {
			set[b] = true
		}
	}
	var out []int
	for b := range set {
		out = append(out, b)
	}
	sort.Ints(out)
	return out
}

// splitTriggers splits each PUSH or TRANSIENT unit with a trigger into
// the trigger, which stays in the present, and the rest of the unit (the
// event content, which a PUSH moves to its time). The trigger entry gets
// id UNIT/t.
func splitTriggers(units []ANU, re []Realignment) []ANU {
	byID := map[string]Realignment{}
	for _, r := range re {
		byID[r.ID] = r
	}
	var out []ANU
	present := ""
	for _, u := range units {
		r := byID[u.ID]
		op := strings.ToUpper(r.Op)
		if op == "PUSH" && strings.TrimSpace(r.Trigger) != "" {
			trig := ANU{ID: u.ID + "/t", Location: firstNonEmpty(present, u.Location)}
			ev := u
			for i, f := range ev.fieldPtrs() {
				if j := strings.Index(*f, r.Trigger); j >= 0 {
					*trig.fieldPtrs()[i] = strings.TrimSpace(r.Trigger)
					*f = strings.TrimSpace(strings.Trim(strings.TrimSpace((*f)[:j]+(*f)[j+len(r.Trigger):]), ",;"))
					break
				}
			}
			if r.Location != "" {
				ev.Location = r.Location
			}
			out = append(out, trig)
			if ev.hasContent() {
				out = append(out, ev)
			}
			continue
		}
		if op == "MAINTAIN" || op == "POP" || op == "" {
			present = u.Location
		}
		out = append(out, u)
	}
	return out
}

func (u ANU) hasContent() bool {
	for _, f := range u.fields() {
		if strings.TrimSpace(*f) != "" {
			return true
		}
	}
	return false
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

// layer is a level of the realignment stack: its current time.
type layer struct{ t time.Time }

// resolveTime applies a realignment's time, day shift and clock to cur.
func resolveTime(r Realignment, cur time.Time) (time.Time, bool) {
	t := cur
	changed := false
	if s := strings.TrimSpace(r.Time); s != "" {
		for _, layout := range []string{"2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02", "2006-01", "2006"} {
			if x, err := time.Parse(layout, s); err == nil {
				t, changed = x, true
				if layout == "2006-01-02" || layout == "2006-01" || layout == "2006" {
					t = t.Add(12 * time.Hour)
				}
				break
			}
		}
	} else if r.ShiftDays > 0 {
		t = time.Date(cur.Year(), cur.Month(), cur.Day()+r.ShiftDays, 8, 0, 0, 0, time.UTC)
		changed = true
	}
	if c := strings.TrimSpace(r.Clock); c != "" {
		if x, err := time.Parse("15:04", c); err == nil {
			t = time.Date(t.Year(), t.Month(), t.Day(), x.Hour(), x.Minute(), 0, 0, time.UTC)
			changed = true
		}
	}
	return t, changed
}

// moveOn sets a layer's time from a realignment. A clock time alone
// ("in the afternoon") that is earlier than the layer's time is already
// past: the narrative does not go back without a date, so the time is
// kept.
func moveOn(l *layer, r Realignment) {
	nt, ok := resolveTime(r, l.t)
	if !ok {
		return
	}
	if strings.TrimSpace(r.Time) == "" && r.ShiftDays == 0 && nt.Before(l.t) {
		return
	}
	l.t = nt
}

// entryMeta is what the stack machine knows of a stream entry: the unit
// it comes from and whether it is a mnemonic trigger (kept in the
// present), recalled content (moved to its time) or neither.
type entryMeta struct {
	unit string
	kind string // "trigger", "recalled", ""
}

// assembleStream runs the stack machine over the segments' realignments
// (MAINTAIN extends the current layer, PUSH opens a layer at the
// recollection's time, POP returns to the parent, TRANSIENT changes
// nothing), gives every entry its time (a minute after the entry before
// it in its layer when the text gives none), orders the entries by time
// (entries of one time keep their narrative order) and numbers them.
func assembleStream(all []*segment, start time.Time, name string, b *Build) ([]StreamEntry, []entryMeta, []Provenance) {
	type timed struct {
		t    time.Time
		u    ANU
		seg  *segment
		meta entryMeta
	}
	stack := []layer{{t: start.Add(12 * time.Hour)}}
	var out []timed
	for _, s := range all {
		if s.dropped {
			continue
		}
		byID := map[string]Realignment{}
		for _, r := range s.realign {
			byID[r.ID] = r
		}
		inst := map[string]ANU{}
		for _, e := range s.inst {
			inst[e.ID] = e
		}
		for _, e := range s.entries {
			unit, isTrigger := strings.CutSuffix(e.ID, "/t")
			r := byID[unit]
			op := strings.ToUpper(strings.TrimSpace(r.Op))
			meta := entryMeta{unit: unit}
			top := &stack[len(stack)-1]
			switch {
			case isTrigger: // the trigger stays in the present; the PUSH follows it
				meta.kind = "trigger"
			case op == "PUSH":
				nt, ok := resolveTime(r, top.t)
				if !ok {
					nt = top.t
				}
				stack = append(stack, layer{t: nt})
				meta.kind = "recalled"
			case op == "POP":
				if len(stack) > 1 {
					stack = stack[:len(stack)-1]
				}
				moveOn(&stack[len(stack)-1], r)
			case op == "TRANSIENT":
			default: // MAINTAIN
				moveOn(top, r)
			}
			if len(stack) > 1 && meta.kind == "" {
				meta.kind = "recalled"
			}
			top = &stack[len(stack)-1]
			t := top.t
			top.t = t.Add(time.Minute)
			x := e
			if ie, ok := inst[e.ID]; ok {
				x = ie
				x.Location = e.Location
			}
			out = append(out, timed{t: t, u: x, seg: s, meta: meta})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].t.Before(out[j].t) })
	stream := make([]StreamEntry, len(out))
	metas := make([]entryMeta, len(out))
	prov := make([]Provenance, len(out))
	for i, x := range out {
		stream[i] = StreamEntry{ID: i, Timestamp: x.t.Format("2006-01-02 15:04:05"), Location: x.u.Location,
			Action: x.u.Action, Dialogue: x.u.Dialogue, Environment: x.u.Environment, Background: x.u.Background, Mind: x.u.Mind}
		metas[i] = x.meta
		id := x.meta.unit
		if x.meta.kind == "trigger" {
			id += "/t"
		}
		prov[i] = Provenance{File: "input/" + name + ".json", ID: strconv.Itoa(i), Step: KnowMeInstantiate, Item: fmt.Sprintf("segment %d, unit %s", x.seg.n, id),
			Key: x.seg.iref.Key, Prompt: knowMeInstantiatePrompt.ID(), Model: b.target(llm.RoleExtractor, ""),
			Sources: []string{x.seg.uref.Key, x.seg.rref.Key}}
	}
	return stream, metas, prov
}

// selectEntries picks the entries a question of task t (the k-th) is
// written from, and the task's instructions, with a generator seeded by
// the build's seed, the task and k.
func selectEntries(stream []StreamEntry, metas []entryMeta, t KnowMeTask, k, seed int) ([]StreamEntry, string) {
	rng := rand.New(rand.NewPCG(uint64(seed), hashSeed(t.Name, k)))
	pick := func(ok func(e StreamEntry) bool) []int {
		var idx []int
		for i, e := range stream {
			if ok(e) {
				idx = append(idx, i)
			}
		}
		return idx
	}
	window := func(center, before, after int) []StreamEntry {
		lo, hi := max(0, center-before), min(len(stream), center+after+1)
		return append([]StreamEntry(nil), stream[lo:hi]...)
	}
	choose := func(idx []int) int {
		if len(idx) == 0 {
			return -1
		}
		return idx[rng.IntN(len(idx))]
	}
	switch t.Name {
	case "Information Extraction":
		i := choose(pick(func(e StreamEntry) bool { return e.Action != "" || e.Dialogue != "" || e.Environment != "" }))
		if i < 0 {
			return nil, ""
		}
		return window(i, 0, 0), "Ask for one precise detail stated in the entry (a name, a place, an object, a number or a date); the answer is that detail, in a few words. Evidence: the entry's id."
	case "Adversarial Abstention":
		i := choose(pick(func(e StreamEntry) bool { return true }))
		strategy := []string{"Non-existent", "False Premise"}[rng.IntN(2)]
		return window(i, 1, 1), "Strategy " + strategy + ": ask about a detail the entries never give (Non-existent) or build the question on a premise that contradicts them (False Premise), so that a careful companion must abstain. The answer is \"The text does not mention / the information is insufficient / I don't know.\"; set \"strategy\" to \"" + strategy + "\"; evidence: the entries the question is about."
	case "Temporal Reasoning":
		idx := pick(func(e StreamEntry) bool { return true })
		if len(idx) < 2 {
			return nil, ""
		}
		i := idx[rng.IntN(len(idx)-1)]
		j := min(len(stream)-1, i+1+rng.IntN(3))
		typ := []string{"duration calculation", "chronological_ordering"}[rng.IntN(2)]
		return []StreamEntry{stream[i], stream[j]}, "Type " + typ + ": ask how much time passed between the two moments, or which came first, as the timestamps say; set \"type\" to \"" + typ + "\"; the reasoning shows the computation. Evidence: both ids."
	case "Logical Event Ordering":
		if len(stream) < 3 {
			return nil, ""
		}
		i := rng.IntN(len(stream) - 2)
		return window(i, 0, min(3, len(stream)-1-i)), "Ask to rank three or four key moments of this episode along a dimension the question names (e.g. escalation of tension, growing resolve). The answer is the list of events in rank order, each with its reasoning. Evidence: the ids of the moments."
	case "Mnestic Trigger Analysis":
		// A trigger with the content it recalled; else an entry with background.
		var triggers []int
		for i, m := range metas {
			if m.kind == "trigger" {
				triggers = append(triggers, i)
			}
		}
		typ := "Associative_Trigger"
		var es []StreamEntry
		if i := choose(triggers); i >= 0 {
			typ = "Chronological_Displacement"
			es = append(es, stream[i])
			for j, m := range metas {
				if m.unit == metas[i].unit && m.kind == "recalled" {
					es = append(es, stream[j])
				}
			}
		} else if i := choose(pick(func(e StreamEntry) bool { return e.Background != "" })); i >= 0 {
			es = window(i, 1, 1)
		} else {
			return nil, ""
		}
		return es, "Type " + typ + ": ask what in the present evoked a memory and what the memory is (the narrative present and the remembered past, and the anchor linking them); set \"type\" to \"" + typ + "\". Evidence: the ids of the trigger and of the remembered content."
	case "Mind-Body Interaction":
		i := choose(pick(func(e StreamEntry) bool { return e.Mind != "" && (e.Action != "" || e.Environment != "") }))
		if i < 0 {
			i = choose(pick(func(e StreamEntry) bool { return e.Mind != "" }))
		}
		if i < 0 {
			return nil, ""
		}
		return window(i, 1, 0), "Type Thinking_Action_Interaction: ask how the narrator's thought or feeling relates to what they do or perceive in this moment; set \"type\" to \"Thinking_Action_Interaction\". Evidence: the ids."
	case "Expert-Annotated Psychoanalysis":
		idx := pick(func(e StreamEntry) bool { return e.Mind != "" })
		if len(idx) == 0 {
			return nil, ""
		}
		from := rng.IntN(max(1, len(idx)-5))
		var es []StreamEntry
		for _, i := range idx[from:min(len(idx), from+6)] {
			es = append(es, stream[i])
		}
		return es, "Ask about the narrator's motives, fears or recurring pattern of behaviour that these moments show together; the answer is a short interpretation grounded in them. Evidence: the ids it rests on."
	}
	return nil, ""
}

func hashSeed(s string, k int) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range []byte(s) {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h ^ uint64(k)*0x9e3779b97f4a7c15
}
