package grid

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

// Defaults of a Grid's fixed components.
const (
	DefaultSystem = "flat(bm25)"
	DefaultReader = "extractive"
	DefaultK      = 10
)

// Grid is an experiment: fixed components, axes that vary them, and a
// baseline. Run runs every point of the axes' product through the run
// store and returns the results as a reports.Set.
type Grid struct {
	// Data is the dataset every point runs on (unless a dataset axis
	// names others; nil = the bundled sample).
	Data *datasets.Dataset
	// Datasets are datasets the notebook opened itself (with their errata
	// applied): a dataset axis value naming one by its Title or its Source
	// runs on it as it is (DatasetAxis makes such an axis); any other
	// value is a path that Run opens.
	Datasets []*datasets.Dataset
	// System, Reader and Judges are the components of every point that no
	// axis varies, as spec strings ("" = DefaultSystem, DefaultReader; no
	// judge: the offline proxies and exact metrics are always scored). K
	// is the retrieval depth (0 = DefaultK).
	System, Reader string
	Judges         []string
	K              int
	// Axes vary the points: the names AxisSystem, AxisReader, AxisJudge,
	// AxisK, AxisEmbedder, AxisUnits, AxisDataset, AxisPersona, or any
	// knob of the system (or of the reader), in the order they apply.
	Axes []record.Axis
	// Baseline is the axis values of the point the others are compared
	// with; an axis it leaves out takes its first value (nil = the first
	// point).
	Baseline map[string]string
	// Env holds the model client and the Weaviate server; its Data is set
	// per point. nil means the configured endpoint's client
	// (llm.DefaultIfConfigured), offline when none is configured; an Env
	// without Client is offline. Offline, points that need a model are
	// skipped and judges that need one are left out, each said once.
	Env *catalog.Env
	// Params are recorded with every run and are part of its id (the
	// notebook's name, a seed).
	Params map[string]string
	// Options are each run's options (the store; Progress and Workers);
	// the grid shows one progress display for all its points.
	Options runs.Options
	// Concurrency is how many points run at once (0 = the number of CPUs
	// offline, 16 with a model client: points then mostly wait on the
	// endpoints, whose limits bound the calls in flight).
	Concurrency int
	// Queue, when not QueueNone, puts the points in the run store's work
	// queue for workers (memlab worker, on any number of machines) instead
	// of running them here: QueueEnqueue returns at once, QueueWork works
	// the queue too until every point is done. Unset, it is read from
	// QueueEnv.
	Queue QueueMode
	// Worker sets how this process works the queue with QueueWork (its
	// Store, Runs, Datasets and Env are the grid's).
	Worker Worker
}

// point is one resolved point of a grid.
type point struct {
	params map[string]string
	data   *datasets.Dataset
	system *catalog.Spec
	reader *catalog.Spec
	judges []*catalog.Spec
	k      int
}

// Points resolves the grid's points without running them: each point's
// axis values and the canonical specs of its system, reader and judges,
// as `system=flat(dense:lsa) reader=extractive judges= k=10`. A bad spec
// or an axis no component takes is an error naming the axis and value.
func (g Grid) Points() ([]string, error) {
	ps, _, err := g.resolve()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range ps {
		var js []string
		for _, j := range p.judges {
			js = append(js, j.String())
		}
		out = append(out, fmt.Sprintf("system=%s reader=%s judges=%s k=%d", p.system, p.reader, strings.Join(js, "+"), p.k))
	}
	return out, nil
}

