package construct

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memlab/memlab/text"
)

// The KnowMe steps' code checks (run before any checker model) and their
// dry-run stubs.

func checkSegment(in, out any) []string {
	x, o := in.(segmentIn), out.(*segmentOut)
	first, last := x.Sentences[0].N, x.Sentences[len(x.Sentences)-1].N
	var p []string
	if len(o.Boundaries) == 0 {
		return []string{"no boundary given: give at least the first sentence's number"}
	}
	prev := -1
	for _, b := range o.Boundaries {
		if b < first || b > last {
			p = append(p, fmt.Sprintf("boundary %d is not a sentence of the passage (%d to %d)", b, first, last))
		}
		if b <= prev {
			p = append(p, fmt.Sprintf("boundary %d does not come after %d: give increasing numbers", b, prev))
		}
		prev = b
	}
	if o.Boundaries[0] != first {
		p = append(p, fmt.Sprintf("the first boundary must be the passage's first sentence, %d", first))
	}
	return p
}

func stubSegment(in any) any {
	x := in.(segmentIn)
	var b []int
	run := 0
	for _, s := range x.Sentences {
		if s.ParagraphStart || run >= 8 || s.N == x.First {
			b = append(b, s.N)
			run = 0
		}
		run++
	}
	return segmentOut{Boundaries: b}
}

var validOps = []string{"MAINTAIN", "PUSH", "POP", "TRANSIENT"}

func checkANU(in, out any) []string {
	x, o := in.(anuIn), out.(*anuOut)
	if len(o.Units) == 0 {
		return []string{"no unit: every segment has at least one"}
	}
	var p []string
	for i, u := range o.Units {
		if strings.TrimSpace(u.Location) == "" {
			p = append(p, fmt.Sprintf("unit %d has no location (mandatory: give the scene's place)", i+1))
		}
		if a := strings.TrimSpace(u.TAnch); a != "" && !strings.Contains(x.Text, a) {
			p = append(p, fmt.Sprintf("unit %d: t_anch %q is not copied verbatim from the text", i+1, text.Clip(a, 60)))
		}
		if !u.hasContent() {
			p = append(p, fmt.Sprintf("unit %d has none of the five primitives", i+1))
		}
	}
	return p
}

// stubANU makes one unit per two sentences of the segment, their words in
// the action, with a thought, and by turns an environment, a background
// and a dialogue of a few words (about the size a model's units take).
func stubANU(in any) any {
	x := in.(anuIn)
	ss := Sentences(x.Text)
	var units []ANU
	for i := 0; i < len(ss); i += 2 {
		t := ss[i].Text
		if i+1 < len(ss) {
			t += " " + ss[i+1].Text
		}
		u := ANU{Location: "the place of the scene", Action: t, Mind: "what I thought then"}
		k := len(units)
		if k%2 == 1 {
			u.Environment = "what I saw around me"
		}
		if k%3 == 0 {
			u.Background = "what I knew of the past"
		}
		if k%4 == 2 {
			u.Dialogue = "what was said, in a few words"
		}
		units = append(units, u)
	}
	if len(units) == 0 {
		units = []ANU{{Location: "the place of the scene", Action: x.Text}}
	}
	return anuOut{Units: units}
}

func checkRealign(in, out any) []string {
	x, o := in.(realignIn), out.(*realignOut)
	var p []string
	seen := map[string]int{}
	units := map[string]ANU{}
	for _, u := range x.Units {
		units[u.ID] = u
	}
	for _, r := range o.Units {
		seen[r.ID]++
		u, ok := units[r.ID]
		if !ok {
			p = append(p, fmt.Sprintf("unit %q is not one of the segment's", r.ID))
			continue
		}
		op := strings.ToUpper(strings.TrimSpace(r.Op))
		if !slices.Contains(validOps, op) {
			p = append(p, fmt.Sprintf("unit %s: op %q is not MAINTAIN, PUSH, POP or TRANSIENT", r.ID, r.Op))
		}
		if r.Time != "" {
			if _, ok := resolveTime(Realignment{Time: r.Time}, time.Time{}); !ok {
				p = append(p, fmt.Sprintf("unit %s: time %q is not YYYY-MM-DD HH:MM, YYYY-MM-DD, YYYY-MM or YYYY", r.ID, r.Time))
			}
		}
		if r.Clock != "" {
			if _, err := time.Parse("15:04", r.Clock); err != nil {
				p = append(p, fmt.Sprintf("unit %s: clock %q is not HH:MM", r.ID, r.Clock))
			}
		}
		if r.ShiftDays < 0 {
			p = append(p, fmt.Sprintf("unit %s: shift_days %d is negative", r.ID, r.ShiftDays))
		}
		if op == "PUSH" && strings.TrimSpace(r.Time) == "" {
			p = append(p, fmt.Sprintf("unit %s: a PUSH needs the time of the recollection", r.ID))
		}
		if tr := strings.TrimSpace(r.Trigger); tr != "" {
			found := false
			for _, f := range u.fields() {
				found = found || strings.Contains(*f, tr)
			}
			if !found {
				p = append(p, fmt.Sprintf("unit %s: the trigger %q is not copied from one of the unit's fields", r.ID, text.Clip(tr, 60)))
			}
		}
	}
	for _, u := range x.Units {
		switch seen[u.ID] {
		case 0:
			p = append(p, fmt.Sprintf("unit %s has no realignment", u.ID))
		case 1:
		default:
			p = append(p, fmt.Sprintf("unit %s is realigned %d times", u.ID, seen[u.ID]))
		}
	}
	return p
}

