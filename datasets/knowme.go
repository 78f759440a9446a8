package datasets

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memlab/memlab/text"
)

// Canonical keys of a KnowMe stream entry in Trace.Fields: the location and
// the paper's five primitives. Source keys are matched in any casing and
// under common aliases (inner_thought, inner thought, inner_thoughts... all
// become FieldMind); other keys (e.g. "category") are kept under their own
// name.
const (
	FieldLocation    = "location"
	FieldAction      = "action"
	FieldDialogue    = "dialogue"
	FieldEnvironment = "environment"
	FieldBackground  = "background"
	FieldMind        = "mind"
)

// MediumStream is the medium of a KnowMe stream entry.
const MediumStream = "stream"

// streamAliases maps a normalised source key (lower case, spaces and dashes
// as underscores) to its canonical name.
var streamAliases = map[string]string{
	"id":              "id",
	"timestamp":       "timestamp",
	"time":            "timestamp",
	"datetime":        "timestamp",
	"date_time":       "timestamp",
	"location":        FieldLocation,
	"place":           FieldLocation,
	"action":          FieldAction,
	"actions":         FieldAction,
	"dialogue":        FieldDialogue,
	"dialogues":       FieldDialogue,
	"dialog":          FieldDialogue,
	"environment":     FieldEnvironment,
	"background":      FieldBackground,
	"mind":            FieldMind,
	"inner_thought":   FieldMind,
	"inner_thoughts":  FieldMind,
	"innerthought":    FieldMind,
	"innerthoughts":   FieldMind,
	"inner_mind":      FieldMind,
	"inner_monologue": FieldMind,
	"thought":         FieldMind,
	"thoughts":        FieldMind,
}

// streamRequired are the canonical keys every stream entry should have.
var streamRequired = []string{"id", "timestamp", FieldLocation, FieldAction, FieldDialogue, FieldEnvironment, FieldBackground, FieldMind}

// primitiveLabels are the primitives in text order with their labels.
var primitiveLabels = []struct{ key, label string }{
	{FieldAction, "Action"},
	{FieldDialogue, "Dialogue"},
	{FieldEnvironment, "Environment"},
	{FieldBackground, "Background"},
	{FieldMind, "Mind"},
}

// Messages of the two kinds of backwards_time defects, so a report can tell
// them apart.
const (
	msgBackwardsEarlier = "timestamp goes back"
	msgBackwardsLost    = "timestamp goes from a known time to"
)

func normKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	return strings.NewReplacer(" ", "_", "-", "_").Replace(k)
}

// taskSuffix strips the question/answer suffix from a task file's base name.
var taskSuffix = regexp.MustCompile(`(?i)[ _-]*(questions?|answers?)$`)

// taskName returns the task name of a question or answer file.
func taskName(file string) string {
	base := path.Base(file)
	base = base[:len(base)-len(path.Ext(base))]
	return strings.TrimSpace(taskSuffix.ReplaceAllString(base, ""))
}