// resolve turns the axes' product into points; datasets opened by a
// dataset axis are returned by path.
func (g Grid) resolve() ([]point, map[string]*datasets.Dataset, error) {
	grid, err := record.Grid(g.Axes)
	if err != nil {
		return nil, nil, fmt.Errorf("grid: %w", err)
	}
	base := g.Data
	if base == nil {
		if base, err = datasets.Sample(); err != nil {
			return nil, nil, fmt.Errorf("grid: the bundled sample: %w", err)
		}
	}
	opened := map[string]*datasets.Dataset{}
	var out []point
	for _, params := range grid {
		p := point{params: params, data: base, k: cmp.Or(g.K, DefaultK)}
		sys, rd := cmp.Or(g.System, DefaultSystem), cmp.Or(g.Reader, DefaultReader)
		if v, ok := params[AxisSystem]; ok {
			sys = v
		}
		if v, ok := params[AxisReader]; ok {
			rd = v
		}
		if p.system, err = catalog.Parse(catalog.KindSystem, sys); err != nil {
			return nil, nil, fmt.Errorf("grid: system %q: %w", sys, err)
		}
		if p.reader, err = parseModelOr(catalog.KindReader, "reader", rd); err != nil {
			return nil, nil, fmt.Errorf("grid: reader %q: %w", rd, err)
		}
		judges := g.Judges
		if v, ok := params[AxisJudge]; ok {
			judges = nil
			if v != "none" {
				judges = SplitTop(v, '+')
			}
		}
		for _, j := range judges {
			js, err := catalog.Parse(catalog.KindJudge, j)
			if err != nil {
				return nil, nil, fmt.Errorf("grid: judge %q: %w", j, err)
			}
			p.judges = append(p.judges, js)
		}
		for _, a := range g.Axes {
			v := params[a.Name]
			switch a.Name {
			case AxisSystem, AxisReader, AxisJudge:
			case AxisK:
				k, err := strconv.Atoi(v)
				if err != nil || k <= 0 {
					return nil, nil, fmt.Errorf("grid: axis k: value %q is not a positive integer", v)
				}
				p.k = k
			case AxisDataset:
				d, ok := opened[v]
				if !ok {
					d = g.given(v)
				}
				if d != nil {
					opened[v] = d
				} else {
					path := v
					if v == "sample" {
						path = ""
					}
					if d, err = datasets.Open(path); err != nil {
						return nil, nil, fmt.Errorf("grid: axis dataset: %w", err)
					}
					opened[v] = d
				}
				p.data = d
			case AxisPersona:
			case AxisEmbedder:
				emb := v
				if v != "bm25" {
					es, err := parseModelOr(catalog.KindEmbedder, "embedder", v)
					if err != nil {
						return nil, nil, fmt.Errorf("grid: axis embedder: %w", err)
					}
					emb = es.String()
				}
				if p.system, err = p.system.With("embedder", emb); err != nil {
					return nil, nil, fmt.Errorf("grid: axis embedder=%s on system %s: %w", v, sys, err)
				}
			default:
				name := a.Name
				if name == "unit" {
					name = AxisUnits
				}
				s, serr := p.system.With(name, v)
				if serr == nil {
					p.system = s
					continue
				}
				var unknown *catalog.UnknownError
				if !errors.As(serr, &unknown) || unknown.Name != name {
					return nil, nil, fmt.Errorf("grid: axis %s=%s on system %s: %w", name, v, sys, serr)
				}
				r, rerr := p.reader.With(name, v)
				if rerr != nil {
					return nil, nil, fmt.Errorf("grid: axis %q is no axis of a grid (system, reader, judge, k, embedder, units, dataset, persona) and no knob of the system or the reader: %w", a.Name, serr)
				}
				p.reader = r
			}
		}
		// The persona applies last: to whichever dataset the point runs on.
		if v, ok := params[AxisPersona]; ok {
			sub, err := p.data.OnlyCorpus(v)
			if err != nil {
				return nil, nil, fmt.Errorf("grid: axis persona: %w", err)
			}
			p.data = sub
		}
		out = append(out, p)
	}
	return out, opened, nil
}

// given returns the dataset of g.Datasets that v names by its Title or
// its Source, nil when none does.
func (g Grid) given(v string) *datasets.Dataset {
	for _, d := range g.Datasets {
		if d != nil && (d.Title() == v || d.Source == v) {
			return d
		}
	}
	return nil
}

// parseModelOr parses a spec of kind; a bare name the catalog does not
// have (a model's name such as text-embedding-3-small or qwen3-32b) is
// taken as entry(model=name).
func parseModelOr(kind catalog.Kind, entry, s string) (*catalog.Spec, error) {
	sp, err := catalog.Parse(kind, s)
	var unknown *catalog.UnknownError
	if err != nil && errors.As(err, &unknown) && unknown.Pos == 0 && unknown.What == string(kind) && !strings.ContainsAny(s, "()=") {
		if sp2, err2 := catalog.Parse(kind, entry+"(model="+quoteModel(s)+")"); err2 == nil {
			return sp2, nil
		}
	}
	return sp, err
}

