package generate_test

import (
	"context"
	"fmt"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
)

func ExampleParseChoice() {
	choices := []datasets.Choice{
		{ID: "A", Text: "Berlin"}, {ID: "B", Text: "Paris"},
		{ID: "E", Text: "Cannot be determined based on available information"},
	}
	for _, out := range []string{"(b)", "The answer is A because the diary says so.", "答案：E", "paris", "A or B"} {
		id, err := generate.ParseChoice(out, choices)
		fmt.Printf("%q -> %q %v\n", out, id, err)
	}
	// Output:
	// "(b)" -> "B" <nil>
	// "The answer is A because the diary says so." -> "A" <nil>
	// "答案：E" -> "E" <nil>
	// "paris" -> "B" <nil>
	// "A or B" -> "" generate: parse choice "A or B": several options named: A, B
}

func ExampleExtractive() {
	reader := generate.NewExtractive()
	passages := []generate.Passage{
		{ID: "t1", TraceIDs: []string{"t1"}, Text: "Ran my first marathon in Berlin today. Exhausted but so proud!"},
		{ID: "t2", TraceIDs: []string{"t2"}, Text: "Coffee with mum, we talked about her garden."},
	}
	q := datasets.Question{ID: "q1", Text: "How did I feel after my first marathon?", Correct: "A", Choices: []datasets.Choice{
		{ID: "A", Text: "Proud and exhausted"}, {ID: "B", Text: "Disappointed"},
		{ID: "E", Text: "Cannot be determined based on available information"},
	}}
	a, err := reader.Answer(context.Background(), q, passages)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(reader.Name())
	fmt.Println(a.Choice, a.TraceIDs, a.Raw)

	q.Choices, q.Correct = nil, ""
	a, _ = reader.Answer(context.Background(), q, passages)
	fmt.Println(a.Text)
	// Output:
	// extractive (offline)
	// A [t1] A=1.000 B=0.000 E=cannot-be-determined (threshold 0.50, margin 0.10, 1 relevant passages)
	// Ran my first marathon in Berlin today.
}