// knowMe loads the root as a KnowMe-Bench dataset directory.
func (l *loader) knowMe() (*Dataset, error) {
	if l.isFile {
		return nil, l.errf("not a KnowMe-Bench directory: want a directory with input/ and question/, got a file")
	}
	entries, err := fs.ReadDir(l.fsys, l.root)
	if err != nil {
		return nil, l.errf("%w", err)
	}
	inDir, qDir, aDir := findDir(entries, "input"), findDir(entries, "question"), findDir(entries, "answer")
	if inDir == "" || qDir == "" {
		return nil, l.errf("not a KnowMe-Bench directory: want input/ and question/ subdirectories")
	}
	d := &Dataset{Format: FormatKnowMe}

	inputs, err := l.dirJSON(inDir)
	if err != nil {
		return nil, err
	}
	if len(inputs) == 0 {
		return nil, l.errf("empty dataset: no .json stream file in %s", l.display(inDir))
	}
	for _, rel := range inputs {
		v, err := l.decode(rel)
		if err != nil {
			return nil, err
		}
		list, ok := v.([]any)
		if !ok {
			return nil, l.errf("%s$: want a list of stream entries, got a JSON %s", l.where(rel), describeShape(v))
		}
		base := path.Base(rel)
		c := &Corpus{ID: base[:len(base)-len(path.Ext(base))]}
		c.Name = c.ID
		parseStream(c, rel, list, &d.Report)
		d.Corpora = append(d.Corpora, c)
	}
	corpus := d.Corpora[0]
	if len(d.Corpora) > 1 {
		d.Report.Add(qDir, "", DefectBadValue, fmt.Sprintf("%d stream files in %s: questions are asked of the first, %q", len(d.Corpora), inDir, corpus.ID))
	}
	ids := map[string]bool{}
	for _, t := range corpus.Traces {
		ids[t.ID] = true
	}

	qFiles, err := l.dirJSON(qDir)
	if err != nil {
		return nil, err
	}
	var aFiles []string
	if aDir != "" {
		if aFiles, err = l.dirJSON(aDir); err != nil {
			return nil, err
		}
	} else {
		d.Report.Add("", "", DefectMissingField, "no answer/ directory: no question has a reference answer")
	}
	answersByTask := map[string]string{}
	for _, f := range aFiles {
		key := strings.ToLower(taskName(f))
		if prev, dup := answersByTask[key]; dup {
			d.Report.Add(f, "", DefectDuplicateID, fmt.Sprintf("task %q also has answer file %s (not used)", taskName(f), prev))
			continue
		}
		answersByTask[key] = f
	}
	usedAnswers := map[string]bool{}
	seenTask := map[string]string{}
	for _, qf := range qFiles {
		task := taskName(qf)
		key := strings.ToLower(task)
		if prev, dup := seenTask[key]; dup {
			d.Report.Add(qf, "", DefectDuplicateID, fmt.Sprintf("task %q also has question file %s", task, prev))
		}
		seenTask[key] = qf
		v, err := l.decode(qf)
		if err != nil {
			return nil, err
		}
		qlist, ok := v.([]any)
		if !ok {
			return nil, l.errf("%s$: want a list of questions, got a JSON %s", l.where(qf), describeShape(v))
		}
		var alist []any
		af := answersByTask[key]
		if af != "" && !usedAnswers[af] {
			usedAnswers[af] = true
			av, err := l.decode(af)
			if err != nil {
				return nil, err
			}
			if alist, ok = av.([]any); !ok {
				return nil, l.errf("%s$: want a list of answers, got a JSON %s", l.where(af), describeShape(av))
			}
		} else if af == "" && aDir != "" {
			d.Report.Add(qf, "", DefectUnmatched, fmt.Sprintf("task %q has no answer file in %s", task, aDir))
		}
		tp := &taskParser{task: task, qFile: qf, aFile: af, corpus: corpus.ID, ids: ids, rep: &d.Report}
		d.Questions = append(d.Questions, tp.parse(qlist, alist)...)
	}
	for _, af := range aFiles {
		if usedAnswers[af] || answersByTask[strings.ToLower(taskName(af))] != af {
			continue
		}
		d.Report.Add(af, "", DefectUnmatched, fmt.Sprintf("answer file of task %q has no question file", taskName(af)))
	}
	uniqueQuestionIDs(d)
	return d, nil
}

