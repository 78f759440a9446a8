package datasets

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
)

// timeLayouts are the time formats accepted in source files, tried in order.
var timeLayouts = []string{
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	time.RFC3339Nano,
	"2006-01-02",
}

// ParseTime parses a source time in one of the accepted layouts:
// "2006-01-02T15:04:05", "2006-01-02 15:04:05", RFC 3339 and "2006-01-02".
// Times without a zone are read as UTC. Surrounding spaces are ignored.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("datasets: parse time %q: want YYYY-MM-DD, YYYY-MM-DD HH:MM:SS, YYYY-MM-DDTHH:MM:SS or RFC 3339", s)
}

// langSuffix finds the language of a CloneMem file from its name:
// <name>_<person_id>_benchmark_<lang>.json, or a bare _en / _zh suffix.
var langSuffix = regexp.MustCompile(`(?i)(?:_benchmark_([a-z]{2,3})|_(en|zh))\.json$`)

// langFromName returns the language written in a CloneMem file name, or "".
func langFromName(name string) string {
	m := langSuffix.FindStringSubmatch(path.Base(name))
	if m == nil {
		return ""
	}
	return strings.ToLower(m[1] + m[2])
}

// Keys of a CloneMem persona file.
var (
	personaKeys  = map[string]bool{"person_name": true, "person_id": true, "context": true, "questions": true, "qa_items": true}
	traceKeys    = map[string]bool{"id": true, "medium": true, "event_date": true, "content": true}
	questionKeys = map[string]bool{
		"id": true, "question": true, "question_type": true, "question_time": true, "answer": true,
		"dimension": true, "digital_trace_ids": true, "media_ids": true, "evidence": true,
		"choices": true, "correct_choice_id": true,
	}
	evidenceIDKeys = []string{"digital_trace_ids", "related_media_id", "media_ids"}
)

// cloneMem loads the root as a CloneMem persona file or a directory of them.
func (l *loader) cloneMem() (*Dataset, error) {
	files, err := l.datasetFiles("CloneMem persona files")
	if err != nil {
		return nil, err
	}
	d := &Dataset{Format: FormatCloneMem}
	seen := map[string]bool{} // corpus ids
	for _, rel := range files {
		v, err := l.decode(rel)
		if err != nil {
			return nil, err
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, l.errf("%s$: want a CloneMem persona object, got a JSON %s", l.where(rel), jsonType(v))
		}
		if !isPersona(obj) {
			return nil, l.errf("%s$: want a CloneMem persona object with \"context\" and \"questions\" or \"qa_items\", got an %s", l.where(rel), describeShape(obj))
		}
		p := &personaParser{file: rel, rep: &d.Report}
		c, qs, err := p.parse(obj)
		if err != nil {
			return nil, l.errf("%s%w", l.where(rel), err)
		}
		if seen[c.ID] {
			old := c.ID
			for n := 2; seen[c.ID]; n++ {
				c.ID = fmt.Sprintf("%s#%d", old, n)
			}
			for i := range qs {
				qs[i].CorpusID = c.ID
			}
			d.Report.Add(rel, "$.person_id", DefectDuplicateID, fmt.Sprintf("corpus id %q is also used by another file; renamed %q", old, c.ID))
		}
		seen[c.ID] = true
		d.Corpora = append(d.Corpora, c)
		d.Questions = append(d.Questions, qs...)
	}
	uniqueQuestionIDs(d)
	return d, nil
}

// uniqueQuestionIDs makes question ids unique across the dataset: a clash
// with another corpus becomes "<corpus id>/<id>", a clash within a corpus
// (already reported) gets "#2", "#3"...; the source id is kept in Extra["id"].
func uniqueQuestionIDs(d *Dataset) {
	seen := map[string]bool{}
	for i := range d.Questions {
		q := &d.Questions[i]
		if !seen[q.ID] {
			seen[q.ID] = true
			continue
		}
		orig := q.ID
		id := q.CorpusID + "/" + orig
		for n := 2; seen[id]; n++ {
			id = fmt.Sprintf("%s/%s#%d", q.CorpusID, orig, n)
		}
		q.ID = id
		seen[id] = true
		if q.Extra == nil {
			q.Extra = map[string]any{}
		}
		if _, ok := q.Extra["id"]; !ok {
			q.Extra["id"] = orig
		}
	}
}

// personaParser parses one persona file, recording defects.
type personaParser struct {
	file string
	rep  *Report
	// times holds each trace's time as parsed and as written, by id, to
	// check the evidence of questions against their question_time.
	times map[string]traceTime
}

