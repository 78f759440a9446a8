package construct

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The CloneMem steps' code checks (the format filter: missing fields,
// values out of range, a medium's format not followed) and their dry-run
// stubs, sized as a model's replies are.

func nonEmpty(p *[]string, what, s string) {
	if strings.TrimSpace(s) == "" {
		*p = append(*p, what+" is empty")
	}
}

func checkPersona(in, out any) []string {
	o := out.(*Profile)
	var p []string
	nonEmpty(&p, "name", o.Name)
	nonEmpty(&p, "personality", o.Personality)
	nonEmpty(&p, "occupation", o.Occupation)
	nonEmpty(&p, "narrative", o.Narrative)
	if o.Age < 18 || o.Age > 90 {
		p = append(p, fmt.Sprintf("age %d: want an adult's age, 18 to 90", o.Age))
	}
	if len(o.Concerns) == 0 || len(o.Interests) == 0 {
		p = append(p, "concerns and interests must list at least one each")
	}
	return p
}

func stubPersona(in any) any {
	return Profile{Name: "Firstname Lastname", Age: 34, Gender: "woman", Personality: words(45), Family: words(30), Education: words(15),
		Occupation: words(8), Concerns: []string{words(6), words(6), words(6)}, Interests: []string{words(4), words(4), words(4), words(4)}, Narrative: words(120)}
}

var relationKinds = []string{"family", "partner", "friend", "colleague", "other"}

func checkRelations(in, out any) []string {
	x, o := in.(relationsIn), out.(*relationsOut)
	var p []string
	if len(o.Relations) < x.Min || len(o.Relations) > x.Max {
		p = append(p, fmt.Sprintf("%d relations: want %d to %d", len(o.Relations), x.Min, x.Max))
	}
	seen := map[string]bool{}
	for i, r := range o.Relations {
		nonEmpty(&p, fmt.Sprintf("relation %d's name", i+1), r.Name)
		if seen[r.Name] {
			p = append(p, fmt.Sprintf("%q is listed twice", r.Name))
		}
		seen[r.Name] = true
		if !slices.Contains(relationKinds, lower(r.Relation)) {
			p = append(p, fmt.Sprintf("%s: relation %q is not one of %s", r.Name, r.Relation, strings.Join(relationKinds, ", ")))
		}
	}
	return p
}

func stubRelations(in any) any {
	x := in.(relationsIn)
	var rs []Relation
	for i := range (x.Min + x.Max) / 2 {
		rs = append(rs, Relation{Name: fmt.Sprintf("Relation%d Name", i+1), Relation: relationKinds[i%4], Description: words(18)})
	}
	return relationsOut{Relations: rs}
}

func checkSeeds(in, out any) []string {
	x, o := in.(seedsIn), out.(*seedsOut)
	var p []string
	for _, k := range o.Kept {
		if !slices.Contains(x.Predefined, k) {
			p = append(p, fmt.Sprintf("kept seed %q is not one of the predefined seeds (copy them exactly)", k))
		}
	}
	if n := len(o.Kept) + len(o.Added); n < x.Min || n > x.Max {
		p = append(p, fmt.Sprintf("%d seeds in all: want %d to %d", n, x.Min, x.Max))
	}
	for _, a := range o.Added {
		nonEmpty(&p, "an added seed", a)
	}
	return p
}

func stubSeeds(in any) any {
	x := in.(seedsIn)
	return seedsOut{Kept: x.Predefined[:4], Added: []string{words(4), words(4)}}
}

func checkArc(in, out any) []string {
	x, o := in.(arcIn), out.(*Arc)
	var p []string
	if len(o.Anchors) != x.Anchors {
		p = append(p, fmt.Sprintf("%d anchor states: want exactly %d", len(o.Anchors), x.Anchors))
	}
	for i, a := range o.Anchors {
		nonEmpty(&p, fmt.Sprintf("anchor %d's state", i+1), a.State)
		if len(a.Cues) == 0 {
			p = append(p, fmt.Sprintf("anchor %d has no behavioural cue", i+1))
		}
	}
	if len(o.Triggers) == 0 {
		p = append(p, "no trigger")
	}
	return p
}

func stubArc(in any) any {
	x := in.(arcIn)
	a := Arc{Title: words(6), Triggers: []string{words(14), words(14)}}
	for range x.Anchors {
		a.Anchors = append(a.Anchors, Anchor{State: words(3), Description: words(25), Cues: []string{words(10), words(10), words(10)}})
	}
	return a
}

func parseDate(s string) (time.Time, bool) {
	t, err := time.Parse(dateLayout, strings.TrimSpace(s))
	return t, err == nil
}

