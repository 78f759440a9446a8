package standin

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/memlab/memlab/construct"
)

func init() {
	register("knowme.segment", knowMeSegment)
	register("knowme.anu", knowMeANU)
	register("knowme.realign", knowMeRealign)
	register("knowme.instantiate", knowMeInstantiate)
	register("knowme.question", knowMeQuestion)
	for _, c := range []string{"knowme.anu.check", "knowme.realign.check", "knowme.instantiate.check", "knowme.question.check"} {
		rules[c] = pass
	}
}

// knowMeSegment starts a segment at every paragraph.
func knowMeSegment(in json.RawMessage) (any, error) {
	var x struct {
		First     int `json:"first"`
		Sentences []struct {
			N              int  `json:"n"`
			ParagraphStart bool `json:"paragraph_start"`
		} `json:"sentences"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	b := []int{x.First}
	for _, s := range x.Sentences {
		if s.ParagraphStart && s.N != x.First {
			b = append(b, s.N)
		}
	}
	return map[string]any{"boundaries": b}, nil
}

var (
	months  = `January|February|March|April|May|June|July|August|September|October|November|December`
	anchors = []*regexp.Regexp{
		regexp.MustCompile(`(?i)(?:on the (?:morning|afternoon|evening|night) of )?\b\d{1,2} (?:` + months + `) \d{4}`),
		regexp.MustCompile(`(?i)\bthe (?:summer|winter|spring|autumn) of \d{4}`),
		regexp.MustCompile(`(?i)\bthe next (?:morning|day|evening)`),
		regexp.MustCompile(`(?i)\bat (?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})(?: o'clock)?(?: in the (?:morning|afternoon|evening))?\b`),
		regexp.MustCompile(`(?i)\bin the (?:morning|afternoon|evening)\b`),
	}
	placeRE = regexp.MustCompile(`(?i)\b(?:the|my|his|her|our|a) ((?:[a-z]+ )?(?:house|shed|kitchen|harbour|harbor|quay|car|road|room|slipway|garden|beach|station|office|school|church|street|hospital|bedroom|cabin|gate|desk|window))\b`)
	quoteRE = regexp.MustCompile(`["“”]`)
	mindRE  = regexp.MustCompile(`(?i)\bI (?:thought|felt|knew|wanted|did not want|didn't want|remember|was afraid|wondered|hoped|feared)\b`)
	envRE   = regexp.MustCompile(`(?i)\b(?:smell|smelled|light|rain|sky|sound|frost|wind|grey|gulls|lay flat|fell across)\b`)
	pastRE  = regexp.MustCompile(`(?i)\b(?:had always|used to|when I was|years ago|had been|had cut|had looked after)\b`)
)

// anchorOf is the first temporal anchor of s, verbatim ("" for none); a
// date that dates a thing ("a letter dated 12 February 1979") is not one.
func anchorOf(s string) string {
	for _, re := range anchors {
		for _, loc := range re.FindAllStringIndex(s, -1) {
			if strings.HasSuffix(strings.TrimSpace(s[:loc[0]]), "dated") {
				continue
			}
			return s[loc[0]:loc[1]]
		}
	}
	return ""
}

func placeOf(s string) string {
	if m := placeRE.FindStringSubmatch(s); m != nil {
		return strings.ToLower(m[1])
	}
	return ""
}

// knowMeANU makes one unit per sentence, classed by its cues.
func knowMeANU(in json.RawMessage) (any, error) {
	var x struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	place := placeOf(x.Text)
	if place == "" {
		place = "the narrator's surroundings"
	}
	var units []construct.ANU
	for _, s := range construct.Sentences(x.Text) {
		t := s.Text
		if p := placeOf(t); p != "" {
			place = p
		}
		u := construct.ANU{TAnch: anchorOf(t), Location: place}
		switch {
		case quoteRE.MatchString(t):
			u.Dialogue = t
		case mindRE.MatchString(t):
			u.Mind = t
		case envRE.MatchString(t):
			u.Environment = t
		case pastRE.MatchString(t):
			u.Background = t
		default:
			u.Action = t
		}
		units = append(units, u)
	}
	return map[string]any{"units": units}, nil
}

var (
	pushRE    = regexp.MustCompile(`(?i)^(.*?)\s+(?:took me back to|reminded me of|brought back)\s+(.*)$`)
	seasonRE  = regexp.MustCompile(`(?i)\b(summer|winter|spring|autumn) of (\d{4})`)
	popRE     = regexp.MustCompile(`(?i)^(?:back in|back at|then i closed|when i looked up)\b`)
	transRE   = regexp.MustCompile(`(?i)\bfor a (?:second|moment) i thought of\b`)
	dateRE    = regexp.MustCompile(`(?i)\b(\d{1,2}) (` + months + `) (\d{4})`)
	clockRE   = regexp.MustCompile(`(?i)\bat (one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})\b(?: o'clock)?(?: in the (morning|afternoon|evening))?`)
	partRE    = regexp.MustCompile(`(?i)\b(morning|afternoon|evening|night)\b`)
	numbers   = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
	seasonMon = map[string]string{"spring": "04", "summer": "07", "autumn": "10", "winter": "01"}
)

