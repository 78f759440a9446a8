package llm

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

const goodConfig = `# test config
[endpoint vllm]
base_url = http://127.0.0.1:8000/v1/, http://127.0.0.1:8001/v1   # two replicas
api_key_env = VLLM_KEY
max_concurrency = 32
requests_per_minute = 600
tokens_per_minute = 400000
timeout = 45s
max_attempts = 4

[endpoint openai]
base_url = https://api.openai.com/v1
api_key_env = OPENAI_API_KEY

[role backbone]
endpoint = vllm
model = Qwen2.5-7B-Instruct

[role judge]
endpoint = openai
model = gpt-4o-mini-2024-07-18

[prices]
gpt-4o-mini-2024-07-18 = 0.15, 0.60
`

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig("models.conf", strings.NewReader(goodConfig), env(map[string]string{"VLLM_KEY": "k1"}))
	if err != nil {
		t.Fatal(err)
	}
	v := c.Endpoints["vllm"]
	if len(v.BaseURLs) != 2 || v.BaseURLs[0] != "http://127.0.0.1:8000/v1" || v.MaxConcurrency != 32 ||
		v.RequestsPerMinute != 600 || v.TokensPerMinute != 400000 || v.Timeout != 45*time.Second || v.MaxAttempts != 4 || !v.HasKey() {
		t.Errorf("vllm endpoint = %+v", v)
	}
	if o := c.Endpoints["openai"]; o.HasKey() || o.MaxConcurrency != 8 || o.Timeout != 120*time.Second {
		t.Errorf("openai endpoint defaults = %+v (no OPENAI_API_KEY in env, so no key)", o)
	}
	ep, model, err := c.Role(RoleJudge)
	if err != nil || ep.Name != "openai" || model != "gpt-4o-mini-2024-07-18" {
		t.Errorf("judge = %v %q %v", ep, model, err)
	}
	if _, _, err := c.Role(RoleEmbedder); err == nil || !strings.Contains(err.Error(), "backbone, judge") {
		t.Errorf("unconfigured role error = %v", err)
	}
	if p := c.Prices["gpt-4o-mini-2024-07-18"]; p.Prompt != 0.15 || p.Completion != 0.60 {
		t.Errorf("price = %+v", p)
	}
}

func TestParseConfigErrorsNameTheLine(t *testing.T) {
	cases := []struct {
		desc, src, want string
	}{
		{"unknown role", "[role judges]\nendpoint = x\n", `models.conf:1: unknown role "judges" (known: embedder, extractor, backbone, judge)`},
		{"malformed line", "[endpoint a]\nbase_url http://x\n", `models.conf:2: malformed line "base_url http://x"`},
		{"unknown setting", "[endpoint a]\nbase_url = http://x\nmax_conc = 3\n", `models.conf:3: endpoint "a": unknown setting "max_conc"`},
		{"bad number", "[endpoint a]\nbase_url = http://x\nmax_concurrency = -1\n", `models.conf:3: endpoint "a": max_concurrency = "-1"`},
		{"bad timeout", "[endpoint a]\nbase_url = http://x\ntimeout = soon\n", `models.conf:3: endpoint "a": timeout = "soon"`},
		{"bad url", "[endpoint a]\nbase_url = localhost:8000\n", `models.conf:2: endpoint "a": base_url "localhost:8000"`},
		{"no base url", "\n[endpoint a]\nmax_concurrency = 2\n", `models.conf:2: endpoint "a" has no base_url`},
		{"undefined endpoint", "[endpoint a]\nbase_url = http://x\n[role judge]\nendpoint = b\nmodel = m\n", `models.conf:3: role "judge" names endpoint "b", which is not defined (defined: a)`},
		{"role without model", "[endpoint a]\nbase_url = http://x\n[role judge]\nendpoint = a\n", `models.conf:3: role "judge" needs both endpoint and model`},
		{"outside section", "model = x\n", `models.conf:1: setting "model" outside a section`},
		{"bad section", "[endpoints a]\n", `models.conf:1: unknown section "[endpoints a]"`},
		{"bad price", "[prices]\nm = 1\n", `models.conf:2: price of "m"`},
		{"duplicate endpoint", "[endpoint a]\nbase_url = http://x\n[endpoint a]\n", `models.conf:3: endpoint "a" defined twice`},
	}
	for _, c := range cases {
		_, err := ParseConfig("models.conf", strings.NewReader(c.src), env(nil))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error = %v, want it to contain %q", c.desc, err, c.want)
		}
	}
}

func TestConfigFromEnv(t *testing.T) {
	if c := ConfigFromEnv(env(nil)); c != nil {
		t.Fatalf("no env: config = %+v, want nil (offline)", c)
	}
	c := ConfigFromEnv(env(map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1/", "MEMLAB_JUDGE_MODEL": "qwen-judge"}))
	ep, m, err := c.Role(RoleJudge)
	if err != nil || m != "qwen-judge" || ep.BaseURLs[0] != "http://127.0.0.1:9/v1" || ep.HasKey() {
		t.Errorf("judge = %+v %q %v", ep, m, err)
	}
	if _, m, _ := c.Role(RoleEmbedder); m != "text-embedding-3-small" {
		t.Errorf("embedder model = %q", m)
	}
}

func TestSingleEndpoint(t *testing.T) {
	c := SingleEndpoint("http://127.0.0.1:8000/v1/", "qwen")
	for _, r := range Roles() {
		ep, m, err := c.Role(r)
		if err != nil || m != "qwen" || ep.Name != "default" || ep.BaseURLs[0] != "http://127.0.0.1:8000/v1" || ep.HasKey() || ep.MaxAttempts != 6 {
			t.Errorf("role %s: %+v %q %v", r, ep, m, err)
		}
	}
	if _, m, _ := SingleEndpoint("http://x/v1", "").Role(RoleEmbedder); m != "text-embedding-3-small" {
		t.Errorf("default embedder model %q", m)
	}
}

// TestDefaultIfConfiguredIsNilOffline: with no endpoint, no client and no
// error (the notebooks then use the offline components).
func TestDefaultIfConfiguredIsNilOffline(t *testing.T) {
	t.Setenv("MEMLAB_CONFIG", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	c, err := DefaultIfConfigured()
	if c != nil || err != nil {
		t.Errorf("offline: %v %v", c, err)
	}
	t.Setenv("MEMLAB_CONFIG", filepath.Join(t.TempDir(), "missing.conf"))
	if _, err := DefaultIfConfigured(); err == nil || !strings.Contains(err.Error(), "missing.conf") {
		t.Errorf("a config file that cannot be read: %v", err)
	}
}
