package llm

import (
	"os"
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
	c, err := ParseConfig("models.conf", strings.NewReader(goodConfig), env(map[string]string{"VLLM_KEY": "k1", "OPENAI_API_KEY": "k2"}))
	if err != nil {
		t.Fatal(err)
	}
	v := c.Endpoints["vllm"]
	if len(v.BaseURLs) != 2 || v.BaseURLs[0] != "http://127.0.0.1:8000/v1" || v.MaxConcurrency != 32 ||
		v.RequestsPerMinute != 600 || v.TokensPerMinute != 400000 || v.Timeout != 45*time.Second || v.MaxAttempts != 4 || !v.HasKey() {
		t.Errorf("vllm endpoint = %+v", v)
	}
	if o := c.Endpoints["openai"]; !o.HasKey() || o.MaxConcurrency != 8 || o.Timeout != 120*time.Second {
		t.Errorf("openai endpoint defaults = %+v", o)
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
		{"malformed line", "[endpoint a]\nbase_url http://x\n", `models.conf:2: setting "base_url": want base_url = value`},
		{"malformed unknown line", "[endpoint a]\nbase_url = http://x\nwhat\n", `models.conf:3: malformed line (not shown: it may hold a key): want key = value`},
		{"unknown setting", "[endpoint a]\nbase_url = http://x\nmax_conc = 3\n", `models.conf:3: endpoint "a": unknown setting "max_conc"`},
		{"bad number", "[endpoint a]\nbase_url = http://x\nmax_concurrency = -1\n", `models.conf:3: endpoint "a": max_concurrency: want a non-negative integer`},
		{"bad timeout", "[endpoint a]\nbase_url = http://x\ntimeout = soon\n", `models.conf:3: endpoint "a": timeout: want a positive duration`},
		{"bad url", "[endpoint a]\nbase_url = localhost:8000\n", `models.conf:2: endpoint "a": base_url: want an http:// or https:// URL`},
		{"url without host", "[endpoint a]\nbase_url = http:///v1\n", `models.conf:2: endpoint "a": base_url: the URL has no host`},
		{"no base url", "\n[endpoint a]\nmax_concurrency = 2\n", `models.conf:2: endpoint "a" has no base_url`},
		{"undefined endpoint", "[endpoint a]\nbase_url = http://x\n[role judge]\nendpoint = b\nmodel = m\n", `models.conf:3: role "judge" names endpoint "b", which is not defined (defined: a)`},
		{"role without model", "[endpoint a]\nbase_url = http://x\n[role judge]\nendpoint = a\n", `models.conf:3: role "judge" needs both endpoint and model`},
		{"outside section", "model = x\n", `models.conf:1: setting "model" outside a section`},
		{"bad section", "[endpoints a]\n", `models.conf:1: unknown section (2 words, the first "endpoints")`},
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

// TestConfigErrorsNeverQuoteAValue: a mistake on a line holding a key (or
// any value) names the file, the line and the setting, never the value.
func TestConfigErrorsNeverQuoteAValue(t *testing.T) {
	const sk, hex = "sk-SENTINEL-conf-4b2e9a", "0123456789abcdef0123456789abcdef"
	ep := "[endpoint a]\nbase_url = http://x\n"
	role := "[role judge]\nendpoint = a\nmodel = m\n"
	cases := []struct {
		desc, src, line, name string
	}{
		{"colon instead of =", ep + "api_key: " + sk + "\n", ":3:", `"api_key"`},
		{"space instead of =", ep + "api_key " + sk + "\n", ":3:", `"api_key"`},
		{"base64 key without =", ep + "api_key abcdEFGH12345678==\n", ":3:", `"api_key"`},
		{"a bare key", ep + sk + "\n", ":3:", ""},
		{"a bare hex key", ep + hex + "\n", ":3:", ""},
		{"key as a number", ep + "max_concurrency = " + sk + "\n", ":3:", "max_concurrency"},
		{"key as requests_per_minute", ep + "requests_per_minute = " + sk + "\n", ":3:", "requests_per_minute"},
		{"key as max_attempts", ep + "max_attempts = " + sk + "\n", ":3:", "max_attempts"},
		{"key as a timeout", ep + "timeout = " + sk + "\n", ":3:", "timeout"},
		{"key as base_url", "[endpoint a]\nbase_url = " + sk + "\n", ":2:", "base_url"},
		{"key as a second base_url", "[endpoint a]\nbase_url = http://x, " + sk + "\n", ":2:", "base_url"},
		{"key as api_key_env", ep + "api_key_env = " + sk + "\n" + role, ":3:", "api_key_env"},
		{"hex key as api_key_env", ep + "api_key_env = " + hex + "\n" + role, ":3:", "api_key_env"},
		{"key as a setting name", ep + sk + " = 1\n", ":3:", ""},
		{"key in a role", ep + "[role judge]\nmodel: " + sk + "\n", ":4:", `"model"`},
		{"key as an endpoint name", ep + "[role judge]\nendpoint = " + sk + "\nmodel = m\n", ":3:", `role "judge"`},
		{"key as a price", "[prices]\nm = " + sk + "\n", ":2:", `"m"`},
		{"key in a section header", "[" + sk + "\n", ":1:", ""},
		{"key as a section", "[" + sk + "]\n", ":1:", ""},
		{"key as an endpoint section", "[endpoint a " + sk + "]\n", ":1:", ""},
		{"key as a role", "[role " + sk + "]\n", ":1:", "unknown role"},
	}
	for _, c := range cases {
		_, err := ParseConfig("models.conf", strings.NewReader(c.src), env(nil))
		if err == nil {
			t.Errorf("%s: no error", c.desc)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "SENTINEL") || strings.Contains(msg, hex) || strings.Contains(msg, "abcdEFGH") {
			t.Errorf("%s: the error quotes the value: %s", c.desc, msg)
		}
		if !strings.Contains(msg, "models.conf"+c.line) || !strings.Contains(msg, c.name) {
			t.Errorf("%s: error %q, want it to name models.conf%s and %s", c.desc, msg, c.line, c.name)
		}
	}
}

// TestEmptyConfigAndUnsetKeyVariableAreErrors: a config that defines
// nothing, and an api_key_env naming a variable that is not set for an
// endpoint a role uses, are errors when the config is read, not a 401 or
// "role not configured" on every call.
func TestEmptyConfigAndUnsetKeyVariableAreErrors(t *testing.T) {
	cases := []struct {
		desc, src string
		env       map[string]string
		want      []string // "" = no error
	}{
		{"empty file", "", nil, []string{"models.conf", "no endpoint"}},
		{"only comments", "# nothing yet\n\n   # really\n", nil, []string{"models.conf", "no endpoint"}},
		{"no role", "[endpoint a]\nbase_url = http://x\n", nil, []string{"models.conf", "no role"}},
		{"unset key variable", "[endpoint a]\nbase_url = http://x\napi_key_env = VLLM_KEY\n[role judge]\nendpoint = a\nmodel = m\n", nil,
			[]string{"models.conf:3", `endpoint "a"`, "api_key_env", "VLLM_KEY", "not set"}},
		{"set key variable", "[endpoint a]\nbase_url = http://x\napi_key_env = VLLM_KEY\n[role judge]\nendpoint = a\nmodel = m\n",
			map[string]string{"VLLM_KEY": "k"}, nil},
		{"no key variable", "[endpoint a]\nbase_url = http://x\napi_key_env =\n[role judge]\nendpoint = a\nmodel = m\n", nil, nil},
		{"unused endpoint with an unset variable", "[endpoint a]\nbase_url = http://x\n[endpoint b]\nbase_url = http://y\napi_key_env = B_KEY\n[role judge]\nendpoint = a\nmodel = m\n", nil, nil},
	}
	for _, c := range cases {
		_, err := ParseConfig("models.conf", strings.NewReader(c.src), env(c.env))
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v", c.desc, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error", c.desc)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q, want %q in it", c.desc, err, w)
			}
		}
	}
	// Through MEMLAB_CONFIG, as notebooks read it.
	path := filepath.Join(t.TempDir(), "empty.conf")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MEMLAB_CONFIG", path)
	if _, err := DefaultIfConfigured(); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "no endpoint") {
		t.Errorf("an empty MEMLAB_CONFIG file: %v", err)
	}
}
