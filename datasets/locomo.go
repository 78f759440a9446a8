package datasets

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// FormatLoCoMo is the format name of LoCoMo conversations (Maharana et
// al., ACL 2024), as recorded in Dataset.Format.
const FormatLoCoMo = "locomo"

// LoCoMoCategories names LoCoMo's question categories by the official
// numbering of its evaluation code (1 multi-hop, 2 temporal, 3
// open-domain, 4 single-hop, 5 adversarial). Question.Task is the name and
// Question.Extra["category"] the number; a table that shows numbers says
// it uses this mapping.
var LoCoMoCategories = map[int]string{
	1: "multi-hop",
	2: "temporal",
	3: "open-domain",
	4: "single-hop",
	5: "adversarial",
}

// LoCoMoMapping names the category numbering of LoCoMoCategories, for
// table notes.
const LoCoMoMapping = "LoCoMo's official numbering: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial"

// The kinds of LoCoMo's optional retrieval units, kept in Corpus.Units
// (not traces: no question cites them, retrieval-unit experiments may
// index them).
const (
	UnitObservation    = "observation"     // session_N_observation: facts per speaker, with the turns they come from
	UnitSessionSummary = "session_summary" // session_N_summary
	UnitEvent          = "event"           // events_session_N: each speaker's events
)

// Defect kinds of LoCoMo files.
const (
	// DefectDateWithoutSession is a session_N_date_time with no turns of
	// session N (not an error: the date is kept nowhere).
	DefectDateWithoutSession = "date_without_session"
	// DefectBadEvidenceID is an evidence string that names no turn as
	// written ("D", "D:11:26", "D10:19" where session 10 has fewer turns);
	// the question is kept with the evidence that does name turns.
	DefectBadEvidenceID = "bad_evidence_id"
	// DefectSplitEvidence is one evidence string holding several ids
	// ("D8:6; D9:17"), split into them.
	DefectSplitEvidence = "split_evidence"
)

// locomoTime is how LoCoMo writes a session's time: "1:56 pm on 8 May, 2023".
const locomoTime = "3:04 pm on 2 January, 2006"

var (
	sessionKey  = regexp.MustCompile(`^session_(\d+)$`)
	dialogueID  = regexp.MustCompile(`^D(\d+):(\d+)$`)
	sessionDate = regexp.MustCompile(`^session_(\d+)_date_time$`)
)

// isLoCoMo reports whether v is a LoCoMo conversation (the per-conversation
// form, with speaker_a and session_1 at the top; a sample with
// "conversation" and "qa") or a list of samples (locomo10.json).
func isLoCoMo(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if c, ok := x["conversation"].(map[string]any); ok {
			_, qa := x["qa"]
			_, a := c["speaker_a"]
			return qa && a
		}
		_, a := x["speaker_a"]
		_, qa := x["qa"]
		return a && qa
	case []any:
		return len(x) > 0 && isLoCoMo(x[0])
	}
	return false
}

// loCoMo reads one LoCoMo file (a conversation, or locomo10.json's list of
// them) or a directory of them: each conversation a corpus, each turn a
// trace at its session's time, each question a Question (never dated:
// LoCoMo asks after the whole conversation).
func (l *loader) loCoMo() (*Dataset, error) {
	files, err := l.datasetFiles("LoCoMo conversation files")
	if err != nil {
		return nil, err
	}
	d := &Dataset{Format: FormatLoCoMo}
	seen := map[string]bool{}
	for _, rel := range files {
		v, err := l.decode(rel)
		if err != nil {
			return nil, err
		}
		var samples []any
		var paths []string
		switch x := v.(type) {
		case []any:
			for i, s := range x {
				samples, paths = append(samples, s), append(paths, index("$", i))
			}
		default:
			samples, paths = []any{v}, []string{"$"}
		}
		for i, s := range samples {
			obj, ok := s.(map[string]any)
			if !ok || !isLoCoMo(obj) {
				return nil, l.errf("%s%s: want a LoCoMo conversation (speaker_a, session_N, qa), got a JSON %s", l.where(rel), paths[i], describeShape(s))
			}
			id := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
			if len(samples) > 1 || obj["sample_id"] != nil {
				if sid, ok := idString(obj["sample_id"]); ok && sid != "" {
					id = sid
				} else {
					id = fmt.Sprintf("%s#%d", id, i+1)
				}
			}
			for n := 2; seen[id]; n++ {
				id = fmt.Sprintf("%s#%d", strings.Split(id, "#")[0], n)
			}
			seen[id] = true
			p := locomoParser{file: rel, base: paths[i], rep: &d.Report}
			c, qs := p.parse(id, obj)
			d.Corpora = append(d.Corpora, c)
			d.Questions = append(d.Questions, qs...)
		}
	}
	return d, nil
}

