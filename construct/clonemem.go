package construct

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
)

// CloneMem's question types, dimensions and media.
var (
	CloneMemTypes = []CloneMemType{
		{"single_point_factual", "a fact the person established at one point in time"},
		{"comparison", "how two points of the person's trajectory differ (then and later)"},
		{"trajectory", "how something in the person's life evolved across the segment"},
		{"pattern", "a behaviour or reaction that recurs across several points"},
		{"causal", "why something happened or changed, the cause being in the evidence"},
		{"counterfactual", "what would likely have happened had something been otherwise, grounded in the trajectory"},
		{"inferential", "something never stated outright that several pieces of evidence imply together"},
		{"unanswerable", "something the traces never state the outcome of, or never mention: the answer is that it cannot be determined"},
	}
	CloneMemDimensions = []string{"experience", "emotion", "opinion"}
	CloneMemMedia      = []string{"diary", "chat_private", "chat_group", "memo", "email", "social_media", "search_history"}
)

// CloneMemType is a question type with what it asks.
type CloneMemType struct{ Name, Description string }

// CannotBeDetermined is the text of option E of every question.
const CannotBeDetermined = "Cannot be determined based on available information"

// mediaFormats say each medium's release format (what the sample and the
// release show: markdown content).
var mediaFormats = map[string]string{
	"diary":          "a first-person diary entry, one to three paragraphs of prose",
	"chat_private":   "a private chat between the person and one relation: one message per line, each line \"**Name:** message\"",
	"chat_group":     "a group chat: a first line \"*Group name*\", an empty line, then one message per line, each \"**Name:** message\", with several members",
	"memo":           "a short note to self or a list, items as lines \"- item\"",
	"email":          "an email: lines \"Subject: ...\", \"From: ...\", \"To: ...\", an empty line, then the body",
	"social_media":   "a short public post in the person's voice, possibly ending with hashtags",
	"search_history": "three to six search queries, one per line, each line \"- query\", nothing else",
}

// mediaWeights is how often each medium is chosen for a trace (diaries and
// chats most, as in a phone's life).
var mediaWeights = map[string]int{"diary": 5, "chat_private": 4, "chat_group": 2, "memo": 2, "email": 2, "social_media": 2, "search_history": 3}

// predefinedSeeds is the curated pool of life-event concepts the seed step
// filters (the paper keeps its own in a local configuration).
var predefinedSeeds = []string{
	"graduation", "career transition", "new job", "promotion", "layoff", "marriage", "breakup", "new relationship",
	"moving house", "moving city", "birth of a child", "death of a relative", "illness", "recovery from injury",
	"taking up a hobby", "quitting a habit", "financial setback", "buying a home", "travel abroad", "reconnecting with a friend",
	"conflict with a family member", "adopting a pet", "starting further study", "volunteering", "burnout",
}

// BigFive is a Big Five personality configuration, each trait in [0, 1].
type BigFive struct {
	Openness          float64 `json:"openness"`
	Conscientiousness float64 `json:"conscientiousness"`
	Extraversion      float64 `json:"extraversion"`
	Agreeableness     float64 `json:"agreeableness"`
	Neuroticism       float64 `json:"neuroticism"`
}

// CloneMemParams are the CloneMem pipeline's parameters. The defaults
// make a small persona (three months); CloneMemScale gives the paper's
// 100k- and 500k-token settings.
type CloneMemParams struct {
	PersonID string  `json:"person_id"`
	Language string  `json:"language"`
	BigFive  BigFive `json:"big_five"`
	// Start is the first day of the timeline (after 2022), Months its
	// length.
	Start  string `json:"start"`
	Months int    `json:"months"`
	// MajorEvents, PhasesPerEvent, DetailsPerPhase and TracesPerDetail
	// set the hierarchy's sizes; AnchorStates the anchors of each arc.
	MajorEvents     int `json:"major_events"`
	PhasesPerEvent  int `json:"phases_per_event"`
	DetailsPerPhase int `json:"details_per_phase"`
	TracesPerDetail int `json:"traces_per_detail"`
	AnchorStates    int `json:"anchor_states"`
	// WindowDays and StepDays are the sliding window over the timeline;
	// SegmentMax caps a trajectory segment's evidence (the latest kept).
	WindowDays int `json:"window_days"`
	StepDays   int `json:"step_days"`
	SegmentMax int `json:"segment_max"`
	// Types are the question types planned for each active segment
	// (default all eight).
	Types []string `json:"types"`
	// ChoiceRounds is how often the distractors are regenerated when the
	// validator finds the answer given away (default 3).
	ChoiceRounds int `json:"choice_rounds"`
}

