package standin

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/memlab/memlab/construct"
)

func init() {
	register("clonemem.persona", cmPersona)
	register("clonemem.relations", cmRelations)
	register("clonemem.seeds", cmSeeds)
	register("clonemem.arc", cmArc)
	register("clonemem.events", cmEvents)
	register("clonemem.phase", cmPhase)
	register("clonemem.details", cmDetails)
	register("clonemem.intent", cmIntent)
	register("clonemem.trace", cmTrace)
	register("clonemem.qa_plan", cmPlan)
	register("clonemem.qa_write", cmWrite)
	register("clonemem.choices", cmChoices)
	rules["clonemem.sufficiency"] = func(json.RawMessage) (any, error) {
		return map[string]any{"sufficient": true, "reason": "The cited traces state it."}, nil
	}
	rules["clonemem.choices.check"] = pass
}

func pick(key string, xs []string) string {
	h := fnv.New32a()
	h.Write([]byte(key))
	return xs[int(h.Sum32()%uint32(len(xs)))]
}

var (
	firstNames = []string{"Maren", "Tomas", "Aiko", "Jonah", "Lena", "Ravi"}
	lastNames  = []string{"Holt", "Reyes", "Brandt", "Okafor", "Varga", "Mehta"}
	relNames   = []string{"Sofie", "Daniel", "Priya", "Marcus", "Hanna", "Luis"}
)

