package reports_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/reports"
)

// TestClientUsageTable: a client's calls on the fake server, one of them
// served by the cache, become one row per role and model, a total row
// when there are several, and "no price" for an unpriced model.
func TestClientUsageTable(t *testing.T) {
	srv, err := llmtest.Start(llmtest.Options{Replies: []string{"one two three"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	conf, err := llm.ParseConfig("test.conf", strings.NewReader("[endpoint fake]\nbase_url = "+srv.URL()+"\n"+
		"[role backbone]\nendpoint = fake\nmodel = test-model\n[role judge]\nendpoint = fake\nmodel = judge-model\n"+
		"[prices]\ntest-model = 1.0, 2.0\n"), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ch, err := cache.Open(filepath.Join(t.TempDir(), "calls.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	c, err := llm.New(conf, llm.Options{Cache: ch})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	msg := []llm.Message{{Role: "user", Content: "a b c d"}}
	for range 2 {
		if _, err := c.Chat(ctx, llm.ChatRequest{Messages: msg}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Chat(ctx, llm.ChatRequest{Role: llm.RoleJudge, Messages: msg}); err != nil {
		t.Fatal(err)
	}
	md := reports.ClientUsageTable(c.Usage()).Markdown()
	for _, want := range []string{"| backbone | test-model | 1 | 1 | 0 |", "| judge | judge-model | 1 | 0 | 0 |", "no price |", "| all | all | 2 | 1 | 0 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("usage table lacks %q:\n%s", want, md)
		}
	}
}