// CloneMemScale returns the parameters of a named scale: "small" (the
// defaults: one persona over three months, 3 major events, 24 traces),
// "100k" (12 months, 36 events, 1,080 traces) and "500k" (24 months, 90
// events, 5,400 traces): the paper's two context settings, about 100k and
// 500k tokens of traces when a trace is as long as the dry run's stubs
// (about 93 tokens on average over the media; the bundled sample's
// hand-written traces average 64 words).
func CloneMemScale(name string) (CloneMemParams, error) {
	p := CloneMemParams{}
	switch name {
	case "", "small":
	case "100k":
		p.Months, p.MajorEvents, p.PhasesPerEvent, p.DetailsPerPhase, p.TracesPerDetail = 12, 36, 3, 5, 2
		p.StepDays = 30
	case "500k":
		p.Months, p.MajorEvents, p.PhasesPerEvent, p.DetailsPerPhase, p.TracesPerDetail = 24, 90, 4, 5, 3
		p.StepDays = 30
	default:
		return p, fmt.Errorf("construct: clonemem: unknown scale %q (want small, 100k or 500k)", name)
	}
	return p.withDefaults(), nil
}

func (p CloneMemParams) withDefaults() CloneMemParams {
	if p.PersonID == "" {
		p.PersonID = "p01"
	}
	if p.Language == "" {
		p.Language = "en"
	}
	if p.BigFive == (BigFive{}) {
		p.BigFive = BigFive{Openness: 0.7, Conscientiousness: 0.6, Extraversion: 0.4, Agreeableness: 0.7, Neuroticism: 0.5}
	}
	if p.Start == "" {
		p.Start = "2023-01-01"
	}
	if p.Months <= 0 {
		p.Months = 3
	}
	if p.MajorEvents <= 0 {
		p.MajorEvents = p.Months
	}
	if p.PhasesPerEvent <= 0 {
		p.PhasesPerEvent = 2
	}
	if p.DetailsPerPhase <= 0 {
		p.DetailsPerPhase = 2
	}
	if p.TracesPerDetail <= 0 {
		p.TracesPerDetail = 2
	}
	if p.AnchorStates <= 0 {
		p.AnchorStates = 3
	}
	if p.WindowDays <= 0 {
		p.WindowDays = 30
	}
	if p.StepDays <= 0 {
		p.StepDays = 30
	}
	if p.SegmentMax <= 0 {
		p.SegmentMax = 12
	}
	if len(p.Types) == 0 {
		for _, t := range CloneMemTypes {
			p.Types = append(p.Types, t.Name)
		}
	}
	if p.ChoiceRounds <= 0 {
		p.ChoiceRounds = 3
	}
	return p
}

// The CloneMem pipeline's step names.
const (
	CloneMemPersona     = "clonemem.persona"
	CloneMemRelations   = "clonemem.relations"
	CloneMemSeeds       = "clonemem.seeds"
	CloneMemArc         = "clonemem.arc"
	CloneMemEvents      = "clonemem.events"
	CloneMemPhase       = "clonemem.phase"
	CloneMemDetails     = "clonemem.details"
	CloneMemIntent      = "clonemem.intent"
	CloneMemTrace       = "clonemem.trace"
	CloneMemPlan        = "clonemem.qa_plan"
	CloneMemWrite       = "clonemem.qa_write"
	CloneMemSufficiency = "clonemem.sufficiency"
	CloneMemChoices     = "clonemem.choices"
)

// --- the data the steps make ---

// Profile is the enriched persona.
type Profile struct {
	Name        string   `json:"name"`
	Age         int      `json:"age"`
	Gender      string   `json:"gender"`
	Personality string   `json:"personality"`
	Family      string   `json:"family"`
	Education   string   `json:"education"`
	Occupation  string   `json:"occupation"`
	Concerns    []string `json:"concerns"`
	Interests   []string `json:"interests"`
	Narrative   string   `json:"narrative"`
}

// Relation is a persistent social relation.
type Relation struct {
	Name        string `json:"name"`
	Relation    string `json:"relation"`
	Description string `json:"description"`
}

// Anchor is an anchor state of a life arc.
type Anchor struct {
	State       string   `json:"state"`
	Description string   `json:"description"`
	Cues        []string `json:"cues"`
}

