package construct

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/text"
)

// Item statuses.
const (
	StatusAccepted = "accepted" // the output passed its check (or the step has none)
	StatusRejected = "rejected" // every revision failed its check: flagged for review, left out of the benchmark
)

// Call kinds, as stored.
const (
	KindGenerate  = "generate"
	KindCheck     = "check"
	KindRevise    = "revise"
	KindCodeCheck = "code_check"
)

// Build statuses, as stored.
const (
	BuildRunning    = "running"
	BuildIncomplete = "incomplete" // some item failed (a failed call) or the build was interrupted: run it again to resume
	BuildComplete   = "complete"
)

// Options configure a build.
type Options struct {
	// Store keeps items and calls (nil: in memory only, nothing resumes).
	Store *Store
	// Chat calls the models (an *llm.Client, with its call cache). It may
	// be nil in a dry run.
	Chat llm.Chatter
	// Seed seeds every choice the pipeline makes and the seed sent with
	// each call (per item, derived from it).
	Seed int
	// DryRun plans the build without a call: each step's stub stands for
	// the model (also when llm.DryRun() says the process is a dry run).
	DryRun bool
	// Concurrency bounds the calls in flight (0 = the endpoint's
	// max_concurrency when Chat is an *llm.Client, else 8).
	Concurrency int
	// Models names the model of a step ("clonemem.qa_write":
	// "gemini-3-flash", MODEL@ENDPOINT for another endpoint) or of its
	// checker ("clonemem.choices.check"), instead of its role's; Start
	// sets them on the pipeline's steps.
	Models map[string]string
}

// Ref is a handle on an item a build made or reused: what later items
// name as their inputs (provenance) and wait for.
type Ref struct {
	Key, Step, Item string
	Status          string
	Revisions       int
	node            *node
}

// Accepted reports whether the item's output passed its check.
func (r Ref) Accepted() bool { return r.Status == StatusAccepted }

// Build is one execution of a pipeline: its identity (ID) is the hash of
// the pipeline's steps (prompt hashes, roles, models, checks), the
// parameters and the seed, so the same build run again reuses every
// stored item and makes no call.
type Build struct {
	ID       string
	Spec     BuildSpec
	pipeline *Pipeline
	opts     Options
	dry      bool
	sem      chan struct{}
	conc     int
	start    time.Time

	mu    sync.Mutex
	stats map[string]*StepStats
	graph graph
	items map[string]string // key -> item, to catch two items made from the same input
}

// BuildSpec is what identifies a build.
type BuildSpec struct {
	Pipeline string          `json:"pipeline"`
	Version  int             `json:"version"`
	Params   json.RawMessage `json:"params"`
	Seed     int             `json:"seed"`
	Steps    []StepSpec      `json:"steps"`
}

// StepSpec is what identifies a step in a build: its prompts' hashes and
// models.
type StepSpec struct {
	Name        string  `json:"name"`
	Version     int     `json:"version"`
	Prompt      string  `json:"prompt"`
	PromptHash  string  `json:"prompt_hash"`
	ReviseHash  string  `json:"revise_hash,omitempty"`
	Model       string  `json:"model"`
	Temperature float64 `json:"temperature"`
	MaxTokens   int     `json:"max_tokens"`
	CheckHash   string  `json:"check_hash,omitempty"`
	CheckModel  string  `json:"check_model,omitempty"`
	Epsilon     float64 `json:"epsilon,omitempty"`
	Alpha       float64 `json:"alpha,omitempty"`
	Beta        float64 `json:"beta,omitempty"`
	MaxRevise   int     `json:"max_revisions,omitempty"`
}