func checkEvents(in, out any) []string {
	x, o := in.(eventsIn), out.(*eventsOut)
	var p []string
	if len(o.Events) != x.Count {
		p = append(p, fmt.Sprintf("%d events: want exactly %d", len(o.Events), x.Count))
	}
	lo, _ := parseDate(x.Start)
	hi, _ := parseDate(x.End)
	prev := time.Time{}
	last := map[string]int{}
	for i, e := range o.Events {
		d, ok := parseDate(e.Date)
		switch {
		case !ok:
			p = append(p, fmt.Sprintf("event %d: date %q is not YYYY-MM-DD", i+1, e.Date))
		case d.Before(lo) || d.After(hi):
			p = append(p, fmt.Sprintf("event %d: date %s is outside the timeline %s to %s", i+1, e.Date, x.Start, x.End))
		case d.Before(prev):
			p = append(p, fmt.Sprintf("event %d: date %s comes before the event before it", i+1, e.Date))
		}
		prev = d
		for _, dim := range CloneMemDimensions {
			s, ok := e.ArcStates[dim]
			n := len(x.Arcs[dim].Anchors)
			switch {
			case !ok:
				p = append(p, fmt.Sprintf("event %d: no arc state for %s", i+1, dim))
			case s < 0 || s >= n:
				p = append(p, fmt.Sprintf("event %d: arc state %d of %s is not an anchor index (0 to %d)", i+1, s, dim, n-1))
			case s < last[dim]:
				p = append(p, fmt.Sprintf("event %d: the %s arc goes back from anchor %d to %d", i+1, dim, last[dim], s))
			}
			last[dim] = max(last[dim], s)
		}
	}
	return p
}

func stubEvents(in any) any {
	x := in.(eventsIn)
	lo, _ := parseDate(x.Start)
	hi, _ := parseDate(x.End)
	days := int(hi.Sub(lo).Hours()/24) + 1
	var es []MajorEvent
	for i := range x.Count {
		st := map[string]int{}
		for _, d := range CloneMemDimensions {
			st[d] = i * len(x.Arcs[d].Anchors) / max(1, x.Count)
		}
		es = append(es, MajorEvent{Title: words(6), Date: lo.AddDate(0, 0, i*days/max(1, x.Count)).Format(dateLayout), Seed: x.Seeds[i%len(x.Seeds)],
			Description: words(40), ArcStates: st})
	}
	return eventsOut{Events: es}
}

func checkPhase(in, out any) []string {
	x, o := in.(phaseIn), out.(*phaseOut)
	var p []string
	lo, _ := parseDate(x.From)
	hi, _ := parseDate(x.To)
	s, ok1 := parseDate(o.Phase.Start)
	e, ok2 := parseDate(o.Phase.End)
	switch {
	case !ok1 || !ok2:
		p = append(p, "the phase's start and end must be dates YYYY-MM-DD")
	case s.Before(lo) || e.After(hi) || e.Before(s):
		p = append(p, fmt.Sprintf("the phase %s to %s is not within %s to %s", o.Phase.Start, o.Phase.End, x.From, x.To))
	}
	nonEmpty(&p, "the phase's summary", o.Phase.Summary)
	h := o.Snapshot
	if h.Energy < 0 || h.Energy > 10 || h.Stress < 0 || h.Stress > 10 {
		p = append(p, "energy and stress are from 0 to 10")
	}
	nonEmpty(&p, "the snapshot's emotion", h.Emotion)
	nonEmpty(&p, "the snapshot's focus", h.Focus)
	for _, d := range CloneMemDimensions {
		if strings.TrimSpace(h.Arcs[d]) == "" {
			p = append(p, "the snapshot has no status for the "+d+" arc")
		}
	}
	return p
}

func stubPhase(in any) any {
	x := in.(phaseIn)
	h := x.Snapshot
	h.Arcs = map[string]string{}
	for _, d := range CloneMemDimensions {
		h.Arcs[d] = words(8)
	}
	h.Emotion, h.Focus = words(2), words(5)
	return phaseOut{Phase: Phase{Title: words(6), Start: x.From, End: x.To, Summary: words(70)}, Snapshot: h}
}

var evidenceKinds = []string{"fact", "emotion", "opinion"}