// Arc is a life arc along one dimension.
type Arc struct {
	Dimension string   `json:"dimension,omitempty"`
	Title     string   `json:"title"`
	Anchors   []Anchor `json:"anchors"`
	Triggers  []string `json:"triggers"`
}

// MajorEvent is a major event on the timeline, with the anchor state each
// arc is in then.
type MajorEvent struct {
	Title       string         `json:"title"`
	Date        string         `json:"date"`
	Seed        string         `json:"seed"`
	Description string         `json:"description"`
	ArcStates   map[string]int `json:"arc_states"`
}

// Snapshot is the state carried from phase to phase (the paper's H).
type Snapshot struct {
	Energy  int               `json:"energy"`
	Stress  int               `json:"stress"`
	Emotion string            `json:"emotion"`
	Focus   string            `json:"focus"`
	Arcs    map[string]string `json:"arcs"`
}

// Phase is a meso-level phase.
type Phase struct {
	Title   string `json:"title"`
	Start   string `json:"start"`
	End     string `json:"end"`
	Summary string `json:"summary"`
}

// Evidence is an evidence entry of a detailed event.
type Evidence struct {
	ID        string   `json:"id,omitempty"`
	Kind      string   `json:"kind"`
	Statement string   `json:"statement"`
	Arcs      []string `json:"arcs"`
}