// quoteModel quotes a model name that is not a plain word of the spec
// grammar (one with ':' or '/', as openai/gpt-4o-mini).
func quoteModel(s string) string {
	if strings.ContainsAny(s, ":/ ,+\"") {
		return strconv.Quote(s)
	}
	return s
}

// SplitTop splits s at every sep outside parentheses and trims the spaces
// around each part: SplitTop("a(x=1,y=2), b", ',') is ["a(x=1,y=2)" "b"].
// It is how a list of specs is written in one string (an axis's values,
// judges joined by '+'). Parentheses are counted, not checked: a sep
// splits only where as many '(' as ')' come before it. A string without
// sep is one part, an empty string the one part "".
func SplitTop(s string, sep rune) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// Run runs every point of g and returns the set of their results, in grid
// order. Points that share a memory (the same system spec on the same
// dataset: they differ in the reader, the judges or k) share one built
// system, searched once per question at every k they need (once, at the
// largest, when the system is retrieval.PrefixStable: k is a cut of one
// ranking); see retrieval.Shared. Up to Concurrency points run at once,
// each through runs.Run with g.Options (so with a store each point is
// resumable and a rerun computes only what is missing), all reported on
// one progress display.
//
// A point whose system or reader needs a model when g.Env has no client
// is skipped: its Skipped is the *catalog.NeedsModelError, and the set's
// Skips() says it once per reason. A judge that needs a model is left out
// of every point then, said once in the set's Notes. A point that fails
// (a store that cannot be written, a cancelled ctx) has its Err; Run
// returns an error only for a grid it cannot resolve.
//
// In a dry run (llm.DryRun) each point's Result holds its estimate, with
// the work points share counted once: a memory's building at the first
// point that builds it, its searches at one point per depth.
func (g Grid) Run(ctx context.Context) (*reports.Set, error) {
	if mode := g.queueMode(); mode != QueueNone && !llm.DryRun() {
		return g.runQueued(ctx, mode)
	}
	pts, set, env, err := g.prepare(ctx)
	if err != nil {
		return nil, err
	}
	b := newBuilder(env, pts, set)
	prog := newGridProgress(g.Options, set, pts)
	conc := g.Concurrency
	if conc <= 0 {
		conc = runtime.GOMAXPROCS(0)
		if env.Client != nil {
			conc = 16
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, conc)
	for i := range pts {
		if set.Points[i].Skipped != nil || set.Points[i].Err != nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res, err := g.runPoint(ctx, b, pts[i], set.Points[i].Label, prog.point(i))
			set.Points[i].Result, set.Points[i].Err = res, err
			if errors.Is(err, retrieval.ErrNeedsModel) {
				set.Points[i].Result, set.Points[i].Err, set.Points[i].Skipped = nil, nil, err
			}
		}()
	}
	wg.Wait()
	prog.finish()
	if llm.DryRun() {
		b.shareEstimates(pts, set)
	}
	return set, nil
}

// prepare resolves the grid's points and makes their set, each point
// skipped when it needs a model and env has none (and judges that need
// one left out, said in the notes).
func (g Grid) prepare(ctx context.Context) ([]point, *reports.Set, catalog.Env, error) {
	pts, _, err := g.resolve()
	if err != nil {
		return nil, nil, catalog.Env{}, err
	}
	env := catalog.Env{}
	if g.Env != nil {
		env = *g.Env
	} else if env.Client, err = llm.DefaultIfConfigured(); err != nil {
		return nil, nil, env, fmt.Errorf("grid: the configured model endpoint: %w", err)
	}
	env.Context = ctx
	offline := env.Client == nil
	set := &reports.Set{Axes: g.Axes, Points: make([]reports.Point, len(pts))}
	varying := varyingAxes(g.Axes)
	for i, p := range pts {
		set.Points[i] = reports.Point{Params: p.params, Label: label(varying, p.params), Data: p.data,
			System: p.system.String(), Reader: p.reader.String(), K: p.k}
	}
	if g.Baseline != nil {
		set.Baseline = map[string]string{}
		for _, a := range g.Axes {
			v, ok := g.Baseline[a.Name]
			if !ok {
				v = a.Values[0]
			}
			set.Baseline[a.Name] = v
		}
	}

	// Skips and left-out judges, decided from the specs' roles.
	noted := map[string]bool{}
	for i, p := range pts {
		for _, s := range []*catalog.Spec{p.system, p.reader} {
			if roles := s.Roles(); offline && len(roles) > 0 && set.Points[i].Skipped == nil {
				set.Points[i].Skipped = &catalog.NeedsModelError{Component: s.String(), Role: roles[0]}
			}
		}
		if !offline {
			continue
		}
		var kept []*catalog.Spec
		for _, j := range p.judges {
			if roles := j.Roles(); len(roles) > 0 {
				if n := (&catalog.NeedsModelError{Component: j.String(), Role: roles[0]}).Error(); !noted[n] {
					noted[n] = true
					set.Notes = append(set.Notes, "not judged: "+n)
				}
				continue
			}
			kept = append(kept, j)
		}
		pts[i].judges = kept
	}
	for i, p := range pts {
		for _, j := range p.judges {
			set.Points[i].Judges = append(set.Points[i].Judges, j.String())
		}
	}

	return pts, set, env, nil
}

