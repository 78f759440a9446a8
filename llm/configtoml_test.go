package llm

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// oldFormatExamples collects every example of the line format in the
// repository: the Go string literals holding an "[endpoint " section (in
// tests, examples and helpers), the block in Config's doc and README's.
// Those that parse are returned by where they are.
func oldFormatExamples(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Join("..")
	out := map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "stdlib" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(src), "[endpoint ") {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && strings.Contains(s, "[endpoint ") {
				out[fset.Position(lit.Pos()).String()] = s
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The doc of Config and README's Models section: indented blocks.
	for _, p := range []string{"config.go", "../README.md"} {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		prefix := regexp.MustCompile(`^(//\t|    )`)
		var block []string
		flush := func() {
			if b := strings.Join(block, "\n"); strings.Contains(b, "[endpoint ") {
				out[p+" block"] = b
			}
			block = nil
		}
		for _, l := range strings.Split(string(src), "\n") {
			switch {
			case prefix.MatchString(l):
				block = append(block, prefix.ReplaceAllString(l, ""))
			case (l == "//" || l == "") && block != nil:
				block = append(block, "")
			default:
				flush()
			}
		}
		flush()
	}
	return out
}

// normalized strips what differs between two parses of the same settings
// (where they came from).
func normalized(c *Config) *Config {
	cp := *c
	cp.Source, cp.Format = "", ""
	cp.Endpoints = map[string]*Endpoint{}
	for n, e := range c.Endpoints {
		ec := *e
		ec.line = 0
		cp.Endpoints[n] = &ec
	}
	return &cp
}

// TestConvertEveryOldExample: every example of the line format converts
// to TOML (Config.TOML) that reads back to an equal Config.
func TestConvertEveryOldExample(t *testing.T) {
	getenv := func(k string) string { return "value-of-" + k }
	n := 0
	for where, src := range oldFormatExamples(t) {
		old, err := ParseConfig("old.conf", strings.NewReader(src), getenv)
		if err != nil {
			continue // a bad example, on purpose (an error test)
		}
		if old.Format != ConfigFormatLines {
			t.Errorf("%s: read as %q, want the line format", where, old.Format)
		}
		n++
		text := old.TOML(true)
		for _, name := range []string{"new.toml", "new.conf"} { // by extension, and by content
			got, err := ParseConfig(name, strings.NewReader(text), getenv)
			if err != nil {
				t.Errorf("%s: the TOML does not read (%s): %v\n%s", where, name, err, text)
				continue
			}
			if got.Format != ConfigFormatTOML {
				t.Errorf("%s: %s read as %q", where, name, got.Format)
			}
			if !reflect.DeepEqual(normalized(old), normalized(got)) {
				t.Errorf("%s: TOML reads to another config:\nold %+v\nnew %+v\n%s", where, normalized(old), normalized(got), text)
			}
		}
	}
	if n < 5 {
		t.Errorf("only %d examples of the line format found", n)
	}
}

// TestTOMLConfig reads the documented TOML example.
func TestTOMLConfig(t *testing.T) {
	src := `# models.toml
[endpoints.vllm]
base_url = ["http://10.0.0.5:8000/v1", "http://10.0.0.6:8000/v1/"]
api_key_env = "VLLM_API_KEY"
max_concurrency = 32
requests_per_minute = 600
tokens_per_minute = 400000
timeout = "60s"
max_attempts = 4
max_retry_after = "90s"

[endpoints.openai]
base_url = "https://api.openai.com/v1"
api_key_env = "OPENAI_API_KEY"

[roles.backbone]
endpoint = "vllm"
model = "Qwen2.5-7B-Instruct"

[roles.judge]
endpoint = "openai"
model = "gpt-4o-mini-2024-07-18"

[prices]
"gpt-4o-mini-2024-07-18" = { prompt = 0.15, completion = 0.60 }
`
	c, err := ParseConfig("models.toml", strings.NewReader(src), func(k string) string { return "key-" + k })
	if err != nil {
		t.Fatal(err)
	}
	e := c.Endpoints["vllm"]
	if len(e.BaseURLs) != 2 || e.BaseURLs[1] != "http://10.0.0.6:8000/v1" || e.MaxConcurrency != 32 || e.RequestsPerMinute != 600 ||
		e.TokensPerMinute != 400000 || e.Timeout.String() != "1m0s" || e.MaxAttempts != 4 || e.MaxRetryAfter.String() != "1m30s" ||
		e.apiKey() != "key-VLLM_API_KEY" {
		t.Errorf("vllm: %+v", e)
	}
	if c.Roles["judge"] != (RoleModel{"openai", "gpt-4o-mini-2024-07-18"}) || c.Prices["gpt-4o-mini-2024-07-18"] != (Price{0.15, 0.60}) {
		t.Errorf("roles %v prices %v", c.Roles, c.Prices)
	}
	if LegacyConfigNotice(c) != "" {
		t.Errorf("a TOML config gets the conversion notice")
	}
}

// TestConfigErrorsNameFileAndLine: errors of both formats name FILE:LINE,
// never a value.
func TestConfigErrorsNameFileAndLine(t *testing.T) {
	env := func(string) string { return "" }
	for _, c := range []struct {
		name, src, want string
	}{
		{"a.toml", "[endpoints.x]\nbase_url = \"http://h/v1\"\ntimeout = \"soon\"\n[roles.judge]\nendpoint = \"x\"\nmodel = \"m\"\n", "a.toml:3:"},
		{"a.toml", "[endpoints.x]\nbase_url = \"ftp://h\"\n[roles.judge]\nendpoint = \"x\"\nmodel = \"m\"\n", "a.toml:2:"},
		{"a.toml", "[endpoints.x]\nbase_url = \"http://h/v1\"\n\n[roles.judge]\nendpoint = \"y\"\nmodel = \"m\"\n", "a.toml:4:"},
		{"a.toml", "[endpoints.x]\nbase_url = \"http://h/v1\"\nbogus = 1\n[roles.judge]\nendpoint = \"x\"\nmodel = \"m\"\n", "a.toml:3:"},
		{"a.toml", "[endpoints.x]\nbase_url = \"http://h/v1\"\napi_key = sk-abcdefghijklmnop\n", "a.toml:3:"},
		{"a.toml", "[endpoints.x]\nbase_url = \"http://h/v1\"\napi_key_env = \"NOPE\"\n[roles.judge]\nendpoint = \"x\"\nmodel = \"m\"\n", "a.toml:3:"},
		{"a.conf", "[endpoint x]\nbase_url = http://h/v1\ntimeout = soon\n", "a.conf:3:"},
	} {
		_, err := ParseConfig(c.name, strings.NewReader(c.src), env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one naming %s", c.src, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "sk-abc") {
			t.Errorf("%q: the error shows the key: %v", c.src, err)
		}
	}
}

// TestLegacyNotice: a line-format config says how to convert it.
func TestLegacyNotice(t *testing.T) {
	c, err := ParseConfig("/etc/memlab/models.conf", strings.NewReader("[endpoint x]\nbase_url = http://h/v1\n[role judge]\nendpoint = x\nmodel = m\n"), os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	msg := LegacyConfigNotice(c)
	if !strings.Contains(msg, "memlab config convert /etc/memlab/models.conf /etc/memlab/models.toml") {
		t.Errorf("notice %q", msg)
	}
}

// TestTOMLNeverShowsKeys: Config.TOML(false) names the variables, never
// a key.
func TestTOMLNeverShowsKeys(t *testing.T) {
	c, err := ParseConfig("k.conf", strings.NewReader("[endpoint a]\nbase_url = http://u:pw@h/v1\napi_key_env = K\n[endpoint b]\nbase_url = http://h2/v1\napi_key = inline-secret-1\n[role judge]\nendpoint = a\nmodel = m\n[role backbone]\nendpoint = b\nmodel = m\n"),
		func(string) string { return "env-secret-2" })
	if err != nil {
		t.Fatal(err)
	}
	s := c.TOML(false)
	for _, bad := range []string{"inline-secret-1", "env-secret-2", "pw@"} {
		if strings.Contains(s, bad) {
			t.Errorf("TOML(false) shows %q:\n%s", bad, s)
		}
	}
	if !strings.Contains(s, `api_key_env = "K"`) || !strings.Contains(s, "inline key (not shown)") {
		t.Errorf("TOML(false):\n%s", s)
	}
}