// Detail is a detailed (micro-level) event with its evidence.
type Detail struct {
	ID          string     `json:"id,omitempty"`
	Date        string     `json:"date"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	Evidence    []Evidence `json:"evidence"`
}

// Trace is a generated digital trace: its release fields (the embedded
// datasets.CloneMemTrace, all it marshals to) with the evidence it
// carries and the detailed event it was written for.
type Trace struct {
	datasets.CloneMemTrace
	Evidence []string `json:"-"`
	Detail   string   `json:"-"`
	ref      Ref
}

// --- step inputs and outputs ---

type personaIn struct {
	PersonID string  `json:"person_id"`
	Language string  `json:"language"`
	BigFive  BigFive `json:"big_five"`
	Start    string  `json:"start"`
}

type relationsIn struct {
	Profile  Profile `json:"profile"`
	Language string  `json:"language"`
	Min      int     `json:"min"`
	Max      int     `json:"max"`
}

type relationsOut struct {
	Relations []Relation `json:"relations"`
}

type seedsIn struct {
	Profile    Profile  `json:"profile"`
	Predefined []string `json:"predefined"`
	Min        int      `json:"min"`
	Max        int      `json:"max"`
}

type seedsOut struct {
	Kept  []string `json:"kept"`
	Added []string `json:"added"`
}

type arcIn struct {
	Profile   Profile    `json:"profile"`
	Relations []Relation `json:"relations"`
	Seeds     []string   `json:"seeds"`
	Dimension string     `json:"dimension"`
	Anchors   int        `json:"anchors"`
	Start     string     `json:"start"`
	End       string     `json:"end"`
	Language  string     `json:"language"`
}

type eventsIn struct {
	Profile Profile        `json:"profile"`
	Seeds   []string       `json:"seeds"`
	Arcs    map[string]Arc `json:"arcs"`
	Count   int            `json:"count"`
	Start   string         `json:"start"`
	End     string         `json:"end"`
}

type eventsOut struct {
	Events []MajorEvent `json:"events"`
}

type phaseIn struct {
	Profile  Profile        `json:"profile"`
	Arcs     map[string]Arc `json:"arcs"`
	Event    MajorEvent     `json:"event"`
	K        int            `json:"k"`
	Of       int            `json:"of"`
	From     string         `json:"from"`
	To       string         `json:"to"`
	Snapshot Snapshot       `json:"snapshot"`
	Language string         `json:"language"`
}

type phaseOut struct {
	Phase    Phase    `json:"phase"`
	Snapshot Snapshot `json:"snapshot"`
}

type detailsIn struct {
	Profile   Profile    `json:"profile"`
	Relations []Relation `json:"relations"`
	Phase     Phase      `json:"phase"`
	Snapshot  Snapshot   `json:"snapshot"`
	Count     int        `json:"count"`
	Language  string     `json:"language"`
}

type detailsOut struct {
	Events []Detail `json:"events"`
}

type intentIn struct {
	Person    string     `json:"person"`
	Relations []Relation `json:"relations"`
	Event     Detail     `json:"event"`
	Medium    string     `json:"medium"`
	Format    string     `json:"format"`
	Snapshot  Snapshot   `json:"snapshot"`
}

type intentOut struct {
	Intent         string `json:"intent"`
	Audience       string `json:"audience"`
	KeyInformation []int  `json:"key_information"`
}

type traceIn struct {
	Person    string     `json:"person"`
	Relations []Relation `json:"relations"`
	Event     Detail     `json:"event"`
	Medium    string     `json:"medium"`
	Format    string     `json:"format"`
	Date      string     `json:"date"`
	Plan      intentOut  `json:"plan"`
	Key       []Evidence `json:"key_information"`
	Snapshots []Snapshot `json:"snapshots"`
	Language  string     `json:"language"`
}

type traceOut struct {
	Content string `json:"content"`
}

// SegmentItem is an evidence entry of a trajectory segment.
type SegmentItem struct {
	ID        string `json:"id"`
	Date      string `json:"date"`
	Kind      string `json:"kind"`
	Statement string `json:"statement"`
}

type planIn struct {
	Person          string        `json:"person"`
	Type            string        `json:"type"`
	TypeDescription string        `json:"type_description"`
	Dimension       string        `json:"dimension"`
	QuestionTime    string        `json:"question_time"`
	Segment         []SegmentItem `json:"segment"`
}

type planOut struct {
	Supported bool     `json:"supported"`
	Reason    string   `json:"reason"`
	Evidence  []string `json:"evidence"`
	From      string   `json:"from"`
	To        string   `json:"to"`
	Outline   string   `json:"outline"`
}

type writeIn struct {
	Person       string        `json:"person"`
	Relations    []Relation    `json:"relations"`
	Type         string        `json:"type"`
	Dimension    string        `json:"dimension"`
	QuestionTime string        `json:"question_time"`
	Plan         planOut       `json:"plan"`
	Evidence     []SegmentItem `json:"evidence"`
	Language     string        `json:"language"`
}

// EvidenceStatement is a question's evidence group as the writer gives it.
type EvidenceStatement struct {
	Statement   string   `json:"statement"`
	EvidenceIDs []string `json:"evidence_ids"`
}

type writeOut struct {
	Question string              `json:"question"`
	Answer   string              `json:"answer"`
	Evidence []EvidenceStatement `json:"evidence"`
}

type sufficiencyIn struct {
	Dimension    string              `json:"dimension"`
	Question     string              `json:"question"`
	Answer       string              `json:"answer"`
	Type         string              `json:"type"`
	QuestionTime string              `json:"question_time"`
	Evidence     []EvidenceStatement `json:"evidence"`
	Traces       []Trace             `json:"traces"`
}

type sufficiencyOut struct {
	Sufficient bool   `json:"sufficient"`
	Reason     string `json:"reason"`
}

type choicesIn struct {
	Dimension    string   `json:"dimension"`
	Question     string   `json:"question"`
	Answer       string   `json:"answer"`
	Type         string   `json:"type"`
	QuestionTime string   `json:"question_time"`
	Evidence     []string `json:"evidence"`
	LaterTrue    []string `json:"later_true"`
	Count        int      `json:"count"`
}

// Distractor is a wrong option; LaterTrue marks one that becomes true
// after the question's time.
type Distractor struct {
	Text      string `json:"text"`
	LaterTrue bool   `json:"later_true"`
}

type choicesOut struct {
	Correct     string       `json:"correct"`
	Distractors []Distractor `json:"distractors"`
}

// --- the pipeline ---

// CloneMemPipeline returns the CloneMem construction pipeline (paper
// section 3, appendix A): stage I persona, relations, seed pool, arcs and
// major events; II rolling phases carrying their snapshot; III detailed
// events with their evidence, each trace's intent then content; IV QA
// planning and writing over arc buckets and sliding windows, the
// evidence-sufficiency filter, multiple choice with its validator.
// Generating steps use the backbone role, the sufficiency filter and the
// multiple-choice validator the judge role.
func CloneMemPipeline() *Pipeline {
	bb, jd := llm.RoleBackbone, llm.RoleJudge
	step := func(name, stage, title string, after []string, p, r Prompt, code func(in, out any) []string, stub func(in any) any, maxTokens int, temp float64) *Step {
		s := &Step{Name: name, Stage: stage, Title: title, Version: 1, After: after, Role: bb, Prompt: p, Revise: &r,
			MaxTokens: maxTokens, Temperature: temp, Check: &Check{Code: code}, Stub: stub}
		return s
	}
	persona := step(CloneMemPersona, "I", "persona", nil, cmPersonaPrompt, cmPersonaRevise, checkPersona, stubPersona, 1024, 0.7)
	rel := step(CloneMemRelations, "I", "social relations", []string{CloneMemPersona}, cmRelationsPrompt, cmRelationsRevise, checkRelations, stubRelations, 1024, 0.7)
	seeds := step(CloneMemSeeds, "I", "event-seed pool", []string{CloneMemPersona}, cmSeedsPrompt, cmSeedsRevise, checkSeeds, stubSeeds, 512, 0.7)
	arc := step(CloneMemArc, "I", "life arcs", []string{CloneMemRelations, CloneMemSeeds}, cmArcPrompt, cmArcRevise, checkArc, stubArc, 1536, 0.7)
	events := step(CloneMemEvents, "I", "major events", []string{CloneMemArc}, cmEventsPrompt, cmEventsRevise, checkEvents, stubEvents, 4096, 0.7)
	phase := step(CloneMemPhase, "II", "rolling phases", []string{CloneMemEvents}, cmPhasePrompt, cmPhaseRevise, checkPhase, stubPhase, 1024, 0.7)
	details := step(CloneMemDetails, "III", "detailed events and evidence", []string{CloneMemPhase}, cmDetailsPrompt, cmDetailsRevise, checkDetails, stubDetails, 3072, 0.7)
	intent := step(CloneMemIntent, "III", "trace intent and audience", []string{CloneMemDetails}, cmIntentPrompt, cmIntentRevise, checkIntent, stubIntent, 512, 0.7)
	trace := step(CloneMemTrace, "III", "trace content", []string{CloneMemIntent}, cmTracePrompt, cmTraceRevise, checkTrace, stubTrace, 1536, 0.7)
	plan := step(CloneMemPlan, "IV", "QA planning", []string{CloneMemTrace}, cmPlanPrompt, cmPlanRevise, checkPlan, stubPlan, 768, 0)
	write := step(CloneMemWrite, "IV", "QA writing (format filter)", []string{CloneMemPlan}, cmWritePrompt, cmWriteRevise, checkWrite, stubWrite, 1024, 0)
	suff := &Step{Name: CloneMemSufficiency, Stage: "IV", Title: "evidence-sufficiency filter", Version: 1, After: []string{CloneMemWrite}, Role: jd,
		Prompt: cmSufficiencyPrompt, MaxTokens: 256, Stub: func(any) any {
			return sufficiencyOut{Sufficient: true, Reason: "The cited traces state what the answer says."}
		}}
	choices := step(CloneMemChoices, "IV", "multiple choice (validator loop)", []string{CloneMemSufficiency}, cmChoicesPrompt, cmChoicesRevise, checkChoices, stubChoices, 768, 0.7)
	choices.Check.Prompt, choices.Check.Epsilon = &cmChoicesCheck, 1 // the validator's decision alone
	choices.Check.Source = func(in any) any {
		x := in.(choicesIn)
		return map[string]any{"question": x.Question, "type": x.Type, "answer": x.Answer}
	}
	choices.Check.Stub = func(in, out any) Verdict {
		return Verdict{Decision: "PASS", SourceFacts: 1, OutputFacts: 5, Missing: []string{}, Unsupported: []string{}, Feedback: ""}
	}
	return &Pipeline{Name: "clonemem", Version: 1, Steps: []*Step{persona, rel, seeds, arc, events, phase, details, intent, trace, plan, write, suff, choices}}
}

// CloneMemResult is what a CloneMem build made.
type CloneMemResult struct {
	Build     *Build
	Params    CloneMemParams
	Profile   Profile
	Relations []Relation
	Seeds     []string
	Arcs      map[string]Arc
	Events    []MajorEvent
	Phases    []Phase
	Snapshots []Snapshot
	Details   []Detail
	Traces    []Trace
	Questions []CloneMemQuestion
	// Filtered counts what each filter removed: "format" (QA whose
	// output failed its format check after its revisions), "sufficiency"
	// (evidence does not support the answer), "choices" (the validator
	// found the answer given away after every regeneration), and
	// "unsupported" (plans that found no meaningful question).
	Filtered   map[string]int
	Dropped    []Dropped
	Provenance []Provenance
	mu         sync.Mutex
}

// CloneMemQuestion is a question: its release fields (the embedded
// datasets.CloneMemQuestion, all it marshals to) with the distractors the
// build knows to be true later (shown in the review file).
type CloneMemQuestion struct {
	datasets.CloneMemQuestion
	laterTrue []string
}

const dateLayout = "2006-01-02"
const traceLayout = "2006-01-02T15:04:05"

// BuildCloneMem runs the CloneMem pipeline. A failed call fails the
// build (after every other item that could be made was made and stored);
// running it again resumes.
func BuildCloneMem(ctx context.Context, params CloneMemParams, opts Options) (*CloneMemResult, error) {
	params = params.withDefaults()
	start, err := time.Parse(dateLayout, params.Start)
	if err != nil {
		return nil, fmt.Errorf("construct: clonemem: start %q: want YYYY-MM-DD: %w", params.Start, err)
	}
	if start.Year() < 2023 {
		return nil, fmt.Errorf("construct: clonemem: start %s: the timeline begins after 2022", params.Start)
	}
	for _, t := range params.Types {
		if cloneMemType(t) == nil {
			return nil, fmt.Errorf("construct: clonemem: unknown question type %q", t)
		}
	}
	p := CloneMemPipeline()
	b, err := Start(ctx, p, params, opts)
	if err != nil {
		return nil, err
	}
	res := &CloneMemResult{Build: b, Params: params, Filtered: map[string]int{}}
	err = cloneMemRun(ctx, b, p, params, start, res)
	return res, b.Finish(err)
}

func cloneMemType(name string) *CloneMemType {
	for i := range CloneMemTypes {
		if CloneMemTypes[i].Name == name {
			return &CloneMemTypes[i]
		}
	}
	return nil
}

// errRejected is a stage I or II item whose revisions all failed: the
// timeline cannot go on without it.
func errRejected(r Ref) error {
	return fmt.Errorf("construct: clonemem: %s (%s) was rejected after %d revisions: the timeline cannot go on without it (its feedback is stored; run again with another seed)", r.Step, r.Item, r.Revisions)
}

func cloneMemRun(ctx context.Context, b *Build, p *Pipeline, params CloneMemParams, start time.Time, res *CloneMemResult) error {
	end := start.AddDate(0, params.Months, -1)
	do := func(step, item string, in, out any, deps ...Ref) (Ref, error) {
		r, err := b.Do(ctx, p.Step(step), item, in, out, deps...)
		if err == nil && !r.Accepted() {
			err = errRejected(r)
		}
		return r, err
	}
	// Stage I.
	pref, err := do(CloneMemPersona, "persona", personaIn{params.PersonID, params.Language, params.BigFive, params.Start}, &res.Profile)
	if err != nil {
		return err
	}
	var rel relationsOut
	var seeds seedsOut
	var rref, sref Ref
	if err := Each(2, func(i int) error {
		var err error
		if i == 0 {
			rref, err = do(CloneMemRelations, "relations", relationsIn{res.Profile, params.Language, 3, 6}, &rel, pref)
		} else {
			sref, err = do(CloneMemSeeds, "seeds", seedsIn{res.Profile, predefinedSeeds, 4, 8}, &seeds, pref)
		}
		return err
	}); err != nil {
		return err
	}
	res.Relations = rel.Relations
	res.Seeds = append(append([]string{}, seeds.Kept...), seeds.Added...)
	arcs := make([]Arc, len(CloneMemDimensions))
	arefs := make([]Ref, len(CloneMemDimensions))
	if err := Each(len(CloneMemDimensions), func(i int) error {
		d := CloneMemDimensions[i]
		var err error
		arefs[i], err = do(CloneMemArc, "arc "+d, arcIn{res.Profile, res.Relations, res.Seeds, d, params.AnchorStates,
			params.Start, end.Format(dateLayout), params.Language}, &arcs[i], rref, sref)
		arcs[i].Dimension = d
		return err
	}); err != nil {
		return err
	}
	res.Arcs = map[string]Arc{}
	for i, d := range CloneMemDimensions {
		res.Arcs[d] = arcs[i]
	}
	var ev eventsOut
	eref, err := do(CloneMemEvents, "major events", eventsIn{res.Profile, res.Seeds, res.Arcs, params.MajorEvents, params.Start, end.Format(dateLayout)}, &ev, arefs...)
	if err != nil {
		return err
	}
	res.Events = ev.Events
	sort.SliceStable(res.Events, func(i, j int) bool { return res.Events[i].Date < res.Events[j].Date })

	// Stage II, rolling phases, each detailed (stage III) as soon as it
	// exists while the next phase is generated.
	h := initialSnapshot(params.BigFive, res.Arcs)
	prev := eref
	var wg sync.WaitGroup
	var mu sync.Mutex
	var stageErrs []error
	type phaseResult struct {
		details []Detail
		traces  []Trace
	}
	var results []*phaseResult
	for i, e := range res.Events {
		from, _ := time.Parse(dateLayout, e.Date)
		to := end
		if i+1 < len(res.Events) {
			if t, err := time.Parse(dateLayout, res.Events[i+1].Date); err == nil {
				to = t.AddDate(0, 0, -1)
			}
		}
		if to.Before(from) {
			to = from
		}
		for k := 1; k <= params.PhasesPerEvent; k++ {
			lo, hi := splitSpan(from, to, k, params.PhasesPerEvent)
			var ph phaseOut
			in := phaseIn{res.Profile, res.Arcs, e, k, params.PhasesPerEvent, lo.Format(dateLayout), hi.Format(dateLayout), h, params.Language}
			r, err := do(CloneMemPhase, fmt.Sprintf("event %d phase %d", i+1, k), in, &ph, prev)
			if err != nil {
				wg.Wait()
				return errors.Join(append(stageErrs, err)...)
			}
			prev = r
			before := h
			h = ph.Snapshot // carried into the next phase: never reset
			res.Phases = append(res.Phases, ph.Phase)
			res.Snapshots = append(res.Snapshots, h)
			pr := &phaseResult{}
			results = append(results, pr)
			n := len(res.Phases)
			wg.Add(1)
			go func() {
				defer wg.Done()
				ds, ts, err := cloneMemPhaseTraces(ctx, b, p, params, res, n, ph.Phase, []Snapshot{before, ph.Snapshot}, r)
				mu.Lock()
				defer mu.Unlock()
				pr.details, pr.traces = ds, ts
				if err != nil {
					stageErrs = append(stageErrs, err)
				}
			}()
		}
	}
	wg.Wait()
	if err := errors.Join(stageErrs...); err != nil {
		return err
	}
	var traceRefs []Ref
	for _, pr := range results {
		res.Details = append(res.Details, pr.details...)
		for _, t := range pr.traces {
			traceRefs = append(traceRefs, t.ref)
		}
		res.Traces = append(res.Traces, pr.traces...)
	}
	sort.SliceStable(res.Traces, func(i, j int) bool { return res.Traces[i].EventDate < res.Traces[j].EventDate })
	for _, t := range res.Traces {
		res.Provenance = append(res.Provenance, Provenance{File: res.FileName(), ID: t.ID, Step: CloneMemTrace, Item: t.ref.Item, Key: t.ref.Key,
			Prompt: cmTracePrompt.ID(), Model: b.target(llm.RoleBackbone, ""), Sources: t.Evidence})
	}
	if len(res.Traces) == 0 {
		return errors.New("construct: clonemem: no trace was made")
	}
	// Stage IV needs the whole timeline (later-true distractors come from
	// after each question's time).
	all := b.Join(CloneMemTrace, traceRefs...)
	return cloneMemQA(ctx, b, p, params, start, end, res, all)
}

// initialSnapshot is the state before the first phase, from the traits.
func initialSnapshot(t BigFive, arcs map[string]Arc) Snapshot {
	h := Snapshot{Energy: 4 + int(t.Extraversion*4+0.5), Stress: 2 + int(t.Neuroticism*5+0.5), Emotion: "steady", Focus: "daily routine", Arcs: map[string]string{}}
	if t.Neuroticism > 0.6 {
		h.Emotion = "uneasy"
	}
	for d, a := range arcs {
		if len(a.Anchors) > 0 {
			h.Arcs[d] = a.Anchors[0].State
		}
	}
	return h
}

// splitSpan returns the k-th of n equal parts of [from, to] (days).
func splitSpan(from, to time.Time, k, n int) (time.Time, time.Time) {
	days := int(to.Sub(from).Hours()/24) + 1
	lo := from.AddDate(0, 0, (k-1)*days/n)
	hi := from.AddDate(0, 0, k*days/n-1)
	if hi.Before(lo) {
		hi = lo
	}
	return lo, hi
}

// cloneMemPhaseTraces expands phase n (from 1) into detailed events and
// writes their traces, each in two steps.
func cloneMemPhaseTraces(ctx context.Context, b *Build, p *Pipeline, params CloneMemParams, res *CloneMemResult, n int, ph Phase, snaps []Snapshot, pref Ref) ([]Detail, []Trace, error) {
	var out detailsOut
	dref, err := b.Do(ctx, p.Step(CloneMemDetails), fmt.Sprintf("phase %d", n), detailsIn{res.Profile, res.Relations, ph, snaps[0], params.DetailsPerPhase, params.Language}, &out, pref)
	if err != nil {
		return nil, nil, err
	}
	if !dref.Accepted() {
		return nil, nil, errRejected(dref)
	}
	details := out.Events
	for i := range details {
		details[i].ID = fmt.Sprintf("d%d.%d", n, i+1)
		for k := range details[i].Evidence {
			details[i].Evidence[k].ID = fmt.Sprintf("e%d.%d.%d", n, i+1, k+1)
		}
	}
	type job struct {
		d      Detail
		medium string
	}
	var jobs []job
	for _, d := range details {
		for _, m := range pickMedia(b.Seed(), d.ID, params.TracesPerDetail) {
			jobs = append(jobs, job{d, m})
		}
	}
	traces := make([]Trace, len(jobs))
	ok := make([]bool, len(jobs))
	err = Each(len(jobs), func(i int) error {
		j := jobs[i]
		item := j.d.ID + " " + j.medium
		var plan intentOut
		iref, err := b.Do(ctx, p.Step(CloneMemIntent), item, intentIn{res.Profile.Name, res.Relations, j.d, j.medium, mediaFormats[j.medium], snaps[1]}, &plan, dref)
		if err != nil {
			return err
		}
		if !iref.Accepted() {
			return errRejected(iref)
		}
		var key []Evidence
		for _, k := range plan.KeyInformation {
			key = append(key, j.d.Evidence[k])
		}
		date := traceTime(b.Seed(), j.d.Date, j.medium)
		var t traceOut
		tref, err := b.Do(ctx, p.Step(CloneMemTrace), item, traceIn{res.Profile.Name, res.Relations, j.d, j.medium, mediaFormats[j.medium],
			date, plan, key, snaps, params.Language}, &t, iref)
		if err != nil {
			return err
		}
		if !tref.Accepted() {
			res.addDropped(Dropped{Step: CloneMemTrace, Item: item, Reason: "the trace's format check failed after its revisions: left out", Revisions: tref.Revisions})
			return nil
		}
		var ev []string
		for _, e := range key {
			ev = append(ev, e.ID)
		}
		traces[i] = Trace{CloneMemTrace: datasets.CloneMemTrace{ID: traceUUID(b.Seed(), params.PersonID, item), Medium: j.medium, EventDate: date,
			Content: strings.TrimSpace(t.Content)}, Evidence: ev, Detail: j.d.ID, ref: tref}
		ok[i] = true
		return nil
	})
	var kept []Trace
	for i, t := range traces {
		if ok[i] {
			kept = append(kept, t)
		}
	}
	return details, kept, err
}

func (r *CloneMemResult) addDropped(d Dropped) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Dropped = append(r.Dropped, d)
}

// pickMedia draws n distinct media for a detailed event, weighted.
func pickMedia(seed int, detail string, n int) []string {
	rng := rand.New(rand.NewPCG(uint64(seed), hashSeed("media "+detail, 0)))
	var out []string
	for len(out) < min(n, len(CloneMemMedia)) {
		total := 0
		for _, m := range CloneMemMedia {
			if !slices.Contains(out, m) {
				total += mediaWeights[m]
			}
		}
		x := rng.IntN(total)
		for _, m := range CloneMemMedia {
			if slices.Contains(out, m) {
				continue
			}
			if x < mediaWeights[m] {
				out = append(out, m)
				break
			}
			x -= mediaWeights[m]
		}
	}
	return out
}

// mediaHours is the hours of the day a medium's traces are written in.
var mediaHours = map[string][2]int{"diary": {21, 23}, "chat_private": {8, 22}, "chat_group": {9, 22}, "memo": {7, 20},
	"email": {9, 17}, "social_media": {10, 22}, "search_history": {7, 23}}

// traceTime is the time of a trace of the day date in medium.
func traceTime(seed int, date, medium string) string {
	d, err := time.Parse(dateLayout, date)
	if err != nil {
		d = time.Time{}
	}
	rng := rand.New(rand.NewPCG(uint64(seed), hashSeed("time "+date+" "+medium, 0)))
	h := mediaHours[medium]
	t := d.Add(time.Duration(h[0]+rng.IntN(h[1]-h[0]+1))*time.Hour + time.Duration(rng.IntN(60))*time.Minute)
	return t.Format(traceLayout)
}

// traceUUID is a trace's id: a UUID (version 4 form) from a hash of the
// seed, the persona and the item, so the same build gives the same ids.
func traceUUID(seed int, person, item string) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%d/%s/%s", seed, person, item)))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:16])
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}