// Start begins (or resumes) a build of p with params (any JSON value: the
// pipeline's parameters).
func Start(ctx context.Context, p *Pipeline, params any, opts Options) (*Build, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	for name, m := range opts.Models {
		s := p.Step(strings.TrimSuffix(name, ".check"))
		switch {
		case s == nil:
			return nil, fmt.Errorf("construct: %s: Models names step %q, which the pipeline does not have", p.Name, name)
		case strings.HasSuffix(name, ".check") && (s.Check == nil || s.Check.Prompt == nil):
			return nil, fmt.Errorf("construct: %s: Models names %q, but step %s has no checker model", p.Name, name, s.Name)
		case strings.HasSuffix(name, ".check"):
			s.Check.Model = m
		default:
			s.Model = m
		}
	}
	pj, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("construct: %s: params: %w", p.Name, err)
	}
	b := &Build{pipeline: p, opts: opts, dry: opts.DryRun || llm.DryRun(), stats: map[string]*StepStats{}, start: time.Now()}
	if !b.dry && opts.Chat == nil {
		return nil, fmt.Errorf("construct: %s: building needs a model (Options.Chat); without one, a dry run (Options.DryRun) says what it would cost", p.Name)
	}
	b.Spec = BuildSpec{Pipeline: p.Name, Version: p.Version, Params: pj, Seed: opts.Seed}
	for _, s := range p.Steps {
		ss := StepSpec{Name: s.Name, Version: s.Version, Prompt: s.Prompt.ID(), PromptHash: s.Prompt.Hash(),
			Model: b.target(s.Role, s.Model), Temperature: s.Temperature, MaxTokens: s.MaxTokens}
		if s.Revise != nil {
			ss.ReviseHash = s.Revise.Hash()
		}
		if c := s.Check; c != nil {
			ss.Epsilon, ss.MaxRevise = c.Epsilon, c.maxRevisions()
			ss.Alpha, ss.Beta = c.weights()
			if c.Prompt != nil {
				ss.CheckHash, ss.CheckModel = c.Prompt.Hash(), b.target(c.role(), c.Model)
			}
		}
		b.Spec.Steps = append(b.Spec.Steps, ss)
		b.stats[s.Name] = &StepStats{Step: s.Name, Stage: s.Stage, Title: s.Title, Role: s.Role, Model: ss.Model}
	}
	sj, _ := json.Marshal(b.Spec)
	b.ID = hashHex(sj)[:16]
	b.conc = opts.Concurrency
	if b.conc <= 0 {
		b.conc = 8
		if c, ok := opts.Chat.(interface{ Config() *llm.Config }); ok && c.Config() != nil {
			if ep, _, err := c.Config().Role(llm.RoleBackbone); err == nil && ep != nil && ep.MaxConcurrency > 0 {
				b.conc = ep.MaxConcurrency
			}
		}
	}
	b.sem = make(chan struct{}, b.conc)
	if opts.Store != nil && !b.dry {
		if err := opts.Store.begin(ctx, b.ID, p.Name, sj); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// Dry reports whether the build is a dry run.
func (b *Build) Dry() bool { return b.dry }

// Concurrency is the bound on calls in flight the build ran with.
func (b *Build) Concurrency() int { return b.conc }

// Seed is the build's seed.
func (b *Build) Seed() int { return b.opts.Seed }

// modelName is the model calls of role go to (without its endpoint), to
// price them; the role itself when no client says.
func (b *Build) modelName(role, model string) string {
	if i := strings.LastIndex(model, "@"); i > 0 {
		model = model[:i]
	}
	if model != "" {
		return model
	}
	if c, ok := b.opts.Chat.(interface{ Config() *llm.Config }); ok && c.Config() != nil {
		if _, m, err := c.Config().Role(role); err == nil {
			return m
		}
	}
	return role
}

// target names the model of a role for identities and tables: the model
// and its endpoint's name, as the call cache keys calls (not the
// endpoint's URLs: a local server restarted on another port keeps its
// items); the role itself when there is no client.
func (b *Build) target(role, model string) string {
	name := b.modelName(role, model)
	if i := strings.LastIndex(model, "@"); i > 0 {
		return name + "@" + model[i+1:]
	}
	if c, ok := b.opts.Chat.(interface{ Config() *llm.Config }); ok && c.Config() != nil {
		if ep, _, err := c.Config().Role(role); err == nil && ep != nil {
			return name + "@" + ep.Name
		}
	}
	return name
}

// Finish records how the build ended: complete when err is nil, else
// incomplete (a rerun resumes it). It returns err.
func (b *Build) Finish(err error) error {
	if b.opts.Store == nil || b.dry {
		return err
	}
	status := BuildComplete
	if err != nil {
		status = BuildIncomplete
	}
	summary, _ := json.Marshal(b.Stats())
	if ferr := b.opts.Store.finish(b.ID, status, summary); ferr != nil {
		return errors.Join(err, ferr)
	}
	return err
}

// hashHex is the hex SHA-256 of b.
func hashHex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// itemKey is the identity of an item of step s with input in.
func (b *Build) itemKey(s *Step, in []byte) string {
	var ss StepSpec
	for _, x := range b.Spec.Steps {
		if x.Name == s.Name {
			ss = x
		}
	}
	k, _ := json.Marshal(struct {
		Pipeline string          `json:"pipeline"`
		Step     StepSpec        `json:"step"`
		Seed     int             `json:"seed"`
		Input    json.RawMessage `json:"input"`
	}{b.pipeline.Name, ss, b.opts.Seed, in})
	return hashHex(k)[:32]
}

// callSeed is the seed sent with the calls of item key.
func callSeed(key string) int {
	h := sha256.Sum256([]byte(key))
	return int(binary.BigEndian.Uint32(h[:4]) & 0x7fffffff)
}

// Do makes (or reuses) the item of step s for in: it generates the output
// (decoded into out, a pointer to the step's output type), checks it,
// revises it while the check fails (at most the check's MaxRevisions
// times) and stores it with its provenance: the step, the prompt's hash,
// the model and deps, the items it was made from. A rejected item comes
// back with Status StatusRejected and its last output in out; a failed
// call is an error (recorded as a failure, never an empty item), and the
// item is made again when the build runs again.
func (b *Build) Do(ctx context.Context, s *Step, item string, in any, out any, deps ...Ref) (Ref, error) {
	if b.pipeline.Step(s.Name) != s {
		return Ref{}, fmt.Errorf("construct: %s: step %q is not one of the pipeline's", b.pipeline.Name, s.Name)
	}
	for _, d := range deps {
		if !b.pipeline.dependsOn(s, d.Step) {
			return Ref{}, fmt.Errorf("construct: %s: item %q of step %s is made from %s, a step it does not come after", b.pipeline.Name, item, s.Name, d.Step)
		}
	}
	if rv := reflect.ValueOf(out); rv.Kind() != reflect.Pointer || rv.IsNil() {
		return Ref{}, fmt.Errorf("construct: %s: Do of step %s wants a non-nil pointer for its output, got %T", b.pipeline.Name, s.Name, out)
	}
	inJSON, err := json.Marshal(in)
	if err != nil {
		return Ref{}, fmt.Errorf("construct: %s: step %s, %s: input: %w", b.pipeline.Name, s.Name, item, err)
	}
	key := b.itemKey(s, inJSON)
	ref := Ref{Key: key, Step: s.Name, Item: item}
	b.mu.Lock()
	if b.items == nil {
		b.items = map[string]string{}
	}
	other, dup := b.items[key]
	b.items[key] = item
	b.mu.Unlock()
	if dup && other != item && !b.dry { // a dry run's stubs may well repeat themselves
		return ref, fmt.Errorf("construct: %s: items %q and %q of step %s have the same input: give each item an input of its own", b.pipeline.Name, other, item, s.Name)
	}
	parents := nodesOf(deps)
	st := b.stepStats(s.Name)
	if b.dry {
		return b.plan(s, item, in, out, ref, parents)
	}
	if store := b.opts.Store; store != nil {
		it, ok, err := store.item(ctx, key)
		if err != nil {
			return ref, err
		}
		if ok {
			if err := json.Unmarshal(it.Output, out); err != nil {
				return ref, fmt.Errorf("construct: %s: stored item %s (%s, %s) does not decode: %w", b.pipeline.Name, key, s.Name, item, err)
			}
			ref.Status, ref.Revisions = it.Status, it.Revisions
			ref.node = b.graph.add(s.Name, 0, parents)
			b.mu.Lock()
			st.Items++
			st.Stored++
			if it.Status == StatusRejected {
				st.Rejected++
			}
			st.Revisions += it.Revisions
			b.mu.Unlock()
			return ref, nil
		}
	}
	x := &execItem{b: b, s: s, key: key, item: item, in: in, st: st, last: parents}
	if b.opts.Store != nil {
		if x.prior, err = b.opts.Store.calls(ctx, key); err != nil {
			return ref, err
		}
	}
	status, revisions, feedback, outJSON, err := x.run(ctx, out)
	if err != nil {
		return ref, err
	}
	ref.Status, ref.Revisions = status, revisions
	ref.node = x.lastNode()
	b.mu.Lock()
	st.Items++
	if status == StatusRejected {
		st.Rejected++
	}
	st.Revisions += revisions
	b.mu.Unlock()
	if b.opts.Store != nil {
		depKeys := make([]string, len(deps))
		for i, d := range deps {
			depKeys[i] = d.Key
		}
		err := b.opts.Store.putItem(context.WithoutCancel(ctx), StoredItem{Key: key, BuildID: b.ID, Step: s.Name, Item: item,
			PromptHash: s.Prompt.Hash(), Model: b.target(s.Role, s.Model), Inputs: depKeys, Input: inJSON,
			Output: outJSON, Status: status, Revisions: revisions, Feedback: feedback})
		if err != nil {
			return ref, err
		}
	}
	return ref, nil
}

// Join returns a ref standing for a computation in code over deps (no
// call): items made from it wait for all of deps.
func (b *Build) Join(step string, deps ...Ref) Ref {
	return Ref{Step: step, Status: StatusAccepted, node: b.graph.add(step, 0, nodesOf(deps))}
}

// execItem runs the calls of one item.
type execItem struct {
	b     *Build
	s     *Step
	key   string
	item  string
	in    any
	st    *StepStats
	prior []StoredCall
	seq   int
	last  []*node
}

func (x *execItem) lastNode() *node {
	if len(x.last) == 1 {
		return x.last[0]
	}
	return x.b.graph.add(x.s.Name, 0, x.last)
}

// newOut returns a fresh value of out's pointed-to type.
func newOut(out any) any { return reflect.New(reflect.TypeOf(out).Elem()).Interface() }

func (x *execItem) run(ctx context.Context, out any) (status string, revisions int, feedback string, outJSON []byte, err error) {
	s, c := x.s, x.s.Check
	cur := newOut(out)
	reply, err := x.call(ctx, KindGenerate, 0, &s.Prompt, s.Role, s.Model, s.Temperature, s.MaxTokens, x.in, 0)
	if err != nil {
		return "", 0, "", nil, err
	}
	parseErr := llm.DecodeReply(reply, cur)
	for round := 0; ; round++ {
		v := Verdict{Decision: "PASS", Pass: true}
		switch {
		case parseErr != nil:
			v = Verdict{Decision: "REJECT", Problems: []string{"the reply is not the JSON object asked for (" + parseErr.Error() + "): reply with that object only"}}
		case c != nil && c.Code != nil:
			if p := c.Code(x.in, cur); len(p) > 0 {
				v = Verdict{Decision: "REJECT", Problems: p}
			}
		}
		if parseErr != nil || (c != nil && c.Code != nil) {
			if err := x.recordCode(ctx, round, v); err != nil {
				return "", 0, "", nil, err
			}
		}
		if v.Pass && c != nil && c.Prompt != nil {
			v, err = x.verify(ctx, round, cur)
			if err != nil {
				return "", 0, "", nil, err
			}
		}
		if v.Pass {
			b, _ := json.Marshal(cur)
			if err := json.Unmarshal(b, out); err != nil {
				return "", 0, "", nil, err
			}
			return StatusAccepted, round, "", b, nil
		}
		feedback = v.feedback()
		kmax := DefaultMaxRevisions // a reply that does not decode is revised even without a check
		if c != nil {
			kmax = c.maxRevisions()
		}
		if s.Revise == nil || round >= kmax {
			b, _ := json.Marshal(cur)
			if parseErr == nil {
				json.Unmarshal(b, out)
			}
			return StatusRejected, round, feedback, b, nil
		}
		prev := any(cur)
		if parseErr != nil {
			prev = text.Clip(reply, 2000)
		}
		data := map[string]any{"source": x.in, "previous": prev, "feedback": feedback}
		reply, err = x.call(ctx, KindRevise, round+1, s.Revise, s.Role, s.Model, s.Temperature, s.MaxTokens, data, 0)
		if err != nil {
			return "", 0, "", nil, err
		}
		cur = newOut(out)
		parseErr = llm.DecodeReply(reply, cur)
	}
}

// verify asks the checker about cur; an unreadable verdict is asked again
// (as another sample) twice, then fails the item.
func (x *execItem) verify(ctx context.Context, round int, cur any) (Verdict, error) {
	c := x.s.Check
	data := map[string]any{"source": c.source(x.in), "output": cur}
	var lastErr error
	for sample := 0; sample < 3; sample++ {
		reply, err := x.call(ctx, KindCheck, round, c.Prompt, c.role(), c.Model, 0, 1024, data, sample)
		if err != nil {
			return Verdict{}, err
		}
		var v Verdict
		if err := llm.DecodeReply(reply, &v); err != nil || v.Decision == "" {
			if err == nil {
				err = errors.New(`no "decision"`)
			}
			lastErr = err
			continue
		}
		return c.Score(v), nil
	}
	err := fmt.Errorf("construct: %s: step %s, %s: the checker's verdict cannot be read after 3 samples: %w", x.b.pipeline.Name, x.s.Name, x.item, lastErr)
	x.fail(KindCheck, round, err)
	return Verdict{}, err
}

// recordCode stores a code check's verdict as a call without a model.
func (x *execItem) recordCode(ctx context.Context, round int, v Verdict) error {
	seq := x.seq
	x.seq++
	if x.b.opts.Store == nil {
		return nil
	}
	res, _ := json.Marshal(v)
	return x.b.opts.Store.putCall(context.WithoutCancel(ctx), StoredCall{ItemKey: x.key, BuildID: x.b.ID, Seq: seq, Kind: KindCodeCheck, Round: round, Result: res})
}

func (x *execItem) fail(kind string, round int, err error) {
	x.b.mu.Lock()
	x.st.Failed++
	x.b.mu.Unlock()
	if x.b.opts.Store == nil {
		return
	}
	msg := llm.RedactURLs(err.Error())
	_ = x.b.opts.Store.putFailure(Failure{BuildID: x.b.ID, ItemKey: x.key, Step: x.s.Name, Item: x.item, Kind: kind, Round: round, Error: msg, At: time.Now()})
}

// call makes one model call of the item (or replays it from the store
// when the item's calls so far were stored by an interrupted session).
func (x *execItem) call(ctx context.Context, kind string, round int, p *Prompt, role, model string, temp float64, maxTokens int, data any, sample int) (string, error) {
	b := x.b
	msgs, err := p.Render(data)
	if err != nil {
		return "", err
	}
	mj, _ := json.Marshal(msgs)
	reqHash := hashHex(append(mj, byte(sample)))[:32]
	seq := x.seq
	x.seq++
	if seq < len(x.prior) && x.prior[seq].Kind == kind && x.prior[seq].RequestHash == reqHash {
		pc := x.prior[seq]
		b.mu.Lock()
		x.st.Replayed++
		x.st.PromptTokens += pc.PromptTokens
		x.st.CompletionTokens += pc.CompletionTokens
		b.mu.Unlock()
		x.last = []*node{b.graph.add(x.s.Name, 0, x.last)}
		return pc.Reply, nil
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("construct: %s: step %s, %s: %w", b.pipeline.Name, x.s.Name, x.item, err)
	}
	req := llm.ChatRequest{Role: role, Model: model, Messages: msgs, Temperature: temp, MaxTokens: maxTokens,
		Seed: callSeed(x.key), HasSeed: true, ResponseFormat: llm.FormatJSONObject, Sample: sample}
	select {
	case b.sem <- struct{}{}:
	case <-ctx.Done():
		return "", fmt.Errorf("construct: %s: step %s, %s: %w", b.pipeline.Name, x.s.Name, x.item, ctx.Err())
	}
	t0 := time.Now()
	resp, err := b.opts.Chat.Chat(ctx, req)
	t1 := time.Now()
	<-b.sem
	b.mu.Lock()
	x.st.span(t0.Sub(b.start), t1.Sub(b.start))
	if err == nil {
		x.st.Calls++
		if resp.Cached {
			x.st.Cached++
		}
		x.st.PromptTokens += resp.Usage.PromptTokens
		x.st.CompletionTokens += resp.Usage.CompletionTokens
		ru := x.st.role(role, b.modelName(role, model))
		ru.Calls++
		ru.PromptTokens += resp.Usage.PromptTokens
		ru.CompletionTokens += resp.Usage.CompletionTokens
	}
	b.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("construct: %s: step %s, %s: %s call: %w", b.pipeline.Name, x.s.Name, x.item, kind, err)
		x.fail(kind, round, err)
		return "", err
	}
	dur := 1
	if resp.Cached {
		dur = 0
	}
	x.last = []*node{b.graph.add(x.s.Name, dur, x.last)}
	if b.opts.Store != nil {
		var result json.RawMessage
		if j, ok := llm.ReplyJSON(resp.Content); ok {
			result = j
		}
		// Stored even when the build is being canceled: the call was made.
		err := b.opts.Store.putCall(context.WithoutCancel(ctx), StoredCall{ItemKey: x.key, BuildID: b.ID, Seq: seq, Kind: kind, Round: round, Prompt: p.ID(), PromptHash: p.Hash(),
			Role: role, Model: b.target(role, model), RequestHash: reqHash, Reply: resp.Content, Result: result,
			PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens, Cached: resp.Cached, Latency: resp.Latency})
		if err != nil {
			return "", err
		}
	}
	return resp.Content, nil
}

