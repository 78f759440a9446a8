package llmtest_test

import (
	"context"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/memlab/memlab/llm/llmtest"
)

// Example starts a fake server with one scripted reply, calls it with
// go-openai, and reads what the server recorded.
func Example() {
	s, err := llmtest.Start(llmtest.Options{APIKey: "sk-test", Replies: []string{"Lisbon"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	cfg := openai.DefaultConfig("sk-test")
	cfg.BaseURL = s.URL()
	client := openai.NewClientWithConfig(cfg)
	resp, err := client.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model:       "gpt-4o-mini",
		Temperature: 0.2,
		Messages:    []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "Where does Alice live?"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Choices[0].Message.Content, resp.Usage.TotalTokens)

	call := s.Calls()[0]
	fmt.Printf("%s %.1f %s\n", call.Model, call.Temperature, call.Outcome)
	// Output:
	// Lisbon 5
	// gpt-4o-mini 0.2 ok
}
