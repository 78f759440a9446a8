package timeline

import (
	"slices"
	"testing"

	"github.com/memlab/memlab/datasets"
)

// TestSubjectSkipsWhenWords: a word of time or time shape ("autumn",
// "changed", 去年) says when or how a question asks, not what about, so it
// neither names the subject nor counts as missing; AbstainWhenWords keeps
// the old behaviour.
func TestSubjectSkipsWhenWords(t *testing.T) {
	traces := []datasets.Trace{
		{ID: "a", Time: day(1), Text: "Coffee with Jo in the autumn sun."},
		{ID: "b", Time: day(2), Text: "Jo called. Jo and I talked for an hour about coffee."},
		{ID: "c", Time: day(3), Text: "Jo again, coffee again."},
	}
	q := datasets.Question{ID: "q", CorpusID: "p", Text: "How has your coffee with Jo changed since last autumn?", AskedAt: day(10)}
	for _, tc := range []struct {
		keep bool
		want string
	}{{false, "coffe"}, {true, "autumn"}} {
		m := newMem(t, Config{AbstainWhenWords: tc.keep})
		if err := m.Ingest(t.Context(), "p", traces); err != nil {
			t.Fatal(err)
		}
		r, err := m.State(t.Context(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Subject) != 1 || r.Subject[0] != tc.want {
			t.Errorf("AbstainWhenWords=%v: subject %v, want [%s]", tc.keep, r.Subject, tc.want)
		}
		if !tc.keep && slices.Contains(r.Missing, "chang") {
			t.Errorf("a time-shape word counts as missing: %v", r.Missing)
		}
	}
	for _, w := range []string{"autumn", "changed", "usually", "去年", "最近", "一般"} {
		if !whenWord(w) {
			t.Errorf("whenWord(%q) = false", w)
		}
	}
	for _, w := range []string{"coffee", "jo", "marathon", "医生", "公司"} {
		if whenWord(w) {
			t.Errorf("whenWord(%q) = true", w)
		}
	}
}

// TestNegationScope: a negation declines the subject only near it; one
// about something else in the same sentence leaves the mention stated.
func TestNegationScope(t *testing.T) {
	traces := []datasets.Trace{
		{ID: "ecg", Time: day(1), Text: "The ECG was normal, a completely normal heart rhythm, Dr Bashir said, so no cardiology referral needed."},
		{ID: "cry", Time: day(2), Text: "I cried so hard at the wedding that Declan had to give me his napkin, and then I couldn't stop laughing at myself."},
	}
	cases := []struct {
		q     string
		scope int
		want  string
	}{
		{"What did the cardiology team say?", 0, StatusDeclined},
		{"Why did you cry so hard?", 0, StatusStated},
		{"Why did you cry so hard?", -1, StatusDeclined},
	}
	for _, tc := range cases {
		m := newMem(t, Config{NegationScope: tc.scope})
		if err := m.Ingest(t.Context(), "p", traces); err != nil {
			t.Fatal(err)
		}
		r, err := m.State(t.Context(), datasets.Question{ID: "q", CorpusID: "p", Text: tc.q, AskedAt: day(10)}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Mentions) == 0 || r.Mentions[0].Status != tc.want {
			t.Errorf("%q, scope %d: subject %v, mentions %+v, want the first %s", tc.q, tc.scope, r.Subject, r.Mentions, tc.want)
		}
	}
	if !negatedNear("王医生说不用手术", []string{"手术"}, 5) || negatedNear("王医生按了几下，拍了片子，说是腰肌劳损，不是腰椎间盘突出，不用手术", []string{"医生"}, 5) {
		t.Error("negatedNear on Chinese bigrams")
	}
}