// dirJSON lists the .json files directly in a subdirectory of the root,
// relative to the root, in name order. A directory with a .json name is
// reported (DefectNotAFile) and not read.
func (l *loader) dirJSON(dir string) ([]string, error) {
	entries, err := fs.ReadDir(l.fsys, path.Join(l.root, dir))
	if err != nil {
		return nil, l.errf("list %s: %w", l.display(dir), err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !strings.EqualFold(path.Ext(e.Name()), ".json") {
			continue
		}
		if e.IsDir() {
			l.rep.Add(path.Join(dir, e.Name()), "", DefectNotAFile, fmt.Sprintf("%s is a directory, not a JSON file: not read", l.display(path.Join(dir, e.Name()))))
			continue
		}
		out = append(out, path.Join(dir, e.Name()))
	}
	sort.Strings(out)
	return out, nil
}

// parseStream turns stream entries into the corpus's traces.
func parseStream(c *Corpus, file string, list []any, rep *Report) {
	add := func(p, kind, format string, args ...any) { rep.Add(file, p, kind, fmt.Sprintf(format, args...)) }
	ids := map[string]string{}
	var texts []string
	var prev time.Time // time of the previous entry; zero when unknown
	prevRaw := ""
	for i, item := range list {
		ep := index("$", i)
		m, ok := item.(map[string]any)
		if !ok {
			add(ep, DefectBadValue, "stream entry is a JSON %s; want an object (not kept)", jsonType(item))
			prev, prevRaw = time.Time{}, ""
			continue
		}
		t := Trace{Medium: MediumStream, Fields: map[string]any{}}
		canon := map[string]any{}
		srcKey := map[string]string{}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			name, known := streamAliases[normKey(k)]
			if !known {
				t.Fields[k] = normalize(m[k])
				continue
			}
			if first, dup := srcKey[name]; dup {
				add(jsonPath(ep, k), DefectDuplicateID, "key %q repeats %q (both mean %s); kept under its own name", k, first, name)
				t.Fields[k] = normalize(m[k])
				continue
			}
			srcKey[name] = k
			canon[name] = m[k]
		}
		var missing []string
		for _, k := range streamRequired {
			if _, ok := canon[k]; !ok {
				missing = append(missing, k)
			}
		}
		if v, ok := canon["id"]; ok {
			if s, ok := idString(v); ok {
				t.ID = s
			} else {
				add(jsonPath(ep, srcKey["id"]), DefectBadValue, "id is a %s; want a number or string", jsonType(v))
			}
		}
		if len(missing) > 0 {
			add(ep, DefectMissingField, "entry id %s lacks %s", t.ID, strings.Join(missing, ", ")+mindNote(missing))
		}
		if t.ID != "" {
			if first, dup := ids[t.ID]; dup {
				add(jsonPath(ep, srcKey["id"]), DefectDuplicateID, "entry id %s also at %s", t.ID, first)
			} else {
				ids[t.ID] = ep
			}
		}
		if v, ok := canon["timestamp"]; ok {
			tsPath := jsonPath(ep, srcKey["timestamp"])
			s, isStr := v.(string)
			switch {
			case v == nil || (isStr && strings.TrimSpace(s) == ""):
				add(tsPath, DefectEmptyTime, "entry id %s has an empty timestamp", t.ID)
			case !isStr:
				add(tsPath, DefectBadTime, "entry id %s: timestamp is a %s; want a string", t.ID, jsonType(v))
				s = textOf(v)
			default:
				tm, err := ParseTime(s)
				if err != nil {
					add(tsPath, DefectBadTime, "entry id %s: timestamp %q cannot be parsed", t.ID, s)
				}
				t.Time = tm
			}
			t.TimeRaw = s
			// Backwards: compared with the entry just before. Losing the
			// time (a known time followed by an empty or unparseable one)
			// also breaks the order; the report tells the two apart.
			if !prev.IsZero() {
				if t.Time.IsZero() {
					add(tsPath, DefectBackwardsTime, "%s an unknown one: %q after %q", msgBackwardsLost, t.TimeRaw, prevRaw)
				} else if t.Time.Before(prev) {
					add(tsPath, DefectBackwardsTime, "%s: %q after %q", msgBackwardsEarlier, t.TimeRaw, prevRaw)
				}
			}
		}
		prev, prevRaw = t.Time, t.TimeRaw
		for _, k := range []string{FieldLocation, FieldAction, FieldDialogue, FieldEnvironment, FieldBackground, FieldMind} {
			if v, ok := canon[k]; ok {
				rep.text(file, jsonPath(ep, srcKey[k]), srcKey[k], v)
				t.Fields[k] = normalize(v)
			}
		}
		t.Text = streamText(t.TimeRaw, canon)
		texts = append(texts, t.Text)
		c.Traces = append(c.Traces, t)
	}
	c.Language = detectLanguage(texts)
}