// locomoParser reads one conversation, reporting defects at file and JSON
// path.
type locomoParser struct {
	file string
	base string // the conversation's JSON path in its file
	rep  *Report
}

// field finds a key at the top of a conversation or, in locomo10.json's
// form, inside its conversation, observation, session_summary or
// event_summary object; the JSON path says where.
func (p *locomoParser) field(obj map[string]any, key string) (any, string) {
	if v, ok := obj[key]; ok {
		return v, jsonPath(p.base, key)
	}
	for _, sub := range []string{"conversation", "observation", "session_summary", "event_summary"} {
		if m, ok := obj[sub].(map[string]any); ok {
			if v, ok := m[key]; ok {
				return v, jsonPath(jsonPath(p.base, sub), key)
			}
		}
	}
	return nil, ""
}

// keys lists every key of obj and of its sub-objects (locomo10.json).
func (p *locomoParser) keys(obj map[string]any) []string {
	var out []string
	for k := range obj {
		out = append(out, k)
	}
	for _, sub := range []string{"conversation", "observation", "session_summary", "event_summary"} {
		if m, ok := obj[sub].(map[string]any); ok {
			for k := range m {
				out = append(out, k)
			}
		}
	}
	return out
}

func (p *locomoParser) parse(id string, obj map[string]any) (*Corpus, []Question) {
	a, _ := p.field(obj, "speaker_a")
	b, _ := p.field(obj, "speaker_b")
	c := &Corpus{ID: id, Name: textOf(a) + " & " + textOf(b), Language: "en", Units: map[string][]Trace{}}
	var sessions, dated []int
	for _, k := range p.keys(obj) {
		if m := sessionKey.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			sessions = append(sessions, n)
		}
		if m := sessionDate.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			dated = append(dated, n)
		}
	}
	sort.Ints(sessions)
	sort.Ints(dated)
	turns := map[string]bool{}
	times := map[int]time.Time{}
	raws := map[int]string{}
	for _, n := range dated {
		v, at := p.field(obj, fmt.Sprintf("session_%d_date_time", n))
		raw := strings.TrimSpace(textOf(v))
		raws[n] = raw
		if raw == "" {
			p.rep.Add(p.file, at, DefectEmptyTime, fmt.Sprintf("session %d of %s has an empty date", n, id))
			continue
		}
		t, err := time.Parse(locomoTime, raw)
		if err != nil {
			p.rep.Add(p.file, at, DefectBadTime, fmt.Sprintf("session %d of %s: date %q is not like %q", n, id, raw, locomoTime))
			continue
		}
		times[n] = t
	}
	for _, n := range dated {
		if !slices.Contains(sessions, n) {
			_, at := p.field(obj, fmt.Sprintf("session_%d_date_time", n))
			p.rep.Add(p.file, at, DefectDateWithoutSession, fmt.Sprintf("%s: session %d has a date (%q) and no turns", id, n, raws[n]))
		}
	}
	for _, n := range sessions {
		v, at := p.field(obj, fmt.Sprintf("session_%d", n))
		list, ok := v.([]any)
		if !ok {
			p.rep.Add(p.file, at, DefectBadValue, fmt.Sprintf("session %d of %s is a JSON %s; want a list of turns", n, id, jsonType(v)))
			continue
		}
		if _, ok := times[n]; !ok && raws[n] == "" {
			p.rep.Add(p.file, at, DefectMissingField, fmt.Sprintf("session %d of %s has turns and no session_%d_date_time", n, id, n))
		}
		for j, tv := range list {
			tp := index(at, j)
			turn, ok := tv.(map[string]any)
			if !ok {
				p.rep.Add(p.file, tp, DefectBadValue, fmt.Sprintf("a turn is a JSON %s; want an object", jsonType(tv)))
				continue
			}
			did := textOf(turn["dia_id"])
			if did == "" {
				p.rep.Add(p.file, jsonPath(tp, "dia_id"), DefectMissingField, "a turn has no dia_id (skipped)")
				continue
			}
			if turns[did] {
				p.rep.Add(p.file, jsonPath(tp, "dia_id"), DefectDuplicateID, fmt.Sprintf("dialogue id %q appears twice (the later turn skipped)", did))
				continue
			}
			turns[did] = true
			speaker := textOf(turn["speaker"])
			txt := p.rep.text(p.file, jsonPath(tp, "text"), "text", turn["text"])
			fields := map[string]any{"speaker": speaker, "session": n}
			if cap := textOf(turn["blip_caption"]); cap != "" {
				txt += " [shares an image: " + cap + "]"
				fields["blip_caption"] = cap
			}
			for _, k := range []string{"img_url", "query"} {
				if v, ok := turn[k]; ok {
					fields[k] = normalize(v)
				}
			}
			c.Traces = append(c.Traces, Trace{ID: did, Time: times[n], TimeRaw: raws[n], Medium: "chat",
				Text: speaker + ": " + txt, Fields: fields})
		}
		p.units(c, obj, n, times[n], raws[n])
	}
	return c, p.questions(id, obj, turns)
}