// traceTime is a trace's parsed and source time.
type traceTime struct {
	t   time.Time
	raw string
}

// text reads a field that should hold text (Report.text).
func (p *personaParser) text(path, name string, v any) string {
	return p.rep.text(p.file, path, name, v)
}

func (p *personaParser) add(path, kind, format string, args ...any) {
	p.rep.Add(p.file, path, kind, fmt.Sprintf(format, args...))
}

// parse turns a persona object into its corpus and questions. Only a wrong
// type for context or the question list is an error.
func (p *personaParser) parse(obj map[string]any) (*Corpus, []Question, error) {
	c := &Corpus{}
	if v, ok := obj["person_id"]; ok {
		if s, ok := idString(v); ok && s != "" {
			c.ID = s
		} else {
			p.add("$.person_id", DefectBadValue, "person_id is a %s %q; want a non-empty string or number", jsonType(v), textOf(v))
		}
	} else {
		p.add("$", DefectMissingField, "persona lacks person_id")
	}
	if v, ok := obj["person_name"]; ok {
		if s, ok := v.(string); ok {
			c.Name = s
		} else {
			p.add("$.person_name", DefectBadValue, "person_name is a %s; want a string", jsonType(v))
		}
	} else {
		p.add("$", DefectMissingField, "persona lacks person_name")
	}
	if c.ID == "" {
		c.ID = strings.TrimSuffix(path.Base(p.file), path.Ext(p.file))
	}
	c.Language = langFromName(p.file)
	if c.Language != "" {
		c.ID += "_" + c.Language
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !personaKeys[k] {
			p.add(jsonPath("$", k), DefectBadValue, "unexpected top-level field %q is not kept", k)
		}
	}

	ctx, ok := obj["context"].([]any)
	if !ok {
		return nil, nil, fmt.Errorf("$.context: want a list of traces, got a JSON %s", jsonType(obj["context"]))
	}
	ids := map[string]string{} // trace id -> path of its first occurrence
	p.times = map[string]traceTime{}
	var texts []string
	var last traceTime // the last known time in context order
	for i, item := range ctx {
		tp := index("$.context", i)
		t, ok := p.trace(tp, item)
		if !ok {
			continue
		}
		if !t.Time.IsZero() {
			if !last.t.IsZero() && t.Time.Before(last.t) {
				p.add(tp+".event_date", DefectBackwardsTime, "%s: %q after %q (trace %q comes later in the context)", msgBackwardsEarlier, t.TimeRaw, last.raw, t.ID)
			}
			last = traceTime{t.Time, t.TimeRaw}
		}
		if _, seen := p.times[t.ID]; !seen && t.ID != "" {
			p.times[t.ID] = traceTime{t.Time, t.TimeRaw}
		}
		if t.ID != "" {
			if first, dup := ids[t.ID]; dup {
				p.add(tp+".id", DefectDuplicateID, "trace id %q also at %s", t.ID, first)
			} else {
				ids[t.ID] = tp
			}
		}
		texts = append(texts, t.Text)
		c.Traces = append(c.Traces, t)
	}
	if c.Language == "" {
		c.Language = detectLanguage(texts)
	}

	var qs []Question
	qids := map[string]string{}
	for _, key := range []string{"questions", "qa_items"} {
		raw, present := obj[key]
		if !present {
			continue
		}
		list, ok := raw.([]any)
		if !ok {
			if raw == nil {
				p.add("$."+key, DefectBadValue, "%s is null; want a list", key)
				continue
			}
			return nil, nil, fmt.Errorf("$.%s: want a list of questions, got a JSON %s", key, jsonType(raw))
		}
		for i, item := range list {
			qp := index("$."+key, i)
			q, ok := p.question(qp, item, ids)
			if !ok {
				continue
			}
			q.CorpusID = c.ID
			if q.ID != "" {
				if first, dup := qids[q.ID]; dup {
					p.add(qp+".id", DefectDuplicateID, "question id %q also at %s", q.ID, first)
				} else {
					qids[q.ID] = qp
				}
			}
			qs = append(qs, q)
		}
	}
	return c, qs, nil
}