// shareEstimates makes a dry run's estimates say what the grid will
// spend: a memory built once is counted at the first point that builds
// it, and its searches at one point per depth it is searched at (one in
// all when its ranking is a prefix at every k); the other points' stages
// say where they are counted.
func (b *builder) shareEstimates(pts []point, set *reports.Set) {
	built := map[string]string{}    // system key -> label of the point counting ingest
	searched := map[string]string{} // system key + depth -> label
	// The deepest point of each memory counts its searches.
	deepest := map[string]int{}
	for _, p := range pts {
		deepest[sysKey(p)] = max(deepest[sysKey(p)], p.k)
	}
	for i, p := range pts {
		e := set.Points[i].Result
		if e == nil || e.Estimate == nil {
			continue
		}
		key := sysKey(p)
		if at, ok := built[key]; ok {
			e.Estimate.Ingest = record.StageEstimate{Known: true, Note: "memory built once for the grid: counted at " + at}
		} else {
			built[key] = set.Points[i].Label
		}
		depth := strconv.Itoa(p.k)
		if s := b.sys[key]; s != nil && s.plain != nil {
			if ps, ok := s.plain.(retrieval.PrefixStable); ok && ps.PrefixStable() {
				depth = "prefix"
				if p.k != deepest[key] {
					e.Estimate.Retrieve = record.StageEstimate{Known: true, Note: fmt.Sprintf("searched once for the grid at k = %d", deepest[key])}
					continue
				}
			}
		}
		if at, ok := searched[key+"\x00"+depth]; ok {
			e.Estimate.Retrieve = record.StageEstimate{Known: true, Note: "searches made once for the grid: counted at " + at}
		} else {
			searched[key+"\x00"+depth] = set.Points[i].Label
		}
	}
}

// runPoint runs one point.
func (g Grid) runPoint(ctx context.Context, b *builder, p point, lbl string, prog runs.Progress) (*record.Result, error) {
	sys, err := b.system(p, func() {
		runs.StatusOf(prog, lbl, fmt.Sprintf("building the memory of %s over %s", p.system, p.data.Name))
	})
	runs.StatusOf(prog, lbl, "")
	if err != nil {
		return nil, err
	}
	rd, err := b.reader(p.reader)
	if err != nil {
		return nil, err
	}
	var judges []runs.Judge
	for _, j := range p.judges {
		rj, err := b.judge(j)
		if err != nil {
			return nil, err
		}
		judges = append(judges, rj...)
	}
	opts := g.Options
	opts.Progress, opts.Quiet = prog, prog == nil
	cfg := runs.Config{System: sys, Reader: rd, K: p.k, Judges: judges, Label: lbl}
	if len(g.Params) > 0 {
		cfg.Params = maps.Clone(g.Params)
	}
	return runs.Run(ctx, p.data, cfg, opts)
}

// varyingAxes are the axes with more than one value.
func varyingAxes(axes []record.Axis) []string {
	var out []string
	for _, a := range axes {
		if len(a.Values) > 1 {
			out = append(out, a.Name)
		}
	}
	return out
}

// label is a point's name in tables: the values of the axes that vary,
// "system=timeline k=10" (the single axis's value alone, "timeline", when
// one axis varies; "all" when none does).
func label(varying []string, params map[string]string) string {
	switch len(varying) {
	case 0:
		return "all"
	case 1:
		return params[varying[0]]
	}
	var parts []string
	for _, a := range varying {
		parts = append(parts, a+"="+params[a])
	}
	return strings.Join(parts, " ")
}

