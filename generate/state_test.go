package generate

import (
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
)

func stateQuestion() (datasets.Question, []Passage) {
	q := datasets.Question{ID: "q", Text: "Which half marathon did you run?", Choices: []datasets.Choice{
		{ID: "A", Text: "The Avon Valley Half"}, {ID: "B", Text: "The Bristol Half"},
		{ID: "E", Text: "Cannot be determined based on available information"}}, Correct: "E"}
	ps := []Passage{{ID: "t1", TraceIDs: []string{"t1"}, Text: "Opened the Avon Valley Half entry page again."}}
	return q, ps
}

// The "cannot be determined" choice follows the memory's decision.
func TestExtractiveFollowsTheSignal(t *testing.T) {
	q, ps := stateQuestion()
	r := NewExtractive()
	plain, err := r.Answer(t.Context(), q, ps)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Choice != "A" {
		t.Fatalf("without a state passage: %+v, want A (support rule)", plain)
	}
	undet := append(append([]Passage(nil), ps...), Passage{ID: "state", Kind: KindState, Text: "Verdict: NOT determined", Score: 0.9, Undetermined: true})
	a, err := r.Answer(t.Context(), q, undet)
	if err != nil {
		t.Fatal(err)
	}
	if a.Choice != "E" || !a.Abstained || !strings.Contains(a.Raw, "memory: undetermined") {
		t.Errorf("undetermined: %+v, want E", a)
	}
	// determined: the best other option, even under the support threshold
	weak := []Passage{{ID: "t1", TraceIDs: []string{"t1"}, Text: "The half: Avon."},
		{ID: "state", Kind: KindState, Text: "Verdict: determined", Score: 0.1}}
	a, _ = r.Answer(t.Context(), q, weak)
	if a.Choice != "A" || a.Abstained {
		t.Errorf("determined: %+v, want A", a)
	}
	b, _ := r.Answer(t.Context(), q, weak[:1])
	if b.Choice != "E" {
		t.Errorf("same evidence without the state: %+v, want the support rule's E", b)
	}
	// ignored
	ig := r
	ig.Signal = SignalIgnore
	if a, _ := ig.Answer(t.Context(), q, undet); a.Choice != "A" {
		t.Errorf("signal=ignore: %+v, want A", a)
	}
	if ig.Spec().String() == r.Spec().String() || !strings.Contains(ig.Spec().String(), `"signal":"ignore"`) {
		t.Errorf("specs: %s, %s", ig.Spec(), r.Spec())
	}
	bad := r
	bad.Signal = "sometimes"
	if _, err := bad.Answer(t.Context(), q, ps); err == nil || !strings.Contains(err.Error(), "sometimes") {
		t.Errorf("bad signal: %v", err)
	}
	// the summary is not evidence: a free-text answer never quotes it
	free := q
	free.Choices, free.Correct = nil, ""
	if a, _ := r.Answer(t.Context(), free, []Passage{{ID: "state", Kind: KindState, Text: "half marathon run verdict"}}); a.Text != "" {
		t.Errorf("free text from the summary alone: %+v", a)
	}
}

// The model reader's prompt shows the summary and its verdict after the
// memories, never as a memory block; without it the text is as before.
func TestRenderStateSection(t *testing.T) {
	q, ps := stateQuestion()
	_, before, err := PromptCloneMemChoice.Render("Ines", q, ps)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(before, "summary") {
		t.Errorf("no state passage, yet a summary:\n%s", before)
	}
	with := append(append([]Passage(nil), ps...), Passage{ID: "state", Kind: KindState, Text: "State of things at 2024-05-01.\nVerdict: NOT determined", Undetermined: true})
	_, user, err := PromptCloneMemChoice.Render("Ines", q, with)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(user, before) || strings.Count(user, "---- idx") != 1 || !strings.Contains(user, "State of things at 2024-05-01.") ||
		!strings.Contains(user, "NOT determined at this time") || !strings.Contains(user, "pick the option that says it cannot be determined") {
		t.Errorf("with an undetermined state:\n%s", user)
	}
	with[1].Undetermined = false
	_, user, _ = PromptKnowMeAbstention.Render("", datasets.Question{ID: "k", Text: "What brand?"}, with)
	if !strings.Contains(user, "the records above do determine it") || strings.Contains(user, "pick the option") {
		t.Errorf("determined, free text:\n%s", user)
	}
	if len(StateSectionHash) != 12 {
		t.Errorf("StateSectionHash %q", StateSectionHash)
	}
}