func cmPersona(in json.RawMessage) (any, error) {
	var x struct {
		PersonID string             `json:"person_id"`
		BigFive  construct.BigFive  `json:"big_five"`
		Start    string             `json:"start"`
		Extra    map[string]float64 `json:"-"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	name := pick("first"+x.PersonID, firstNames) + " " + pick("last"+x.PersonID, lastNames)
	t := x.BigFive
	trait := func(v float64, hi, lo string) string {
		if v >= 0.5 {
			return hi
		}
		return lo
	}
	return construct.Profile{Name: name, Age: 29 + len(x.PersonID)%7, Gender: pick("g"+x.PersonID, []string{"woman", "man"}),
		Personality: fmt.Sprintf("%s is %s, %s and %s; %s.", name, trait(t.Openness, "curious", "practical"), trait(t.Conscientiousness, "organised", "easy-going"),
			trait(t.Extraversion, "sociable", "reserved"), trait(t.Neuroticism, "prone to worry", "calm under pressure")),
		Family: "An older sister, Sofie, and parents who live two hours away.", Education: "A degree in geography.",
		Occupation: "Logistics planner at a mid-sized freight company, working from home most days.",
		Concerns:   []string{"whether remote work is isolating", "money for a bigger flat", "not having a creative outlet"},
		Interests:  []string{"music", "running", "cooking"},
		Narrative:  fmt.Sprintf("%s grew up in a small town, moved to the city for university and has worked in logistics since. Before %s life was steady but a little flat.", name, x.Start),
	}, nil
}

func cmRelations(in json.RawMessage) (any, error) {
	return map[string]any{"relations": []construct.Relation{
		{Name: "Sofie", Relation: "family", Description: "Older sister, the one they call first."},
		{Name: "Daniel", Relation: "partner", Description: "Partner of three years."},
		{Name: "Priya", Relation: "friend", Description: "Friend since university."},
		{Name: "Marcus", Relation: "colleague", Description: "Team lead at the freight company."},
	}}, nil
}

func cmSeeds(in json.RawMessage) (any, error) {
	var x struct {
		Predefined []string `json:"predefined"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	var kept []string
	for _, s := range x.Predefined {
		if s == "taking up a hobby" || s == "career transition" || s == "reconnecting with a friend" || s == "moving house" {
			kept = append(kept, s)
		}
	}
	return map[string]any{"kept": kept, "added": []string{"joining a community choir", "training for a 10k run"}}, nil
}

var arcTemplates = map[string]construct.Arc{
	"experience": {Title: "Taking up the cello", Anchors: []construct.Anchor{
		{State: "first lessons", Description: "Rents a cello and takes weekly lessons.", Cues: []string{"searches for teachers", "complains about sore fingers"}},
		{State: "steady practice", Description: "Practises most evenings.", Cues: []string{"logs practice minutes", "mentions scales"}},
		{State: "playing with others", Description: "Joins an amateur ensemble.", Cues: []string{"rehearsal dates", "nerves before playing"}},
		{State: "first concert", Description: "Plays a small public concert.", Cues: []string{"invites friends", "posts a photo"}}}},
	"emotion": {Title: "From restless to settled", Anchors: []construct.Anchor{
		{State: "restless", Description: "Feels stuck and a little lonely.", Cues: []string{"late-night diary entries", "short replies"}},
		{State: "hopeful", Description: "Has something to look forward to.", Cues: []string{"plans ahead", "exclamation marks"}},
		{State: "settled", Description: "Feels at ease with the routine.", Cues: []string{"fewer worries in the diary", "longer chats"}},
		{State: "confident", Description: "Trusts their own choices.", Cues: []string{"says yes to new things", "gives advice"}}}},
	"opinion": {Title: "What remote work is worth", Anchors: []construct.Anchor{
		{State: "enthusiastic about remote work", Description: "Sees only its benefits.", Cues: []string{"praises the lack of commute"}},
		{State: "doubtful about remote work", Description: "Notices the isolation.", Cues: []string{"misses colleagues", "asks about the office"}},
		{State: "in favour of a hybrid week", Description: "Wants two office days.", Cues: []string{"proposes office days"}},
		{State: "convinced by the hybrid week", Description: "Defends the hybrid model.", Cues: []string{"argues for it with others"}}}},
}

func cmArc(in json.RawMessage) (any, error) {
	var x struct {
		Dimension string `json:"dimension"`
		Anchors   int    `json:"anchors"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	t := arcTemplates[x.Dimension]
	a := construct.Arc{Title: t.Title, Triggers: []string{"a lesson that goes well", "a conversation with a friend", "a hard week at work"}}
	for i := range x.Anchors {
		an := t.Anchors[i%len(t.Anchors)]
		if i >= len(t.Anchors) {
			an.State = fmt.Sprintf("%s (again, %d)", an.State, i+1)
		}
		a.Anchors = append(a.Anchors, an)
	}
	return a, nil
}

func cmEvents(in json.RawMessage) (any, error) {
	var x struct {
		Seeds []string                 `json:"seeds"`
		Arcs  map[string]construct.Arc `json:"arcs"`
		Count int                      `json:"count"`
		Start string                   `json:"start"`
		End   string                   `json:"end"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	lo, _ := time.Parse("2006-01-02", x.Start)
	hi, _ := time.Parse("2006-01-02", x.End)
	days := int(hi.Sub(lo).Hours()/24) + 1
	var evs []construct.MajorEvent
	for i := range x.Count {
		st := map[string]int{}
		for d, a := range x.Arcs {
			st[d] = i * len(a.Anchors) / x.Count
		}
		seed := x.Seeds[i%len(x.Seeds)]
		evs = append(evs, construct.MajorEvent{Title: "Event " + fmt.Sprint(i+1) + ": " + seed, Date: lo.AddDate(0, 0, i*days/x.Count).Format("2006-01-02"),
			Seed: seed, Description: "A turn in the person's life around " + seed + ".", ArcStates: st})
	}
	return map[string]any{"events": evs}, nil
}

func cmPhase(in json.RawMessage) (any, error) {
	var x struct {
		Arcs     map[string]construct.Arc `json:"arcs"`
		Event    construct.MajorEvent     `json:"event"`
		K        int                      `json:"k"`
		From     string                   `json:"from"`
		To       string                   `json:"to"`
		Snapshot construct.Snapshot       `json:"snapshot"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	h := x.Snapshot
	h.Energy = min(10, max(0, h.Energy+[]int{1, -1, 0}[x.K%3]))
	h.Stress = min(10, max(0, h.Stress+[]int{-1, 1, 0}[x.K%3]))
	h.Arcs = map[string]string{}
	for d, a := range x.Arcs {
		if i := x.Event.ArcStates[d]; i >= 0 && i < len(a.Anchors) {
			h.Arcs[d] = a.Anchors[i].State
		}
	}
	h.Emotion = h.Arcs["emotion"]
	h.Focus = x.Event.Seed
	return map[string]any{"phase": construct.Phase{Title: fmt.Sprintf("%s, part %d", x.Event.Title, x.K), Start: x.From, End: x.To,
		Summary: "Weeks shaped by " + x.Event.Seed + "."}, "snapshot": h}, nil
}

func cmDetails(in json.RawMessage) (any, error) {
	var x struct {
		Profile  construct.Profile  `json:"profile"`
		Phase    construct.Phase    `json:"phase"`
		Snapshot construct.Snapshot `json:"snapshot"`
		Count    int                `json:"count"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	lo, _ := time.Parse("2006-01-02", x.Phase.Start)
	hi, _ := time.Parse("2006-01-02", x.Phase.End)
	days := int(hi.Sub(lo).Hours()/24) + 1
	first := strings.Fields(x.Profile.Name)[0]
	var ds []construct.Detail
	for i := range x.Count {
		date := lo.AddDate(0, 0, i*days/max(1, x.Count))
		d := date.Format("2006-01-02")
		ds = append(ds, construct.Detail{Date: d, Title: fmt.Sprintf("%s, day %d", x.Phase.Title, i+1),
			Description: fmt.Sprintf("On %s %s spends the evening on %s.", d, first, x.Snapshot.Focus),
			Evidence: []construct.Evidence{
				{Kind: "fact", Statement: fmt.Sprintf("On %s, %s was at the stage of %s with the cello.", date.Format("2 January"), first, x.Snapshot.Arcs["experience"]), Arcs: []string{"experience"}},
				{Kind: "emotion", Statement: fmt.Sprintf("%s felt %s on %s.", first, x.Snapshot.Arcs["emotion"], date.Format("2 January")), Arcs: []string{"emotion"}},
				{Kind: "opinion", Statement: fmt.Sprintf("%s was %s on %s.", first, x.Snapshot.Arcs["opinion"], date.Format("2 January")), Arcs: []string{"opinion"}},
			}})
	}
	return map[string]any{"events": ds}, nil
}

func cmIntent(in json.RawMessage) (any, error) {
	var x struct {
		Event  construct.Detail `json:"event"`
		Medium string           `json:"medium"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	var k []int
	for i := range x.Event.Evidence {
		k = append(k, i)
	}
	aud := map[string]string{"diary": "myself", "chat_private": "Priya", "chat_group": "the choir group", "memo": "myself", "email": "Marcus",
		"social_media": "the public", "search_history": "a search engine"}[x.Medium]
	return map[string]any{"intent": "to keep track of the day", "audience": aud, "key_information": k}, nil
}

// firstPerson turns a statement about the person into their own words.
func firstPerson(s, first string) string {
	s = strings.ReplaceAll(s, first+" was", "I was")
	s = strings.ReplaceAll(s, first+" felt", "I felt")
	return strings.ReplaceAll(s, first, "I")
}

func cmTrace(in json.RawMessage) (any, error) {
	var x struct {
		Person string               `json:"person"`
		Medium string               `json:"medium"`
		Key    []construct.Evidence `json:"key_information"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	first := strings.Fields(x.Person)[0]
	var lines []string
	for _, e := range x.Key {
		lines = append(lines, firstPerson(e.Statement, first))
	}
	var c string
	switch x.Medium {
	case "chat_private":
		for _, l := range lines {
			c += fmt.Sprintf("**%s:** %s\n**Priya:** really? tell me more\n", first, l)
		}
	case "chat_group":
		c = "*Choir friends*\n\n"
		for _, l := range lines {
			c += fmt.Sprintf("**%s:** %s\n**Hanna:** good to hear\n", first, l)
		}
	case "email":
		c = "Subject: A quick update\nFrom: " + x.Person + "\nTo: Marcus\n\nHi Marcus,\n\n" + strings.Join(lines, " ") + "\n\nBest,\n" + first
	case "search_history":
		for _, l := range lines {
			w := strings.Fields(strings.ToLower(strings.TrimRight(l, ".")))
			c += "- " + strings.Join(w[:min(6, len(w))], " ") + "\n"
		}
	case "memo":
		c = "Notes\n"
		for _, l := range lines {
			c += "- " + l + "\n"
		}
	case "social_media":
		c = strings.Join(lines, " ") + " #cello #life"
	default:
		c = "Dear diary. " + strings.Join(lines, " ")
	}
	return map[string]any{"content": strings.TrimSpace(c)}, nil
}

func cmPlan(in json.RawMessage) (any, error) {
	var x struct {
		Type    string                  `json:"type"`
		Segment []construct.SegmentItem `json:"segment"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	need := map[string]int{"single_point_factual": 1, "unanswerable": 1}[x.Type]
	if need == 0 {
		need = 2
	}
	if len(x.Segment) < need {
		return map[string]any{"supported": false, "reason": fmt.Sprintf("a %s question needs at least %d pieces of evidence", x.Type, need),
			"evidence": []string{}, "from": "", "to": "", "outline": ""}, nil
	}
	var ev []string
	switch x.Type {
	case "single_point_factual", "unanswerable":
		ev = []string{x.Segment[len(x.Segment)-1].ID}
	case "comparison":
		ev = []string{x.Segment[0].ID, x.Segment[len(x.Segment)-1].ID}
	default:
		for _, s := range x.Segment[max(0, len(x.Segment)-3):] {
			ev = append(ev, s.ID)
		}
	}
	return map[string]any{"supported": true, "reason": "the segment has the evidence", "evidence": ev,
		"from": x.Segment[0].Date, "to": x.Segment[len(x.Segment)-1].Date, "outline": "from the evidence to the answer"}, nil
}

func cmWrite(in json.RawMessage) (any, error) {
	var x struct {
		Person   string `json:"person"`
		Type     string `json:"type"`
		Plan     struct{ Evidence []string }
		Evidence []construct.SegmentItem `json:"evidence"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	if len(x.Evidence) == 0 {
		return nil, fmt.Errorf("no evidence")
	}
	first := strings.Fields(x.Person)[0]
	var ids, said []string
	for _, e := range x.Evidence {
		ids = append(ids, e.ID)
		said = append(said, firstPerson(e.Statement, first))
	}
	a, z := x.Evidence[0], x.Evidence[len(x.Evidence)-1]
	var q, ans string
	switch x.Type {
	case "single_point_factual":
		q, ans = fmt.Sprintf("Remind me, how were things around %s?", z.Date), said[len(said)-1]
	case "comparison":
		q, ans = fmt.Sprintf("How do things now compare with how they were around %s?", a.Date), "Back then: "+said[0]+" Later: "+said[len(said)-1]
	case "trajectory":
		q, ans = "How have things developed over the last while?", strings.Join(said, " Then ")
	case "pattern":
		q, ans = "Is there something that keeps coming back for you lately?", strings.Join(said, " Again, ")
	case "causal":
		q, ans = "What led to where you are now?", said[0]+" That led to this: "+said[len(said)-1]
	case "counterfactual":
		q, ans = "If things had not gone the way they did at first, where do you think you would be now?", "Probably not where I am: "+said[len(said)-1]
	case "inferential":
		q, ans = "What does all of this say about how you are doing?", "Taken together: "+strings.Join(said, " ")
	default: // unanswerable
		q, ans = "Did you ever find out what the teacher thought of your recording?", "I can't say: that was never settled anywhere I wrote it down."
	}
	return map[string]any{"question": q, "answer": ans, "evidence": []map[string]any{{"statement": strings.Join(said, " "), "evidence_ids": ids}}}, nil
}

func cmChoices(in json.RawMessage) (any, error) {
	var x struct {
		Answer    string   `json:"answer"`
		Type      string   `json:"type"`
		LaterTrue []string `json:"later_true"`
		Count     int      `json:"count"`
	}
	if err := json.Unmarshal(in, &x); err != nil {
		return nil, err
	}
	pool := []string{"Nothing changed at all; it stayed exactly as it was.", "I gave it up after the first week.",
		"It was the other way round from what you think.", "I never talked about that with anyone.", "It only happened once, years ago."}
	var ds []map[string]any
	for _, l := range x.LaterTrue {
		if len(ds) < x.Count {
			ds = append(ds, map[string]any{"text": l, "later_true": true})
		}
	}
	for _, p := range pool {
		if len(ds) < x.Count {
			ds = append(ds, map[string]any{"text": p, "later_true": false})
		}
	}
	correct := x.Answer
	if w := strings.Fields(correct); len(w) > 24 {
		correct = strings.Join(w[:24], " ") + "…"
	}
	if x.Type == "unanswerable" {
		correct = ""
	}
	return map[string]any{"correct": correct, "distractors": ds}, nil
}