// streamText builds the text of a stream entry: a "[timestamp] @ location"
// line (the parts that are known), then the non-null primitives in the order
// Action, Dialogue, Environment, Background, Mind, each labelled.
func streamText(ts string, canon map[string]any) string {
	var b strings.Builder
	var head []string
	if ts = strings.TrimSpace(ts); ts != "" {
		head = append(head, "["+ts+"]")
	}
	if loc := strings.TrimSpace(textOf(canon[FieldLocation])); loc != "" {
		head = append(head, "@ "+loc)
	}
	if len(head) > 0 {
		b.WriteString(strings.Join(head, " "))
	}
	for _, p := range primitiveLabels {
		s := strings.TrimSpace(textOf(canon[p.key]))
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.label)
		b.WriteString(": ")
		b.WriteString(s)
	}
	return b.String()
}

// taskParser joins one task's questions with its answers.
type taskParser struct {
	task, qFile, aFile string
	corpus             string
	ids                map[string]bool
	rep                *Report
}

func (tp *taskParser) add(file, p, kind, format string, args ...any) {
	tp.rep.Add(file, p, kind, fmt.Sprintf(format, args...))
}

// lowerKeys returns m with its keys in lower case (the first spelling wins).
func lowerKeys(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		lk := strings.ToLower(strings.TrimSpace(k))
		if _, dup := out[lk]; !dup {
			out[lk] = m[k]
		}
	}
	return out
}

func (tp *taskParser) parse(qlist, alist []any) []Question {
	// Index the answers by id.
	type answer struct {
		path string
		m    map[string]any
	}
	answers := map[string]answer{}
	var order []string
	for i, item := range alist {
		ap := index("$", i)
		m, ok := item.(map[string]any)
		if !ok {
			tp.add(tp.aFile, ap, DefectBadValue, "answer is a JSON %s; want an object (not kept)", jsonType(item))
			continue
		}
		m = lowerKeys(m)
		id, ok := idString(m["id"])
		if !ok || id == "" {
			tp.add(tp.aFile, ap, DefectMissingField, "answer lacks id (not matched to a question)")
			continue
		}
		if prev, dup := answers[id]; dup {
			tp.add(tp.aFile, ap+".id", DefectDuplicateID, "answer id %s also at %s (not used)", id, prev.path)
			continue
		}
		answers[id] = answer{ap, m}
		order = append(order, id)
	}

	var out []Question
	matched := map[string]bool{}
	seen := map[string]string{}
	for i, item := range qlist {
		qp := index("$", i)
		m, ok := item.(map[string]any)
		if !ok {
			tp.add(tp.qFile, qp, DefectBadValue, "question is a JSON %s; want an object (not kept)", jsonType(item))
			continue
		}
		m = lowerKeys(m)
		q := Question{CorpusID: tp.corpus, Task: tp.task}
		id, ok := idString(m["id"])
		if !ok || id == "" {
			tp.add(tp.qFile, qp, DefectMissingField, "question lacks id")
			id = qp
		} else {
			setExtra(&q, "id", normalize(m["id"]))
		}
		q.ID = tp.task + "/" + id
		if v, ok := m["question"]; ok {
			q.Text = tp.rep.text(tp.qFile, qp+".question", "question", v)
		} else {
			tp.add(tp.qFile, qp, DefectMissingField, "question %s lacks question", id)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if k != "id" && k != "question" {
				setExtra(&q, k, normalize(m[k]))
			}
		}
		if first, dup := seen[id]; dup {
			tp.add(tp.qFile, qp+".id", DefectDuplicateID, "question id %s also at %s", id, first)
			tp.add(tp.qFile, qp, DefectNoAnswer, "question %s (duplicate id) is not matched to an answer", id)
			out = append(out, q)
			continue
		}
		seen[id] = qp
		a, ok := answers[id]
		if !ok {
			if tp.aFile != "" {
				tp.add(tp.qFile, qp, DefectNoAnswer, "question %s has no answer record in %s", id, tp.aFile)
			} else {
				tp.add(tp.qFile, qp, DefectNoAnswer, "question %s has no answer (no answer file)", id)
			}
			out = append(out, q)
			continue
		}
		matched[id] = true
		out = append(out, tp.withAnswer(q, id, a.path, a.m))
	}
	for _, id := range order {
		if !matched[id] {
			a := answers[id]
			tp.add(tp.aFile, a.path, DefectUnmatched, "answer id %s has no question in %s: %s", id, tp.qFile, text.Clip(textOf(a.m["answer"]), 80))
		}
	}
	return out
}