// units keeps session n's observations, summary and events as units.
func (p *locomoParser) units(c *Corpus, obj map[string]any, n int, t time.Time, raw string) {
	unit := func(kind, id, text string, fields map[string]any) {
		if strings.TrimSpace(text) == "" {
			return
		}
		c.Units[kind] = append(c.Units[kind], Trace{ID: id, Time: t, TimeRaw: raw, Medium: kind, Text: text, Fields: fields})
	}
	if v, _ := p.field(obj, fmt.Sprintf("session_%d_observation", n)); v != nil {
		if m, ok := v.(map[string]any); ok {
			for _, speaker := range sortedKeys(m) {
				items, _ := m[speaker].([]any)
				for i, it := range items {
					// [fact, "D1:3"] or [fact, ["D1:3", ...]]
					var text string
					var from []string
					if pair, ok := it.([]any); ok && len(pair) > 0 {
						text = textOf(pair[0])
						for _, e := range pair[1:] {
							switch x := e.(type) {
							case string:
								from = append(from, x)
							case []any:
								for _, s := range x {
									from = append(from, textOf(s))
								}
							}
						}
					} else {
						text = textOf(it)
					}
					unit(UnitObservation, fmt.Sprintf("S%d:obs:%s:%d", n, speaker, i+1), text,
						map[string]any{"speaker": speaker, "session": n, "from": from})
				}
			}
		}
	}
	if v, _ := p.field(obj, fmt.Sprintf("session_%d_summary", n)); v != nil {
		unit(UnitSessionSummary, fmt.Sprintf("S%d:summary", n), textOf(v), map[string]any{"session": n})
	}
	if v, _ := p.field(obj, fmt.Sprintf("events_session_%d", n)); v != nil {
		if m, ok := v.(map[string]any); ok {
			for _, speaker := range sortedKeys(m) {
				if speaker == "date" {
					continue
				}
				items, _ := m[speaker].([]any)
				for i, it := range items {
					unit(UnitEvent, fmt.Sprintf("S%d:event:%s:%d", n, speaker, i+1), textOf(it),
						map[string]any{"speaker": speaker, "session": n})
				}
			}
		}
	}
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// questions reads the conversation's qa list. Evidence strings are
// checked against the turns: one holding several ids is split, one that
// names no turn is reported and left out (the question is kept).
func (p *locomoParser) questions(id string, obj map[string]any, turns map[string]bool) []Question {
	v, at := p.field(obj, "qa")
	list, ok := v.([]any)
	if !ok {
		p.rep.Add(p.file, at, DefectBadValue, fmt.Sprintf("qa of %s is a JSON %s; want a list", id, jsonType(v)))
		return nil
	}
	var out []Question
	for i, qv := range list {
		qp := index(at, i)
		qm, ok := qv.(map[string]any)
		if !ok {
			p.rep.Add(p.file, qp, DefectBadValue, fmt.Sprintf("a question is a JSON %s; want an object", jsonType(qv)))
			continue
		}
		q := Question{ID: fmt.Sprintf("%s/%d", id, i+1), CorpusID: id, Extra: map[string]any{}}
		q.Text = p.rep.text(p.file, jsonPath(qp, "question"), "question", qm["question"])
		cat, _ := idString(qm["category"])
		n, err := strconv.Atoi(cat)
		if name, ok := LoCoMoCategories[n]; err == nil && ok {
			q.Task = name
			q.Extra["category"] = n
		} else {
			p.rep.Add(p.file, jsonPath(qp, "category"), DefectBadValue, fmt.Sprintf("question %s: category %q is not 1-5", q.ID, cat))
			q.Task = "category " + cat
		}
		if a, ok := qm["answer"]; ok {
			q.Answer = textOf(a)
		}
		if adv, ok := qm["adversarial_answer"]; ok {
			q.Extra["adversarial_answer"] = textOf(adv)
		}
		if strings.TrimSpace(q.Answer) == "" && q.Task != LoCoMoCategories[5] {
			p.rep.Add(p.file, jsonPath(qp, "answer"), DefectNoAnswer, fmt.Sprintf("question %s (%s) has no answer", q.ID, q.Task))
		}
		ev, _ := qm["evidence"].([]any)
		for j, e := range ev {
			ep := index(jsonPath(qp, "evidence"), j)
			raw := textOf(e)
			ids := []string{strings.TrimSpace(raw)}
			if strings.ContainsAny(raw, ";,") {
				ids = nil
				for _, s := range strings.FieldsFunc(raw, func(r rune) bool { return r == ';' || r == ',' }) {
					if s = strings.TrimSpace(s); s != "" {
						ids = append(ids, s)
					}
				}
				p.rep.Add(p.file, ep, DefectSplitEvidence, fmt.Sprintf("question %s: evidence %q holds %d ids; read as %q", q.ID, raw, len(ids), ids))
			}
			for _, did := range ids {
				switch {
				case !dialogueID.MatchString(did):
					p.rep.Add(p.file, ep, DefectBadEvidenceID, fmt.Sprintf("question %s: evidence %q is not a dialogue id (D<session>:<turn>); left out", q.ID, did))
				case !turns[did]:
					p.rep.Add(p.file, ep, DefectBadEvidenceID, fmt.Sprintf("question %s: evidence %q names no turn of %s; left out", q.ID, did, id))
				default:
					q.Evidence = append(q.Evidence, EvidenceGroup{TraceIDs: []string{did}})
				}
			}
		}
		out = append(out, q)
	}
	return out
}

// LoCoMoCategory returns the category number (1-5, LoCoMoCategories) of a
// LoCoMo question: ok is false unless q.Extra["category"] holds a number
// from 1 to 5 and q.Task is that category's name, as the loader sets them
// (so a question of another benchmark that happens to have a "category"
// field is not taken for one).
func LoCoMoCategory(q Question) (int, bool) {
	var n int
	switch x := q.Extra["category"].(type) {
	case int:
		n = x
	case int64:
		n = int(x)
	case float64:
		if x != float64(int(x)) {
			return 0, false
		}
		n = int(x)
	default:
		return 0, false
	}
	if name, ok := LoCoMoCategories[n]; ok && q.Task == name {
		return n, true
	}
	return 0, false
}

// LoCoMoSession returns the session of a LoCoMo dialogue id, as LoCoMo's
// evaluation reads it (the number between "D" and ":"): "D18:21" → 18.
// ok is false when id is not a dialogue id (D<session>:<turn>).
func LoCoMoSession(id string) (int, bool) {
	m := dialogueID.FindStringSubmatch(id)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}
