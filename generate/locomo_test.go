package generate

import (
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm/llmtest"
)

func loCoMoQuestion(id string, cat int, answer, adversarial string) datasets.Question {
	q := datasets.Question{ID: id, Task: datasets.LoCoMoCategories[cat], Text: "What did Ann adopt?", Answer: answer,
		Extra: map[string]any{"category": cat}}
	if adversarial != "" {
		q.Extra["adversarial_answer"] = adversarial
	}
	return q
}

// TestLoCoMoPromptFor: LoCoMo questions get LoCoMo's prompts by category;
// an adversarial question without adversarial answer the QA prompt; a
// question that only looks like one (a KnowMe task with a category field)
// does not.
func TestLoCoMoPromptFor(t *testing.T) {
	for _, c := range []struct {
		q    datasets.Question
		want string
	}{
		{loCoMoQuestion("c/1", 1, "x", ""), "locomo-qa"}, {loCoMoQuestion("c/2", 2, "x", ""), "locomo-temporal"},
		{loCoMoQuestion("c/3", 3, "x", ""), "locomo-qa"}, {loCoMoQuestion("c/4", 4, "x", ""), "locomo-qa"},
		{loCoMoQuestion("c/5", 5, "", "a dog"), "locomo-adversarial"}, {loCoMoQuestion("c/6", 5, "", ""), "locomo-qa"},
		{datasets.Question{Task: TaskTemporalReasoning, Extra: map[string]any{"category": 2}}, "knowme-temporal"},
	} {
		if got := PromptFor(c.q).Name; got != c.want {
			t.Errorf("%s (%s): %s, want %s", c.q.ID, c.q.Task, got, c.want)
		}
	}
}

// TestLoCoMoOptions: two options, "Not mentioned" and the adversarial
// answer, in an order fixed by the question id that varies across ids.
func TestLoCoMoOptions(t *testing.T) {
	first := map[string]int{}
	for _, id := range []string{"26/1", "26/2", "26/3", "26/4", "26/5", "26/6", "26/7", "26/8"} {
		q := loCoMoQuestion(id, 5, "", "a dog")
		o := LoCoMoOptions(q)
		if len(o) != 2 || o[0].ID != "a" || o[1].ID != "b" || (o[0].Text == LoCoMoNotMentioned) == (o[1].Text == LoCoMoNotMentioned) ||
			(o[0].Text != "a dog" && o[1].Text != "a dog") {
			t.Fatalf("%s: options %+v", id, o)
		}
		if again := LoCoMoOptions(q); again[0] != o[0] {
			t.Errorf("%s: the order changed between calls", id)
		}
		first[o[0].Text]++
	}
	if len(first) != 2 {
		t.Errorf("eight ids put the same option first: %v", first)
	}
	if LoCoMoOptions(loCoMoQuestion("x", 4, "a", "b")) != nil {
		t.Error("options for a single-hop question")
	}
}

// TestModelReaderLoCoMo: the reader sends LoCoMo's prompts (the temporal
// rule, the two options) and maps an option letter to its text, "Not
// mentioned" as an abstention.
func TestModelReaderLoCoMo(t *testing.T) {
	adv := loCoMoQuestion("26/9", 5, "", "a dog")
	opts := LoCoMoOptions(adv)
	notID, dogID := opts[0].ID, opts[1].ID
	if opts[1].Text == LoCoMoNotMentioned {
		notID, dogID = dogID, notID
	}
	c, srv := fakeClient(t, llmtest.Options{Replies: []string{"a cat", "in May 2023", " (" + notID + ") ", strings.ToUpper(dogID), "I think it was a dog"}})
	r := newReader(t, c, ReaderConfig{})
	ctx := context.Background()
	a, err := r.Answer(ctx, loCoMoQuestion("26/1", 4, "a cat", ""), testPassages)
	if err != nil || a.Text != "a cat" || a.Abstained {
		t.Fatalf("single-hop: %+v, %v", a, err)
	}
	if u := lastCall(t, srv).LastUser(); !strings.Contains(u, "short phrase") || !strings.Contains(u, "Question: What did Ann adopt?\nShort answer:") {
		t.Errorf("single-hop prompt:\n%s", u)
	}
	if _, err := r.Answer(ctx, loCoMoQuestion("26/2", 2, "May 2023", ""), testPassages); err != nil {
		t.Fatal(err)
	}
	if u := lastCall(t, srv).LastUser(); !strings.Contains(u, "from the dates of the sessions") {
		t.Errorf("temporal prompt:\n%s", u)
	}
	for _, want := range []struct {
		text      string
		abstained bool
	}{{LoCoMoNotMentioned, true}, {"a dog", false}, {"I think it was a dog", false}} {
		a, err := r.Answer(ctx, adv, testPassages)
		if err != nil || a.Text != want.text || a.Abstained != want.abstained {
			t.Errorf("adversarial: %+v, %v; want %q, abstained %t", a, err, want.text, want.abstained)
		}
		u := lastCall(t, srv).LastUser()
		if !strings.Contains(u, "("+notID+") "+LoCoMoNotMentioned+"\n") || !strings.Contains(u, "("+dogID+") a dog\n") {
			t.Errorf("adversarial prompt lacks the options:\n%s", u)
		}
	}
}