// withAnswer fills q from its answer record m (at ap in the answer file).
func (tp *taskParser) withAnswer(q Question, id, ap string, m map[string]any) Question {
	switch a := m["answer"].(type) {
	case nil:
	case []any:
		q.Ordering, q.Answer = tp.ordering(ap+".answer", a, &q)
	default:
		q.Answer = tp.rep.text(tp.aFile, ap+".answer", "answer", a)
	}
	if strings.TrimSpace(q.Answer) == "" {
		tp.add(tp.aFile, ap+".answer", DefectNoAnswer, "question %s has an empty or null answer", id)
	}
	if ev, ok := m["evidence"]; ok && ev != nil {
		ids := tp.evidence(ap+".evidence", ev)
		if len(ids) > 0 {
			q.Evidence = []EvidenceGroup{{TraceIDs: ids}}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k == "id" || k == "answer" || k == "evidence" {
			continue
		}
		v := normalize(m[k])
		if old, clash := q.Extra[k]; clash && fmt.Sprint(old) != fmt.Sprint(v) {
			k = "answer." + k
		}
		setExtra(&q, k, v)
	}
	return q
}

// ordering reads a ranked answer: a list of {rank, event, reasoning} objects
// (sorted by rank) or of strings (ranked in list order). The text answer is
// the events in rank order, one per line.
func (tp *taskParser) ordering(ap string, list []any, q *Question) ([]RankedEvent, string) {
	var evs []RankedEvent
	for i, e := range list {
		ip := index(ap, i)
		switch x := e.(type) {
		case string:
			evs = append(evs, RankedEvent{Rank: i + 1, Event: x})
		case map[string]any:
			x = lowerKeys(x)
			r := RankedEvent{Rank: i + 1, Event: tp.rep.text(tp.aFile, ip+".event", "event", x["event"]),
				Reasoning: tp.rep.text(tp.aFile, ip+".reasoning", "reasoning", x["reasoning"])}
			if s, ok := idString(x["rank"]); ok {
				if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
					r.Rank = n
				} else {
					tp.add(tp.aFile, ip+".rank", DefectBadValue, "rank %q is not an integer; using position %d", s, i+1)
				}
			} else {
				tp.add(tp.aFile, ip, DefectMissingField, "ranked event lacks rank; using position %d", i+1)
			}
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if k != "rank" && k != "event" && k != "reasoning" {
					setExtra(q, fmt.Sprintf("answer[%d].%s", i, k), normalize(x[k]))
				}
			}
			evs = append(evs, r)
		default:
			tp.add(tp.aFile, ip, DefectBadValue, "ranked event is a JSON %s; want an object {rank, event, reasoning}", jsonType(e))
		}
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Rank < evs[j].Rank })
	lines := make([]string, len(evs))
	for i, e := range evs {
		lines[i] = e.Event
	}
	return evs, strings.Join(lines, "\n")
}

// evidence reads evidence given as a list of ids, a single number or a
// numeric string; numeric ids are rendered in decimal. Ids not in the stream
// are recorded with their exact path.
func (tp *taskParser) evidence(ep string, v any) []string {
	var out []string
	one := func(ip string, e any) {
		s, ok := idString(e)
		if !ok {
			tp.add(tp.aFile, ip, DefectBadValue, "evidence id is a %s; want a number or string", jsonType(e))
			return
		}
		s = strings.TrimSpace(s)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			s = strconv.FormatInt(n, 10)
		}
		if !tp.ids[s] {
			tp.add(tp.aFile, ip, DefectUnknownEvidence, "evidence id %s is not in the stream", s)
		}
		out = append(out, s)
	}
	if list, ok := v.([]any); ok {
		for i, e := range list {
			one(index(ep, i), e)
		}
	} else {
		one(ep, v)
	}
	return out
}

// mindNote explains the canonical name "mind" when it is among missing keys.
func mindNote(missing []string) string {
	if contains(missing, FieldMind) {
		return " (mind = inner_thought)"
	}
	return ""
}