func checkDetails(in, out any) []string {
	x, o := in.(detailsIn), out.(*detailsOut)
	var p []string
	if len(o.Events) != x.Count {
		p = append(p, fmt.Sprintf("%d events: want exactly %d", len(o.Events), x.Count))
	}
	lo, _ := parseDate(x.Phase.Start)
	hi, _ := parseDate(x.Phase.End)
	for i, e := range o.Events {
		if d, ok := parseDate(e.Date); !ok || d.Before(lo) || d.After(hi) {
			p = append(p, fmt.Sprintf("event %d: date %q is not a day of the phase (%s to %s)", i+1, e.Date, x.Phase.Start, x.Phase.End))
		}
		nonEmpty(&p, fmt.Sprintf("event %d's description", i+1), e.Description)
		if len(e.Evidence) == 0 {
			p = append(p, fmt.Sprintf("event %d has no evidence", i+1))
		}
		for k, ev := range e.Evidence {
			if !slices.Contains(evidenceKinds, lower(ev.Kind)) {
				p = append(p, fmt.Sprintf("event %d evidence %d: kind %q is not fact, emotion or opinion", i+1, k+1, ev.Kind))
			}
			nonEmpty(&p, fmt.Sprintf("event %d evidence %d's statement", i+1, k+1), ev.Statement)
			if len(ev.Arcs) == 0 {
				p = append(p, fmt.Sprintf("event %d evidence %d belongs to no arc", i+1, k+1))
			}
			for _, a := range ev.Arcs {
				if !slices.Contains(CloneMemDimensions, lower(a)) {
					p = append(p, fmt.Sprintf("event %d evidence %d: arc %q is not experience, emotion or opinion", i+1, k+1, a))
				}
			}
		}
	}
	return p
}

func stubDetails(in any) any {
	x := in.(detailsIn)
	lo, _ := parseDate(x.Phase.Start)
	hi, _ := parseDate(x.Phase.End)
	days := int(hi.Sub(lo).Hours()/24) + 1
	var ds []Detail
	for i := range x.Count {
		d := Detail{Date: lo.AddDate(0, 0, i*days/max(1, x.Count)).Format(dateLayout), Title: words(6), Description: words(60)}
		for k, kind := range evidenceKinds {
			d.Evidence = append(d.Evidence, Evidence{Kind: kind, Statement: words(16), Arcs: []string{CloneMemDimensions[k]}})
		}
		ds = append(ds, d)
	}
	return detailsOut{Events: ds}
}

func checkIntent(in, out any) []string {
	x, o := in.(intentIn), out.(*intentOut)
	var p []string
	nonEmpty(&p, "intent", o.Intent)
	nonEmpty(&p, "audience", o.Audience)
	if len(o.KeyInformation) == 0 {
		p = append(p, "key_information lists no evidence index")
	}
	for _, k := range o.KeyInformation {
		if k < 0 || k >= len(x.Event.Evidence) {
			p = append(p, fmt.Sprintf("key_information %d is not an evidence index (0 to %d)", k, len(x.Event.Evidence)-1))
		}
	}
	return p
}

func stubIntent(in any) any {
	x := in.(intentIn)
	var k []int
	for i := range x.Event.Evidence {
		k = append(k, i)
	}
	return intentOut{Intent: words(12), Audience: words(3), KeyInformation: k}
}

var (
	chatLineRE  = regexp.MustCompile(`(?m)^\*\*[^*\n]+:\*\*\s*\S`)
	groupHeadRE = regexp.MustCompile(`^\*[^*\n]+\*\s*(\n|$)`)
)

func checkTrace(in, out any) []string {
	x, o := in.(traceIn), out.(*traceOut)
	c := strings.TrimSpace(o.Content)
	if c == "" {
		return []string{"the trace is empty"}
	}
	var p []string
	switch x.Medium {
	case "chat_private":
		if len(chatLineRE.FindAllString(c, -1)) < 2 {
			p = append(p, `a private chat has at least two lines "**Name:** message"`)
		}
	case "chat_group":
		if !groupHeadRE.MatchString(c) {
			p = append(p, `a group chat starts with a line "*Group name*"`)
		}
		if len(chatLineRE.FindAllString(c, -1)) < 2 {
			p = append(p, `a group chat has at least two lines "**Name:** message"`)
		}
	case "email":
		for _, h := range []string{"Subject:", "From:", "To:"} {
			if !regexp.MustCompile(`(?m)^` + h).MatchString(c) {
				p = append(p, "an email has a line "+h)
			}
		}
	case "search_history":
		for _, l := range strings.Split(c, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "- ") {
				p = append(p, fmt.Sprintf(`search history holds only lines "- query"; %q is not one`, l))
				break
			}
		}
	}
	return p
}