// trace parses one context item.
func (p *personaParser) trace(tp string, item any) (Trace, bool) {
	m, ok := item.(map[string]any)
	if !ok {
		p.add(tp, DefectBadValue, "trace is a JSON %s; want an object (not kept)", jsonType(item))
		return Trace{}, false
	}
	var t Trace
	var missing []string
	if v, ok := m["id"]; ok {
		if s, ok := idString(v); ok {
			t.ID = s
		} else {
			p.add(tp+".id", DefectBadValue, "id is a %s; want a string or number", jsonType(v))
		}
	} else {
		missing = append(missing, "id")
	}
	if v, ok := m["medium"]; ok {
		t.Medium = p.text(tp+".medium", "medium", v)
	} else {
		missing = append(missing, "medium")
	}
	if v, ok := m["event_date"]; ok {
		t.Time, t.TimeRaw = p.time(tp+".event_date", v, "event_date")
	} else {
		missing = append(missing, "event_date")
	}
	if v, ok := m["content"]; ok {
		t.Text = p.text(tp+".content", "content", v)
	} else {
		missing = append(missing, "content")
	}
	if len(missing) > 0 {
		p.add(tp, DefectMissingField, "trace %q lacks %s", t.ID, strings.Join(missing, ", "))
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !traceKeys[k] {
			if t.Fields == nil {
				t.Fields = map[string]any{}
			}
			t.Fields[k] = normalize(m[k])
		}
	}
	return t, true
}

// time parses a time field, recording empty and unparseable values.
func (p *personaParser) time(fp string, v any, name string) (time.Time, string) {
	s, ok := v.(string)
	if v == nil || (ok && strings.TrimSpace(s) == "") {
		p.add(fp, DefectEmptyTime, "%s is empty", name)
		return time.Time{}, s
	}
	if !ok {
		p.add(fp, DefectBadTime, "%s is a %s %s; want a string", name, jsonType(v), textOf(v))
		return time.Time{}, textOf(v)
	}
	t, err := ParseTime(s)
	if err != nil {
		p.add(fp, DefectBadTime, "%s %q cannot be parsed", name, s)
	}
	return t, s
}