// stepStats returns the stats of step name.
func (b *Build) stepStats(name string) *StepStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats[name]
}

// Stats returns what each step did so far, in pipeline order, with the
// floor each step's calls set (see StepStats).
func (b *Build) Stats() []StepStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	floors := b.graph.floors(b.conc)
	var out []StepStats
	for _, s := range b.pipeline.Steps {
		st := *b.stats[s.Name]
		if st.ByRole != nil {
			m := map[string]*RoleUsage{}
			for k, v := range st.ByRole {
				c := *v
				m[k] = &c
			}
			st.ByRole = m
		}
		f := floors[s.Name]
		st.Depth, st.FloorCalls = f.depth, f.schedule
		out = append(out, st)
	}
	return out
}

// Total sums the stats of every step; its floor is the whole build's.
func (b *Build) Total() StepStats {
	stats := b.Stats()
	t := StepStats{Step: "all"}
	for _, s := range stats {
		t = t.add(s)
	}
	b.mu.Lock()
	f := b.graph.total(b.conc)
	b.mu.Unlock()
	t.Depth, t.FloorCalls = f.depth, f.schedule
	return t
}

// Elapsed is the wall time since the build started.
func (b *Build) Elapsed() time.Duration { return time.Since(b.start) }

// StepStats is what one step did in a build (or, in a dry run, would do).
type StepStats struct {
	Step, Stage, Title string
	Role, Model        string
	// Items is the number of items made or reused; Stored those reused
	// from the store without a call; Rejected those whose revisions all
	// failed; Revisions the revisions made.
	Items, Stored, Rejected, Revisions int
	// Calls are the model calls answered (Cached of them by the call
	// cache), Replayed the calls an interrupted item had made and the
	// store gave back, Failed the calls that failed.
	Calls, Cached, Replayed, Failed int
	// PromptTokens and CompletionTokens are the answered calls' tokens
	// (as the server counted them; in a dry run, estimated).
	PromptTokens, CompletionTokens int
	// MaxCalls, MaxPromptTokens and MaxCompletionTokens bound a dry run's
	// figures: every check failing until its last revision.
	MaxCalls, MaxPromptTokens, MaxCompletionTokens int
	// First and Last are when the step's first call started and its last
	// ended, from the build's start.
	First, Last time.Duration
	// ByRole splits the calls and tokens by the role that made them (the
	// step's generator and its checker), to price them.
	ByRole map[string]*RoleUsage
	// Depth is the longest chain of calls that ends in this step (its own
	// and those of the items it waits for); FloorCalls is how many call
	// latencies an ideal executor needs to finish the step's last call
	// with the build's concurrency (see the package documentation).
	Depth, FloorCalls int
}