// stubTrace is a trace of about 120 words in its medium's format.
func stubTrace(in any) any {
	x := in.(traceIn)
	var c string
	switch x.Medium {
	case "chat_private":
		for i := range 8 {
			c += fmt.Sprintf("**%s:** %s\n", []string{"Me", "Friend"}[i%2], words(14))
		}
	case "chat_group":
		c = "*Group name*\n\n"
		for i := range 8 {
			c += fmt.Sprintf("**%s:** %s\n", []string{"Me", "A", "B"}[i%3], words(14))
		}
	case "email":
		c = "Subject: " + words(6) + "\nFrom: Me\nTo: Someone\n\n" + words(105)
	case "search_history":
		for range 5 {
			c += "- " + words(6) + "\n"
		}
	case "memo":
		c = words(10) + "\n- " + words(10) + "\n- " + words(10) + "\n- " + words(10)
	case "social_media":
		c = words(60) + " #tag #tag"
	default:
		c = words(120)
	}
	return traceOut{Content: c}
}

func checkPlan(in, out any) []string {
	x, o := in.(planIn), out.(*planOut)
	if !o.Supported {
		return nil
	}
	var p []string
	if len(o.Evidence) == 0 {
		p = append(p, "a supported plan selects at least one evidence id")
	}
	for _, id := range o.Evidence {
		if !slices.ContainsFunc(x.Segment, func(s SegmentItem) bool { return s.ID == id }) {
			p = append(p, fmt.Sprintf("evidence %q is not in the segment", id))
		}
	}
	return p
}

func stubPlan(in any) any {
	x := in.(planIn)
	var ev []string
	for _, s := range x.Segment[max(0, len(x.Segment)-3):] {
		ev = append(ev, s.ID)
	}
	return planOut{Supported: true, Reason: words(20), Evidence: ev, From: x.Segment[0].Date, To: x.Segment[len(x.Segment)-1].Date, Outline: words(40)}
}

func checkWrite(in, out any) []string {
	x, o := in.(writeIn), out.(*writeOut)
	var p []string
	q := strings.TrimSpace(o.Question)
	if q == "" || !strings.HasSuffix(q, "?") {
		p = append(p, "the question must be a question ending with '?'")
	}
	nonEmpty(&p, "the answer", o.Answer)
	if len(o.Evidence) == 0 {
		p = append(p, "no evidence: list the statements the answer rests on")
	}
	for i, g := range o.Evidence {
		nonEmpty(&p, fmt.Sprintf("evidence %d's statement", i+1), g.Statement)
		if len(g.EvidenceIDs) == 0 {
			p = append(p, fmt.Sprintf("evidence %d names no evidence id", i+1))
		}
		for _, id := range g.EvidenceIDs {
			if !slices.Contains(x.Plan.Evidence, id) {
				p = append(p, fmt.Sprintf("evidence id %q is not one the plan selected", id))
			}
		}
	}
	return p
}

func stubWrite(in any) any {
	x := in.(writeIn)
	var ids []string
	for _, e := range x.Evidence {
		ids = append(ids, e.ID)
	}
	return writeOut{Question: words(22) + "?", Answer: words(35), Evidence: []EvidenceStatement{{Statement: words(16), EvidenceIDs: ids}}}
}

func checkChoices(in, out any) []string {
	x, o := in.(choicesIn), out.(*choicesOut)
	var p []string
	if x.Type != "unanswerable" {
		nonEmpty(&p, "the correct option", o.Correct)
	}
	if len(o.Distractors) != x.Count {
		p = append(p, fmt.Sprintf("%d distractors: want exactly %d", len(o.Distractors), x.Count))
	}
	seen := map[string]bool{lower(o.Correct): true}
	later := false
	for i, d := range o.Distractors {
		t := lower(d.Text)
		if t == "" {
			p = append(p, fmt.Sprintf("distractor %d is empty", i+1))
		} else if seen[t] {
			p = append(p, fmt.Sprintf("distractor %d repeats another option", i+1))
		}
		seen[t] = true
		later = later || d.LaterTrue
	}
	if len(x.LaterTrue) > 0 && !later {
		p = append(p, "no distractor is marked later_true although later_true statements were given")
	}
	return p
}

func stubChoices(in any) any {
	x := in.(choicesIn)
	o := choicesOut{Correct: words(14)}
	for i := range x.Count {
		o.Distractors = append(o.Distractors, Distractor{Text: words(14), LaterTrue: i == 0 && len(x.LaterTrue) > 0})
	}
	return o
}

// words is n placeholder words (a stub's text of n tokens).
func words(n int) string {
	return strings.TrimSpace(strings.Repeat("word ", n))
}