// question parses one question item; ids maps the corpus's trace ids.
func (p *personaParser) question(qp string, item any, ids map[string]string) (Question, bool) {
	m, ok := item.(map[string]any)
	if !ok {
		p.add(qp, DefectBadValue, "question is a JSON %s; want an object (not kept)", jsonType(item))
		return Question{}, false
	}
	var q Question
	var missing []string
	str := func(key string, dst *string) {
		v, ok := m[key]
		if !ok {
			missing = append(missing, key)
			return
		}
		if key == "id" {
			s, ok := idString(v)
			if !ok {
				p.add(jsonPath(qp, key), DefectBadValue, "id is a %s; want a string or number", jsonType(v))
			}
			*dst = s
			return
		}
		*dst = p.text(jsonPath(qp, key), key, v)
	}
	str("id", &q.ID)
	str("question", &q.Text)
	str("question_type", &q.Task)
	str("dimension", &q.Dimension)
	var askedRaw string
	if v, ok := m["question_time"]; ok {
		q.AskedAt, askedRaw = p.time(qp+".question_time", v, "question_time")
	} else {
		missing = append(missing, "question_time")
	}
	if len(missing) > 0 {
		p.add(qp, DefectMissingField, "question %q lacks %s", q.ID, strings.Join(missing, ", "))
	}
	if v, ok := m["answer"]; ok && v != nil {
		q.Answer = p.text(qp+".answer", "answer", v)
	}
	asked := traceTime{q.AskedAt, askedRaw}
	if strings.TrimSpace(q.Answer) == "" {
		p.add(qp+".answer", DefectNoAnswer, "question %q has no answer", q.ID)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !questionKeys[k] {
			setExtra(&q, k, normalize(m[k]))
		}
	}

	// Question-level trace ids: kept in Extra, checked, and used as the
	// evidence when there is no evidence list.
	var qlevel []string
	for _, key := range []string{"digital_trace_ids", "media_ids"} {
		v, ok := m[key]
		if !ok || v == nil {
			continue
		}
		got := p.idList(jsonPath(qp, key), v, ids, asked)
		setExtra(&q, key, got)
		qlevel = append(qlevel, got...)
	}
	if ev, ok := m["evidence"].([]any); ok && len(ev) > 0 {
		for i, g := range ev {
			gp := index(qp+".evidence", i)
			gm, ok := g.(map[string]any)
			if !ok {
				p.add(gp, DefectBadValue, "evidence is a JSON %s; want an object {statement, digital_trace_ids}", jsonType(g))
				setExtra(&q, fmt.Sprintf("evidence[%d]", i), normalize(g))
				continue
			}
			var eg EvidenceGroup
			if s, ok := gm["statement"]; ok {
				eg.Statement = p.text(gp+".statement", "statement", s)
			}
			for _, key := range evidenceIDKeys {
				if v, ok := gm[key]; ok && v != nil {
					eg.TraceIDs = append(eg.TraceIDs, p.idList(jsonPath(gp, key), v, ids, asked)...)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(gm)) {
				if k != "statement" && !contains(evidenceIDKeys, k) {
					setExtra(&q, fmt.Sprintf("evidence[%d].%s", i, k), normalize(gm[k]))
				}
			}
			q.Evidence = append(q.Evidence, eg)
		}
	} else {
		if v, ok := m["evidence"]; ok && v != nil {
			if _, isList := v.([]any); !isList {
				p.add(qp+".evidence", DefectBadValue, "evidence is a JSON %s; want a list", jsonType(v))
				setExtra(&q, "evidence", normalize(v))
			}
		}
		if len(qlevel) > 0 {
			q.Evidence = []EvidenceGroup{{TraceIDs: qlevel}}
		}
	}

	if v, ok := m["choices"]; ok && v != nil {
		q.Choices = p.choices(qp+".choices", v)
	}
	if v, ok := m["correct_choice_id"]; ok && v != nil {
		q.Correct = p.text(qp+".correct_choice_id", "correct_choice_id", v)
	}
	if q.Correct != "" {
		if len(q.Choices) == 0 {
			p.add(qp+".correct_choice_id", DefectBadValue, "correct_choice_id %q but the question has no choices", q.Correct)
		} else if !hasChoice(q.Choices, q.Correct) {
			p.add(qp+".correct_choice_id", DefectBadValue, "correct_choice_id %q is not among the choices %s", q.Correct, choiceIDs(q.Choices))
		}
	} else if len(q.Choices) > 0 {
		p.add(qp, DefectMissingField, "question %q has choices but no correct_choice_id", q.ID)
	}
	return q, true
}

// idList reads trace ids given as a list or a single value, and records with
// their exact path the ids not in the corpus and those of traces dated after
// asked, the question's time (no system may return them, so they cap the
// recall of even the Oracle).
func (p *personaParser) idList(fp string, v any, ids map[string]string, asked traceTime) []string {
	var out []string
	check := func(ip string, e any) {
		s, ok := idString(e)
		if !ok {
			p.add(ip, DefectBadValue, "trace id is a %s; want a string or number", jsonType(e))
			return
		}
		if _, known := ids[s]; !known {
			p.add(ip, DefectUnknownEvidence, "trace id %q is not in the corpus", s)
		} else if tt := p.times[s]; !asked.t.IsZero() && tt.t.After(asked.t) {
			p.add(ip, DefectFutureEvidence, "trace %q is dated %s, after the question's question_time %s: no system may retrieve it, so it caps even the Oracle's recall", s, tt.raw, asked.raw)
		}
		out = append(out, s)
	}
	if list, ok := v.([]any); ok {
		for i, e := range list {
			check(index(fp, i), e)
		}
	} else {
		check(fp, v)
	}
	return out
}

// choices reads choices given as a list of {id, text} (or of strings, lettered
// A, B, ...) or as an object {"A": text}.
func (p *personaParser) choices(fp string, v any) []Choice {
	var out []Choice
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			switch c := e.(type) {
			case map[string]any:
				id, _ := idString(c["id"])
				if id == "" {
					p.add(index(fp, i), DefectMissingField, "choice lacks id")
				}
				out = append(out, Choice{ID: id, Text: p.text(index(fp, i)+".text", "choice text", c["text"])})
			case string:
				out = append(out, Choice{ID: string(rune('A' + i)), Text: c})
			default:
				p.add(index(fp, i), DefectBadValue, "choice is a JSON %s; want an object {id, text}", jsonType(e))
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = append(out, Choice{ID: k, Text: p.text(jsonPath(fp, k), "choice text", x[k])})
		}
	default:
		p.add(fp, DefectBadValue, "choices is a JSON %s; want a list or an object", jsonType(v))
	}
	return out
}

func hasChoice(cs []Choice, id string) bool {
	for _, c := range cs {
		if c.ID == id {
			return true
		}
	}
	return false
}

func choiceIDs(cs []Choice) string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return strings.Join(ids, ", ")
}

func setExtra(q *Question, k string, v any) {
	if q.Extra == nil {
		q.Extra = map[string]any{}
	}
	q.Extra[k] = v
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
