package reports

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/memlab/memlab/activity"
	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
)

// SetPaperOptions configure Set.PaperTable.
type SetPaperOptions struct {
	// Paper and Table name the paper's table (PaperCloneMem "3", "4",
	// "5", "6"; PaperKnowMe "1"); Part is KnowMe-Bench's part ("all",
	// "dataset 1", ...; "" = the set's dataset name when it is one).
	Paper, Table, Part string
	// Metrics are memlab's metrics shown, in order; offline, a proxy
	// stands where the paper's judged metric would (it keeps its name:
	// the row says so). nil = every metric of the paper's table that the
	// set's points have.
	Metrics []string
	// Cell configures each cell's interval.
	Cell PaperCellOptions
	// Layout configures the table (nil rows = the paper's orientation).
	Layout PaperTableOptions
}

// PaperTable lays the set out as a paper's table, in the paper's
// orientation and scales, with the published figure beside each of our
// cells (PaperTable): every point that ran becomes one column (CloneMem)
// or row (KnowMe-Bench) keyed by the paper's labels of its components
// (PaperSystemLabel, PaperBackboneLabel, PaperEmbedderLabel,
// PaperUnitLabel). A component the paper never ran (an offline embedder
// or reader) keeps a label of its own, so no published figure is put
// beside it. KnowMe-Bench's cells are per task (T1..T7, by position).
func (s *Set) PaperTable(opts SetPaperOptions) (analysis.Table, string, error) {
	if err := s.Err(); err != nil {
		return analysis.Table{}, "", err
	}
	defer activity.Begin("paper table %s %s (bootstrap intervals)", opts.Paper, opts.Table)()
	knowme := opts.Paper == PaperKnowMe
	metrics := opts.Metrics
	if metrics == nil {
		metrics = s.paperMetrics(opts.Paper, opts.Table)
	}
	var cells []PaperCell
	embedderVaries, unitShared := s.embedderVaries(), s.unitsShared()
	for _, p := range s.Points {
		if !p.Ran() {
			continue
		}
		q := PaperQuery{Paper: opts.Paper, Table: opts.Table, Part: opts.Part, System: PaperSystemLabel(p.System),
			Backbone: PaperBackboneLabel(p.Reader)}
		if knowme {
			if v, ok := knowMeSystems[q.System]; ok {
				q.System = v
			}
			if q.Part == "" {
				q.Part = knowMePart(p.Data.Name)
			}
			tasks := judge.KnowMeTasks()
			for _, m := range metrics {
				for i, task := range tasks {
					var recs []record.Record
					for _, r := range p.Result.Records {
						if strings.EqualFold(r.Task, task) {
							recs = append(recs, r)
						}
					}
					if len(recs) == 0 {
						continue
					}
					tq := q
					tq.Task = fmt.Sprintf("T%d", i+1)
					tq.Metric = paperLabelOr(m)
					c, err := PaperCellOf(tq, recs, m, opts.Cell)
					if err != nil {
						return analysis.Table{}, "", fmt.Errorf("reports: paper table, point %s: %w", p.Label, err)
					}
					cells = append(cells, c)
				}
			}
			continue
		}
		q.K, q.Embedder, q.Unit = p.K, PaperEmbedderLabel(p.System), PaperUnitLabel(p.System)
		if opts.Table != "5" && !embedderVaries {
			q.Embedder = "" // Tables 3, 4 and 6 fix the embedder; a set varying it keeps it in the key
		}
		if opts.Table != "6" {
			q.Unit = ""
		} else if unitShared[q.Unit] {
			q.Unit += " (" + joinOf(p.System) + ")" // one of several variants of one paper unit: no figure of its own
		}
		for _, m := range metrics {
			mq := q
			mq.Metric = paperLabelOr(m)
			c, err := PaperCellOf(mq, p.Result.Records, m, opts.Cell)
			if err != nil {
				return analysis.Table{}, "", fmt.Errorf("reports: paper table, point %s: %w", p.Label, err)
			}
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return analysis.Table{}, "", fmt.Errorf("reports: paper table %s %s: no point of the set ran (%s)", opts.Paper, opts.Table, s)
	}
	t, note, err := PaperTable(cells, opts.Layout)
	if err != nil {
		return analysis.Table{}, "", err
	}
	if fixed := fixedLabels(cells); fixed != "" {
		note = "Ours, in every cell: " + fixed + ". " + note
	}
	if more := s.notShown(); more != "" {
		note += " " + more
	}
	return t, note, nil
}

// fixedLabels names the labels every cell shares (a backbone, an
// embedder), which no column shows.
func fixedLabels(cells []PaperCell) string {
	var out []string
	for _, f := range []struct {
		name string
		get  func(PaperQuery) string
	}{
		{"system", func(q PaperQuery) string { return q.System }},
		{"backbone", func(q PaperQuery) string { return q.Backbone }},
		{"embedder", func(q PaperQuery) string { return q.Embedder }},
		{"units", func(q PaperQuery) string { return q.Unit }},
	} {
		v := f.get(cells[0].Query)
		same := v != ""
		for _, c := range cells {
			same = same && f.get(c.Query) == v
		}
		if same {
			out = append(out, f.name+" "+v)
		}
	}
	return strings.Join(out, ", ")
}

// knowMePart is KnowMe-Bench's part of a dataset name: "dataset1" ->
// "dataset 1".
func knowMePart(name string) string {
	if m := regexp.MustCompile(`^dataset\s*(\d+)$`).FindStringSubmatch(name); m != nil {
		return "dataset " + m[1]
	}
	return name
}

// notShown is the set's notes, skips and failures as a sentence list.
func (s *Set) notShown() string {
	var parts []string
	parts = append(parts, s.Notes...)
	parts = append(parts, s.Skips()...)
	parts = append(parts, s.Failures()...)
	return strings.Join(parts, "; ")
}

// paperLabelOr is the paper's label of a metric, or the metric's own name
// (a proxy's, which no paper reports).
func paperLabelOr(m string) string {
	if l, ok := PaperMetricLabel(m); ok {
		return l
	}
	return m
}

// paperMetrics are the metrics of a paper's table that every point that
// ran has, in the table's order; where an LLM judge's metric is missing
// (offline), the proxy memlab has for it stands there.
func (s *Set) paperMetrics(paper, table string) []string {
	var want []string
	seen := map[string]bool{}
	for _, e := range PaperEntries() {
		if e.Paper != paper || e.Table != table || seen[e.Metric] {
			continue
		}
		seen[e.Metric] = true
		if m, ok := PaperMetric(e.Metric); ok {
			want = append(want, m)
		}
	}
	proxies := map[string]string{
		judge.MetricQAConsistency:     judge.MetricTokenF1,
		judge.MetricMemoryRecall:      judge.MetricEvidenceCoverage,
		judge.MetricMemoryHelpfulness: "",
		judge.MetricKnowMeScore:       judge.MetricTokenF1,
	}
	var out []string
	for _, m := range want {
		if s.everyPointHas(m) {
			out = append(out, m)
			continue
		}
		if p := proxies[m]; p != "" && s.everyPointHas(p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func (s *Set) everyPointHas(metric string) bool {
	any := false
	for _, p := range s.Points {
		if !p.Ran() {
			continue
		}
		any = true
		if ColumnsOf(p.Result.Records).Metric(metric) == nil {
			return false
		}
	}
	return any
}

// parsed is a spec parsed by the catalog, nil when it does not parse
// (then a label falls back to the text itself).
func parsed(kind catalog.Kind, spec string) *catalog.Spec {
	sp, err := catalog.Parse(kind, spec)
	if err != nil {
		return nil
	}
	return sp
}

// knob reports whether sp parsed and has the named knob.
func knob(sp *catalog.Spec, name string) bool { return sp != nil && sp.Has(name) }

// entryName is a spec's component name ("flat" of flat(dense:lsa)).
func entryName(kind catalog.Kind, spec string) string {
	if sp := parsed(kind, spec); sp != nil {
		return sp.Entry.Name
	}
	name, _, _ := strings.Cut(spec, "(")
	return name
}

// PaperSystemLabel is the papers' name of a memory system spec: Flat,
// A-Mem, Mem0, Oracle (CloneMem); base, + Naive RAG, + Mem0, + MemOS
// (KnowMe-Bench, where "base" is the backbone reading the long context:
// memlab's recent, the most recent traces up to a token budget, or none);
// the spec itself for a system neither paper ran.
func PaperSystemLabel(spec string) string {
	switch entryName(catalog.KindSystem, spec) {
	case "flat":
		return "Flat"
	case "amem":
		return "A-Mem"
	case "mem0":
		return "Mem0"
	case "oracle":
		return "Oracle"
	case "naive":
		return "+ Naive RAG"
	case "memos":
		return "+ MemOS"
	case "recent", "none":
		return "base"
	}
	return spec
}

// knowMeSystems are the KnowMe-Bench labels PaperSystemLabel gives; a
// KnowMe table shows mem0 as "+ Mem0".
var knowMeSystems = map[string]string{"Mem0": "+ Mem0"}

// PaperBackboneLabel is the papers' name of a reader spec's model: LLaMA
// (a Llama 3.1 8B), 4o-mini, Qwen3-32B, GPT-5-mini; the offline reader is
// "extractive (offline)" and any other model keeps its name, so no
// published figure is put beside a backbone the paper did not use.
func PaperBackboneLabel(spec string) string {
	sp := parsed(catalog.KindReader, spec)
	if sp == nil {
		return spec
	}
	if sp.Entry.Name == "extractive" {
		return "extractive (offline)"
	}
	model := ""
	if knob(sp, "model") {
		model = sp.Str("model")
	}
	m := strings.ToLower(model)
	switch {
	case m == "":
		return "backbone role"
	case strings.Contains(m, "llama") && strings.Contains(m, "8b"):
		return "LLaMA"
	case strings.Contains(m, "4o-mini"):
		return "4o-mini"
	case strings.Contains(m, "qwen3-32b"):
		return "Qwen3-32B"
	case strings.Contains(m, "gpt-5-mini"):
		return "GPT-5-mini"
	}
	return model
}

// embedderVaries reports whether two points that ran with one paper
// system label have different embedders (Flat over BM25 and over LSA):
// their cells of a table that fixes the embedder would share one key.
func (s *Set) embedderVaries() bool {
	seen := map[string]string{}
	for _, p := range s.Points {
		if !p.Ran() {
			continue
		}
		sys, emb := PaperSystemLabel(p.System), PaperEmbedderLabel(p.System)
		if e, ok := seen[sys]; ok && e != emb {
			return true
		}
		seen[sys] = emb
	}
	return false
}

// unitsShared are the paper unit labels (PaperUnitLabel) that several
// system specs of the set's ran points take (merge and separate are both
// "w/o org"): CloneMem Table 6 gives one figure per label, and their
// cells would share one key.
func (s *Set) unitsShared() map[string]bool {
	specs := map[string]map[string]bool{}
	for _, p := range s.Points {
		if !p.Ran() {
			continue
		}
		l := PaperUnitLabel(p.System)
		if specs[l] == nil {
			specs[l] = map[string]bool{}
		}
		specs[l][p.System] = true
	}
	out := map[string]bool{}
	for l, ss := range specs {
		out[l] = len(ss) > 1
	}
	return out
}

// joinOf is a flat spec's join mode, "join=merge" ("join=auto" when the
// spec leaves the default).
func joinOf(spec string) string {
	if sp := parsed(catalog.KindSystem, spec); knob(sp, "join") {
		return "join=" + sp.Str("join")
	}
	return "join=auto"
}

// PaperEmbedderLabel is the papers' name of a system spec's embedder:
// Contriever, text-emb-3-small; BM25, "hashed (offline)", "lsa
// (offline)" or the model's name otherwise; "" for a system that embeds
// nothing (timeline, oracle, recent, none, weaviate).
func PaperEmbedderLabel(spec string) string {
	sp := parsed(catalog.KindSystem, spec)
	if !knob(sp, "embedder") {
		return "" // no embedder
	}
	if sp.Entry.Name == "flat" && sp.Str("scorer") == "bm25" {
		return "BM25"
	}
	emb := sp.Sub("embedder")
	switch {
	case emb == nil:
		return ""
	case emb.Entry.Name == "lsa":
		return "lsa (offline)"
	case emb.Entry.Name == "hashed":
		return "hashed (offline)"
	}
	m := strings.ToLower(emb.Str("model"))
	switch {
	case strings.Contains(m, "contriever"):
		return "Contriever"
	case strings.Contains(m, "text-embedding-3-small"):
		return "text-emb-3-small"
	case m == "":
		return "embedder role" // the role's default model
	}
	return m
}

// PaperUnitLabel is CloneMem Table 6's name of a flat spec's retrieval
// units: "w/o mem" (raw traces only), "w/o org" (extracted memories
// only), "combined" (both, as units of their own or merged into one
// document with join=merge_raw).
func PaperUnitLabel(spec string) string {
	sp := parsed(catalog.KindSystem, spec)
	if !knob(sp, "units") {
		return "w/o mem"
	}
	units := sp.List("units")
	raw := slices.Contains(units, "raw")
	switch {
	case knob(sp, "join") && sp.Str("join") == "merge_raw":
		return "combined" // the raw text merged with the extractions
	case raw && len(units) == 1:
		return "w/o mem"
	case raw:
		return "combined"
	}
	return "w/o org"
}