func stubRealign(in any) any {
	x := in.(realignIn)
	var out []Realignment
	for _, u := range x.Units {
		out = append(out, Realignment{ID: u.ID, Op: "MAINTAIN"})
	}
	return realignOut{Units: out}
}

func checkInstantiate(in, out any) []string {
	x, o := in.(instantiateIn), out.(*instantiateOut)
	var p []string
	if len(o.Entries) != len(x.Entries) {
		p = append(p, fmt.Sprintf("%d entries, want %d (one per entry given)", len(o.Entries), len(x.Entries)))
	}
	got := map[string]ANU{}
	for _, e := range o.Entries {
		got[e.ID] = e
	}
	names := []string{"action", "dialogue", "environment", "background", "mind"}
	for _, e := range x.Entries {
		g, ok := got[e.ID]
		if !ok {
			p = append(p, fmt.Sprintf("entry %s is missing", e.ID))
			continue
		}
		if g.Location != e.Location {
			p = append(p, fmt.Sprintf("entry %s: location changed from %q to %q", e.ID, e.Location, g.Location))
		}
		ef, gf := e.fields(), g.fields()
		for i := range ef {
			if (strings.TrimSpace(*ef[i]) == "") != (strings.TrimSpace(*gf[i]) == "") {
				p = append(p, fmt.Sprintf("entry %s: %s must be empty exactly when it was empty", e.ID, names[i]))
			}
		}
	}
	return p
}

func stubInstantiate(in any) any {
	x := in.(instantiateIn)
	out := make([]ANU, len(x.Entries))
	for i, e := range x.Entries {
		out[i] = e
		for _, f := range out[i].fieldPtrs() {
			if *f != "" {
				*f = "I " + *f
			}
		}
	}
	return instantiateOut{Entries: out}
}

func checkQuestion(in, out any) []string {
	x, o := in.(questionIn), out.(*questionOut)
	var p []string
	if strings.TrimSpace(o.Question) == "" {
		p = append(p, "the question is empty")
	}
	ids := map[int]bool{}
	for _, e := range x.Entries {
		ids[e.ID] = true
	}
	if len(o.Evidence) == 0 {
		p = append(p, "no evidence id: cite the entries the answer rests on")
	}
	for _, id := range o.Evidence {
		if !ids[id] {
			p = append(p, fmt.Sprintf("evidence id %d is not one of the entries given", id))
		}
	}
	if x.Task == "Logical Event Ordering" {
		var list []struct {
			Rank      int    `json:"rank"`
			Event     string `json:"event"`
			Reasoning string `json:"reasoning"`
		}
		if err := json.Unmarshal(o.Answer, &list); err != nil || len(list) < 2 {
			p = append(p, `the answer of an ordering question is a list of at least two {"rank", "event", "reasoning"} objects`)
		}
		for i, e := range list {
			if e.Rank != i+1 || strings.TrimSpace(e.Event) == "" {
				p = append(p, fmt.Sprintf("ranked event %d: want rank %d and an event", i+1, i+1))
			}
		}
	} else {
		var s string
		if err := json.Unmarshal(o.Answer, &s); err != nil || strings.TrimSpace(s) == "" {
			p = append(p, "the answer must be a non-empty string")
		}
	}
	if x.Task == "Adversarial Abstention" && o.Strategy != "Non-existent" && o.Strategy != "False Premise" {
		p = append(p, `an adversarial question's strategy is "Non-existent" or "False Premise"`)
	}
	return p
}

func stubQuestion(in any) any {
	x := in.(questionIn)
	var ev []int
	for _, e := range x.Entries {
		ev = append(ev, e.ID)
	}
	ans, _ := json.Marshal("A reference answer of about thirty words that states what the cited entries say about the question, in the narrator's own terms, without adding anything they do not state or imply.")
	if x.Task == "Logical Event Ordering" {
		var list []map[string]any
		for i := range min(3, len(x.Entries)) {
			list = append(list, map[string]any{"rank": i + 1, "event": "an event of about twelve words taken from the cited entry of the episode",
				"reasoning": "why it ranks here along the question's dimension, in about twenty words, citing what the entry says"})
		}
		ans, _ = json.Marshal(list)
	}
	return questionOut{Question: "A question of about twenty-five words about what the narrator did, said, perceived or thought in the moments the entries record?",
		Answer: ans, Evidence: ev, Type: "type", Strategy: "Non-existent", Reasoning: "How the answer follows from the entries, in about thirty words, naming the entries and the facts they give."}
}
