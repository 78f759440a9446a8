package llmtest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/memlab/memlab/llm/llmtest"
)

// TestUnauthorizedFault: the unauthorized fault answers model calls 401
// invalid_api_key and leaves the model list open.
func TestUnauthorizedFault(t *testing.T) {
	srv, err := llmtest.Start(llmtest.Options{Faults: llmtest.Faults{Rate401: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Get(srv.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /models: %d, want 200", resp.StatusCode)
	}
	for _, c := range []struct{ path, body string }{
		{"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`},
		{"/embeddings", `{"model":"e","input":["hi"]}`},
	} {
		resp, err := http.Post(srv.URL()+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(b), "invalid_api_key") {
			t.Errorf("POST %s: %d %s, want 401 invalid_api_key", c.path, resp.StatusCode, b)
		}
	}
	if st := srv.Stats(); st.ByOutcome[llmtest.FaultUnauthorized] != 2 {
		t.Errorf("outcomes %v", st.ByOutcome)
	}
}
