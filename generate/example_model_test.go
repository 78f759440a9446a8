package generate_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
)

func ExampleNewModelReader() {
	// A fake OpenAI-compatible server stands in for the model.
	srv, err := llmtest.Start(llmtest.Options{Replies: []string{"Option C", "A or B", "I cannot determine that."}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	conf := "[endpoint fake]\nbase_url = " + srv.URL() + "\napi_key_env = KEY\n[role backbone]\nendpoint = fake\nmodel = gpt-4o-mini\n"
	cfg, err := llm.ParseConfig("example.conf", strings.NewReader(conf), func(string) string { return "k" })
	if err != nil {
		fmt.Println(err)
		return
	}
	client, err := llm.New(cfg, llm.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}

	reader, err := generate.NewModelReader(client, generate.ReaderConfig{PersonName: "Mira Holt"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.HasPrefix(reader.Name(), "model-reader(backbone:gpt-4o-mini,free="))

	q := datasets.Question{ID: "q1", Text: "What did I do after the marathon?", Correct: "C", Choices: []datasets.Choice{
		{ID: "A", Text: "Ran another one"}, {ID: "B", Text: "Moved to Paris"}, {ID: "C", Text: "Stopped running"},
		{ID: "E", Text: "Cannot be determined based on available information"},
	}}
	passages := []generate.Passage{{ID: "t1", Text: "Knee injury, no running for six months.", Medium: "diary"}}
	for i := 0; i < 3; i++ {
		a, err := reader.Answer(context.Background(), q, passages)
		fmt.Printf("%q -> choice %q, outcome %s, abstained %v, err %v\n", a.Raw, a.Choice, a.Outcome, a.Abstained, err)
	}
	call := srv.Calls()[0]
	fmt.Printf("temperature %.1f, max tokens %d\n", call.Temperature, call.MaxTokens)
	// Output:
	// true
	// "Option C" -> choice "C", outcome chosen, abstained false, err <nil>
	// "A or B" -> choice "", outcome ambiguous, abstained false, err <nil>
	// "I cannot determine that." -> choice "E", outcome chosen, abstained true, err <nil>
	// temperature 0.1, max tokens 16
}

func ExamplePromptFor() {
	for _, task := range []string{"Logical Event Ordering", "Mnestic Trigger Analysis", "Adversarial Abstention", "Mind-Body Interaction", "emotion_recall"} {
		fmt.Println(task, "->", generate.PromptFor(datasets.Question{Task: task}).Name)
	}
	fmt.Println("with options ->", generate.PromptFor(datasets.Question{Choices: []datasets.Choice{{ID: "A", Text: "x"}}}).Name)
	// Output:
	// Logical Event Ordering -> knowme-ordering
	// Mnestic Trigger Analysis -> knowme-temporal
	// Adversarial Abstention -> knowme-abstention
	// Mind-Body Interaction -> knowme-insight
	// emotion_recall -> clonemem-free
	// with options -> clonemem-choice
}