// builder builds each distinct component once.
type builder struct {
	env   catalog.Env
	mu    sync.Mutex
	sys   map[string]*sharedSystem
	rds   map[string]generate.Reader
	jdg   map[string][]runs.Judge
	ks    map[string][]int // system key -> the ks its points use
	datas map[string]*datasets.Dataset
}

type sharedSystem struct {
	once   sync.Once
	shared *retrieval.Shared
	plain  retrieval.System // dry run: no sharing
	err    error
}

// sysKey identifies a memory: its spec on its dataset (fingerprint and
// questions: a persona's subset is another memory).
func sysKey(p point) string {
	return p.system.String() + "\x00" + p.data.Fingerprint + "\x00" + p.data.Errata + "\x00" + strconv.Itoa(len(p.data.Questions)) + "\x00" + firstCorpus(p.data)
}

func firstCorpus(d *datasets.Dataset) string {
	if len(d.Corpora) == 1 {
		return d.Corpora[0].ID
	}
	return ""
}

func newBuilder(env catalog.Env, pts []point, set *reports.Set) *builder {
	b := &builder{env: env, sys: map[string]*sharedSystem{}, rds: map[string]generate.Reader{}, jdg: map[string][]runs.Judge{},
		ks: map[string][]int{}}
	for i, p := range pts {
		if set.Points[i].Skipped != nil {
			continue
		}
		key := sysKey(p)
		if !slices.Contains(b.ks[key], p.k) {
			b.ks[key] = append(b.ks[key], p.k)
		}
	}
	return b
}

// system returns p's view of its shared memory, built at the first point
// that needs it, which calls building first.
func (b *builder) system(p point, building func()) (retrieval.System, error) {
	key := sysKey(p)
	b.mu.Lock()
	s, ok := b.sys[key]
	if !ok {
		s = &sharedSystem{}
		b.sys[key] = s
	}
	b.mu.Unlock()
	s.once.Do(func() {
		if building != nil {
			building()
		}
		env := b.env
		env.Data = p.data
		var built any
		if built, s.err = p.system.Build(&env); s.err != nil {
			s.err = fmt.Errorf("grid: build %s: %w", p.system, s.err)
			return
		}
		sys := built.(retrieval.System)
		if llm.DryRun() {
			s.plain = sys
			return
		}
		s.shared, s.err = retrieval.NewShared(p.data, sys, b.ks[key])
	})
	if s.err != nil {
		return nil, s.err
	}
	if s.plain != nil {
		return s.plain, nil
	}
	return s.shared.View(), nil
}

// reader returns the reader of spec s, built once per spec.
func (b *builder) reader(s *catalog.Spec) (generate.Reader, error) {
	key := s.String()
	b.mu.Lock()
	defer b.mu.Unlock()
	if r, ok := b.rds[key]; ok {
		return r, nil
	}
	built, err := s.Build(&b.env)
	if err != nil {
		return nil, fmt.Errorf("grid: build %s: %w", key, err)
	}
	r := built.(generate.Reader)
	b.rds[key] = r
	return r, nil
}

// judge returns the run judges of a judge spec (CloneMem's memory judge
// gives two metrics from one judge: one runs.Judge), built once per spec.
func (b *builder) judge(s *catalog.Spec) ([]runs.Judge, error) {
	key := s.String()
	b.mu.Lock()
	defer b.mu.Unlock()
	if j, ok := b.jdg[key]; ok {
		return j, nil
	}
	built, err := s.Build(&b.env)
	if err != nil {
		return nil, fmt.Errorf("grid: build %s: %w", key, err)
	}
	cj := built.(*catalog.Judge)
	var out []runs.Judge
	switch j := cj.Judge.(type) {
	case *judge.KnowMeJudge:
		out = []runs.Judge{runs.KnowMeJudge(j)}
	case *judge.LoCoMoJudge:
		out = []runs.Judge{runs.LoCoMoJudge(j)}
	case *judge.CloneMemJudge:
		if cj.Use == "memory" {
			out = []runs.Judge{runs.CloneMemMemoryJudge(j)}
		} else {
			out = []runs.Judge{runs.CloneMemQAJudge(j)}
		}
	default:
		return nil, fmt.Errorf("grid: judge %s: built a %T, which no run judge wraps", key, cj.Judge)
	}
	b.jdg[key] = out
	return out, nil
}