type unitIn struct {
	ID          string `json:"id"`
	TAnch       string `json:"t_anch"`
	Location    string `json:"location"`
	Action      string `json:"action"`
	Dialogue    string `json:"dialogue"`
	Environment string `json:"environment"`
	Background  string `json:"background"`
	Mind        string `json:"mind"`
}

func (u unitIn) fields() []string {
	return []string{u.Action, u.Dialogue, u.Environment, u.Background, u.Mind}
}

func (u unitIn) text() string { return strings.Join(u.fields(), " ") }

// knowMeRealign reads each unit's cues: "took me back to the summer of
// 1986" pushes, "Back in the shed" pops, "for a second I thought of" is
// transient; dates, "the next morning" and clock times move the present.
func knowMeRealign(in json.RawMessage) (any, error) {
	var x struct {
		Units []unitIn `json:"units"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	var out []construct.Realignment
	for _, u := range x.Units {
		r := construct.Realignment{ID: u.ID, Op: "MAINTAIN"}
		t := strings.TrimSpace(u.text())
		switch {
		case pushRE.MatchString(t) && seasonRE.MatchString(t):
			m := seasonRE.FindStringSubmatch(t)
			r.Op, r.Time = "PUSH", m[2]+"-"+seasonMon[strings.ToLower(m[1])]
			for _, f := range u.fields() {
				if pm := pushRE.FindStringSubmatch(f); pm != nil {
					r.Trigger = pm[1]
					break
				}
			}
		case popRE.MatchString(t):
			r.Op = "POP"
		case transRE.MatchString(t):
			r.Op = "TRANSIENT"
		}
		if r.Op != "PUSH" && u.TAnch != "" {
			a := u.TAnch
			if m := dateRE.FindStringSubmatch(a); m != nil {
				mon := strings.ToLower(m[2])
				if d, err := time.Parse("2 January 2006", m[1]+" "+strings.ToUpper(mon[:1])+mon[1:]+" "+m[3]); err == nil {
					r.Time = d.Format("2006-01-02")
				}
			}
			if strings.Contains(strings.ToLower(a), "the next") {
				r.ShiftDays = 1
			}
			r.Clock = clockOf(t, a)
		}
		out = append(out, r)
	}
	return map[string]any{"units": out}, nil
}

// clockOf is the time of day the unit states ("at six in the evening":
// 18:00; "in the morning": 08:00), "" when none.
func clockOf(t, anchor string) string {
	if m := clockRE.FindStringSubmatch(t); m != nil {
		h, ok := numbers[strings.ToLower(m[1])]
		if !ok {
			h, _ = strconv.Atoi(m[1])
		}
		if part := strings.ToLower(m[2]); (part == "evening" || part == "afternoon") && h < 12 {
			h += 12
		}
		if h >= 0 && h < 24 {
			return fmt.Sprintf("%02d:00", h)
		}
	}
	switch strings.ToLower(partRE.FindString(anchor)) {
	case "morning":
		return "08:00"
	case "afternoon":
		return "15:00"
	case "evening":
		return "19:00"
	case "night":
		return "22:00"
	}
	return ""
}

// knowMeInstantiate puts each field in the first person when it is not
// already.
func knowMeInstantiate(in json.RawMessage) (any, error) {
	var x struct {
		Entries []unitIn `json:"entries"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	lead := func(s, how string) string {
		s = strings.TrimSpace(s)
		if s == "" || regexp.MustCompile(`(?i)\b(I|my|me)\b`).MatchString(s) {
			return s
		}
		first, rest, _ := strings.Cut(s, " ")
		switch strings.TrimRight(first, ",;:") {
		case "The", "A", "An", "It", "There", "On", "In", "At", "Inside", "Outside", "Then", "When", "After", "Before", "Back", "We", "She", "He", "They":
			s = strings.ToLower(first[:1]) + first[1:] + " " + rest
		}
		return how + s
	}
	out := make([]unitIn, len(x.Entries))
	for i, e := range x.Entries {
		out[i] = unitIn{ID: e.ID, Location: e.Location, Action: lead(e.Action, "I saw that "), Dialogue: lead(e.Dialogue, "I heard: "),
			Environment: lead(e.Environment, "I noticed that "), Background: lead(e.Background, "I knew that "), Mind: lead(e.Mind, "I thought that ")}
	}
	return map[string]any{"entries": out}, nil
}

type entryIn struct {
	ID          int    `json:"id"`
	Timestamp   string `json:"timestamp"`
	Location    string `json:"location"`
	Action      string `json:"action"`
	Dialogue    string `json:"dialogue"`
	Environment string `json:"environment"`
	Background  string `json:"background"`
	Mind        string `json:"mind"`
}

func (e entryIn) gist() string {
	for _, f := range []string{e.Action, e.Dialogue, e.Environment, e.Mind, e.Background} {
		if f != "" {
			w := strings.Fields(f)
			if len(w) > 12 {
				w = append(w[:12], "…")
			}
			return strings.TrimRight(strings.Join(w, " "), ".")
		}
	}
	return "that moment"
}

var kindRE = regexp.MustCompile(`^(?:Type|Strategy) ([A-Za-z_ -]+?):`)

// knowMeQuestion writes the question of its task from the entries given,
// by template.
func knowMeQuestion(in json.RawMessage) (any, error) {
	var x struct {
		Task         string    `json:"task"`
		Instructions string    `json:"instructions"`
		Entries      []entryIn `json:"entries"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	if len(x.Entries) == 0 {
		return nil, fmt.Errorf("no entries")
	}
	kind := ""
	if m := kindRE.FindStringSubmatch(x.Instructions); m != nil {
		kind = m[1]
	}
	e := x.Entries[0]
	ids := func(es []entryIn) []int {
		var out []int
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	q := map[string]any{"evidence": []int{e.ID}, "type": "", "strategy": "", "reasoning": ""}
	switch x.Task {
	case "Information Extraction":
		q["question"] = fmt.Sprintf("Where was I when this happened: %s?", e.gist())
		q["answer"] = e.Location
		q["reasoning"] = fmt.Sprintf("Entry %d records the moment at %s.", e.ID, e.Location)
	case "Adversarial Abstention":
		q["question"] = fmt.Sprintf("What did the weather forecast on the radio say just before this: %s?", e.gist())
		q["answer"] = "The text does not mention / the information is insufficient / I don't know."
		q["strategy"] = kind
		q["evidence"] = ids(x.Entries)
		q["reasoning"] = "No entry mentions a radio or a forecast."
	case "Temporal Reasoning":
		a, b := x.Entries[0], x.Entries[len(x.Entries)-1]
		ta, _ := time.Parse("2006-01-02 15:04:05", a.Timestamp)
		tb, _ := time.Parse("2006-01-02 15:04:05", b.Timestamp)
		q["type"] = kind
		q["evidence"] = []int{a.ID, b.ID}
		if kind == "chronological_ordering" {
			q["question"] = fmt.Sprintf("Which came first: \"%s\" or \"%s\"?", a.gist(), b.gist())
			first := a
			if tb.Before(ta) {
				first = b
			}
			q["answer"] = first.gist()
		} else {
			q["question"] = fmt.Sprintf("How much time passed between \"%s\" and \"%s\"?", a.gist(), b.gist())
			d := tb.Sub(ta)
			if d < 0 {
				d = -d
			}
			q["answer"] = durationText(d)
		}
		q["reasoning"] = fmt.Sprintf("Entry %d is at %s and entry %d at %s.", a.ID, a.Timestamp, b.ID, b.Timestamp)
	case "Logical Event Ordering":
		var list []map[string]any
		for i, e := range x.Entries {
			list = append(list, map[string]any{"rank": i + 1, "event": e.gist(), "reasoning": fmt.Sprintf("Entry %d comes at %s.", e.ID, e.Timestamp)})
		}
		q["question"] = "Rank the key moments of this episode in the order they build up, from the first to the last."
		q["answer"] = list
		q["evidence"] = ids(x.Entries)
	case "Mnestic Trigger Analysis":
		q["type"] = kind
		q["question"] = fmt.Sprintf("What in the present set off my memory around \"%s\", and what did I remember?", e.gist())
		parts := []string{}
		for _, e := range x.Entries {
			parts = append(parts, fmt.Sprintf("%s (%s)", e.gist(), e.Timestamp))
		}
		q["answer"] = strings.Join(parts, "; then ")
		q["evidence"] = ids(x.Entries)
	case "Mind-Body Interaction":
		var m entryIn
		for _, e := range x.Entries {
			if e.Mind != "" {
				m = e
			}
		}
		q["type"] = kind
		q["question"] = fmt.Sprintf("How did what I was thinking relate to what I did at %s?", m.Timestamp)
		q["answer"] = strings.TrimSpace(m.Mind + " " + m.Action + " " + m.Environment)
		q["evidence"] = []int{m.ID}
	default: // Expert-Annotated Psychoanalysis
		var minds []string
		for _, e := range x.Entries {
			if e.Mind != "" && len(minds) < 2 {
				minds = append(minds, e.Mind)
			}
		}
		q["question"] = "What do these moments show about what I hold back from the people close to me?"
		q["answer"] = strings.Join(minds, " ")
		q["evidence"] = ids(x.Entries)
	}
	return q, nil
}

func durationText(d time.Duration) string {
	days := int(d.Hours()) / 24
	h := int(d.Hours()) % 24
	m := int(d.Minutes()) % 60
	var parts []string
	if days > 0 {
		parts = append(parts, fmt.Sprintf("%d days", days))
	}
	if h > 0 {
		parts = append(parts, fmt.Sprintf("%d hours", h))
	}
	if m > 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%d minutes", m))
	}
	return strings.Join(parts, " ")
}
