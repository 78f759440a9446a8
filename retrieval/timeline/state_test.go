package timeline

import (
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
)

// A plan explored, then declined, then done: the topic's dated state
// changes, the state at each time, the changes between two times, and the
// question's subject decided or not at its time.
func TestStateChangesAndDecision(t *testing.T) {
	ctx := t.Context()
	traces := []datasets.Trace{
		{ID: "s1", Time: day(1), Medium: "search_history", Text: "- half marathon training plan 12 weeks\n- half marathon entry fee"},
		{ID: "s2", Time: day(10), Medium: "diary", Text: "Still thinking about the half marathon. Maybe next year."},
		{ID: "s3", Time: day(20), Medium: "social_media", Text: "No, I haven't signed up for the half marathon."},
		{ID: "s4", Time: day(40), Medium: "diary", Text: "I signed up for the half marathon today. Booked and paid."},
		{ID: "s5", Time: day(41), Medium: "diary", Text: "Bought new shoes for the half marathon training."},
	}
	m := newMem(t, Config{})
	if err := m.Ingest(ctx, "p", traces); err != nil {
		t.Fatal(err)
	}
	q := func(at int) datasets.Question {
		return datasets.Question{ID: "q", CorpusID: "p", Text: "Which half marathon did you run, and what was your time?", AskedAt: day(at)}
	}
	early, err := m.State(ctx, q(25), 10)
	if err != nil {
		t.Fatal(err)
	}
	if early.Decided || !early.Undetermined || early.Status != StatusDeclined || len(early.Mentions) != 4 {
		t.Errorf("day 25: %+v, want undetermined, declined, not decided, 4 mentions", early)
	}
	for _, mt := range early.Mentions {
		if mt.Time.After(day(25)) {
			t.Errorf("day 25: mention of %s dated %s", mt.TraceID, mt.Time)
		}
	}
	if strings.Contains(early.Summary, "s4") || !strings.Contains(early.Summary, "NOT determined") || !strings.Contains(early.Summary, "[s3]") {
		t.Errorf("day 25 summary:\n%s", early.Summary)
	}
	late, err := m.State(ctx, q(50), 10)
	if err != nil {
		t.Fatal(err)
	}
	if !late.Decided || late.Status != StatusDecided || late.Score >= early.Score || !strings.Contains(late.Summary, "[s4]") {
		t.Errorf("day 50: %+v, want decided with a lower score than %.3f", late, early.Score)
	}
	// the topic's dated sequence
	states := m.States("p", day(50))
	var ts TopicState
	for _, s := range states {
		for _, ch := range s.Changes {
			if ch.TraceIDs[0] == "s1" {
				ts = s
			}
		}
	}
	var seq []string
	for _, ch := range ts.Changes {
		seq = append(seq, ch.TraceIDs[0]+":"+ch.Status)
	}
	if got := strings.Join(seq, " "); !strings.HasPrefix(got, "s1:explored") || !strings.Contains(got, "s3:declined") || !strings.Contains(got, "s4:decided") {
		t.Errorf("state changes %q", got)
	}
	if at, ok := m.StateAt("p", ts.Topic, day(30)); !ok || at.Status != StatusDeclined {
		t.Errorf("state at day 30: %+v %v, want declined", at, ok)
	}
	start, had, chs := m.Changes("p", ts.Topic, day(15), day(45))
	if !had || start.Status != StatusExplored || len(chs) == 0 || chs[0].TraceIDs[0] != "s3" || chs[len(chs)-1].Time.After(day(45)) {
		t.Errorf("changes between days 15 and 45: from %+v (%v), %+v", start, had, chs)
	}
	if _, ok := m.StateAt("p", "t99", day(30)); ok {
		t.Error("unknown topic: ok")
	}
	if _, _, chs := m.Changes("p", ts.Topic, day(0), day(0)); len(chs) != 0 {
		t.Errorf("before any trace: %+v", chs)
	}
}

func TestSentenceStatus(t *testing.T) {
	for _, c := range []struct{ s, medium, want string }{
		{"I signed the contract today.", "diary", StatusDecided},
		{"Maybe I'll sign up in the autumn.", "diary", StatusExplored},
		{"Should I enter?", "chat", StatusExplored},
		{"I hadn't entered.", "diary", StatusDeclined},
		{"The ECG was normal, so no referral needed.", "diary", StatusDeclined},
		{"The class was lovely.", "diary", StatusStated},
		{"anything at all", "search_history", StatusExplored},
		{"我还在犹豫要不要报名。", "chat", StatusExplored},
		{"我没报名。", "chat", StatusDeclined},
		{"我决定辞职了。", "diary", StatusDecided},
	} {
		if got := sentenceStatus(c.s, c.medium); got != c.want {
			t.Errorf("sentenceStatus(%q, %s) = %s, want %s", c.s, c.medium, got, c.want)
		}
	}
}
