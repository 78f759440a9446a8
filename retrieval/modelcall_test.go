package retrieval

import (
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
)

// shortEmbedder returns one vector fewer than asked.
type shortEmbedder struct{}

func (shortEmbedder) Name() string { return "short" }
func (shortEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return make([][]float32, len(texts)-1), nil
}

func TestChatAndEmbedMetered(t *testing.T) {
	srv, err := llmtest.Start(llmtest.Options{Replies: []string{`{"ok": true}`, "no json here", "no json here"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := llm.SingleEndpoint(srv.URL(), "m")
	cfg.Endpoints["default"].MaxAttempts = 2
	c, _ := llm.New(cfg, llm.Options{})
	var m Meter
	req := llm.ChatRequest{Role: llm.RoleExtractor, Messages: []llm.Message{{Role: "user", Content: "x"}}, ResponseFormat: llm.FormatJSONObject}
	reply, bad, err := ChatMetered(context.Background(), c, req, &m, false)
	if err != nil || bad || reply != `{"ok": true}` || m.IngestCalls != 1 || m.IngestTokens == 0 {
		t.Fatalf("good reply: %q bad=%v err=%v meter %+v", reply, bad, err, m)
	}
	reply, bad, err = ChatMetered(context.Background(), c, req, &m, true)
	if err != nil || !bad || !strings.Contains(reply, "no JSON object") || m.QueryCalls != 1 {
		t.Errorf("rejected reply: %q bad=%v err=%v meter %+v: want bad, counted at query time, no error", reply, bad, err, m)
	}
	if _, err := EmbedMetered(context.Background(), shortEmbedder{}, []string{"a", "b"}, &m, false); err == nil || !strings.Contains(err.Error(), "returned 1 vectors for 2 texts") {
		t.Errorf("short embedder: %v", err)
	}
	if m.IngestEmbeds != 0 {
		t.Errorf("a failed embed was metered: %+v", m)
	}
}
