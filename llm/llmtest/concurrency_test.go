package llmtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/memlab/memlab/llm/llmtest"
)

// TestConcurrencyAndRepeats: with Concurrency 2, no more than two calls
// are answered at once however many come; the stats count the calls sent
// again with the same body, the calls by client, and are served as JSON
// at StatsPath; with Forget no call is kept.
func TestConcurrencyAndRepeats(t *testing.T) {
	s := start(t, llmtest.Options{Concurrency: 2, Latency: 30 * time.Millisecond, Forget: true, StatsPath: "/stats"})
	c := client(s, "", 0)
	ask := func(text string) {
		_, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m",
			Messages: []openai.ChatCompletionMessage{{Role: "user", Content: text}}})
		if err != nil {
			t.Error(err)
		}
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ask(fmt.Sprintf("question %d", i%6)) // 2 and 3... asked twice
		}()
	}
	wg.Wait()
	st := s.Stats()
	if st.MaxAnswering < 1 || st.MaxAnswering > 2 {
		t.Errorf("%d calls answered at once, want at most 2", st.MaxAnswering)
	}
	if st.ModelCalls != 8 || st.Distinct != 6 || st.ByClient["127.0.0.1"] != 8 || len(st.InFlightByClient) != 0 || st.RepeatedFrom["127.0.0.1"] != 2 || st.AnsweredByClient["127.0.0.1"] != 8 {
		t.Errorf("stats %+v, want 8 calls, 6 distinct, 8 from 127.0.0.1, none in flight", st)
	}
	if n := len(s.Calls()); n != 0 {
		t.Errorf("%d calls kept with Forget", n)
	}
	resp, err := http.Get("http://" + s.Addr() + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var served llmtest.Stats
	if err := json.NewDecoder(resp.Body).Decode(&served); err != nil || served.ModelCalls != 8 || served.Distinct != 6 {
		t.Errorf("served stats %+v (%v)", served, err)
	}
	if _, err := llmtest.Start(llmtest.Options{Concurrency: -1}); err == nil {
		t.Error("a negative concurrency was accepted")
	}
}