// RoleUsage is the calls and tokens of one role in a step.
type RoleUsage struct {
	Model                                          string
	Calls, PromptTokens, CompletionTokens          int
	MaxCalls, MaxPromptTokens, MaxCompletionTokens int
}

func (s *StepStats) role(role, model string) *RoleUsage {
	if s.ByRole == nil {
		s.ByRole = map[string]*RoleUsage{}
	}
	r := s.ByRole[role]
	if r == nil {
		r = &RoleUsage{Model: model}
		s.ByRole[role] = r
	}
	return r
}

// Span is the wall time from the step's first call to its last.
func (s StepStats) Span() time.Duration { return s.Last - s.First }

func (s *StepStats) span(t0, t1 time.Duration) {
	if s.Calls+s.Failed == 0 || t0 < s.First {
		s.First = t0
	}
	if t1 > s.Last {
		s.Last = t1
	}
}

func (s StepStats) add(o StepStats) StepStats {
	if len(o.ByRole) > 0 {
		m := map[string]*RoleUsage{}
		for k, v := range s.ByRole {
			c := *v
			m[k] = &c
		}
		for k, v := range o.ByRole {
			r := m[k]
			if r == nil {
				r = &RoleUsage{Model: v.Model}
				m[k] = r
			}
			if r.Model != v.Model {
				r.Model = "several models"
			}
			r.Calls += v.Calls
			r.PromptTokens += v.PromptTokens
			r.CompletionTokens += v.CompletionTokens
			r.MaxCalls += v.MaxCalls
			r.MaxPromptTokens += v.MaxPromptTokens
			r.MaxCompletionTokens += v.MaxCompletionTokens
		}
		s.ByRole = m
	}
	s.Items += o.Items
	s.Stored += o.Stored
	s.Rejected += o.Rejected
	s.Revisions += o.Revisions
	s.Calls += o.Calls
	s.Cached += o.Cached
	s.Replayed += o.Replayed
	s.Failed += o.Failed
	s.PromptTokens += o.PromptTokens
	s.CompletionTokens += o.CompletionTokens
	s.MaxCalls += o.MaxCalls
	s.MaxPromptTokens += o.MaxPromptTokens
	s.MaxCompletionTokens += o.MaxCompletionTokens
	if o.Calls+o.Failed > 0 {
		if s.Calls+s.Failed == o.Calls+o.Failed || o.First < s.First {
			s.First = o.First
		}
		if o.Last > s.Last {
			s.Last = o.Last
		}
	}
	return s
}

// Each runs f(0..n-1) concurrently and waits for all of them: one item's
// failure does not stop the others (their items are stored, so a rerun
// has less to do). The error joins every failure, in index order.
func Each(n int, f func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// lower is strings.ToLower, trimmed.
func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
