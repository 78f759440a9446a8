package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Fuzz targets of the config file parser and of the reply-JSON parser. Run
// one with e.g.
//
//	go test -run='^$' -fuzz='^FuzzParseConfig$' -fuzztime=30s ./llm

// fuzzEnvKey is the value of every environment variable the fuzzed configs
// may name in api_key_env: it must never appear in an error or a printed
// config.
const fuzzEnvKey = "env-secret-4f1c9a"

func fuzzGetenv(name string) string {
	if name == "" || strings.HasPrefix(name, "UNSET") {
		return ""
	}
	return fuzzEnvKey
}

// indentedBlocks returns the indented blocks of a Markdown file that hold an
// [endpoint ...] section, unindented.
func indentedBlocks(f *testing.F, name string) []string {
	f.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		f.Fatal(err)
	}
	var out []string
	var cur []string
	flush := func() {
		if s := strings.Join(cur, "\n"); strings.Contains(s, "[endpoint ") {
			out = append(out, s+"\n")
		}
		cur = nil
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "    ") || (l == "" && cur != nil) {
			cur = append(cur, strings.TrimPrefix(l, "    "))
			continue
		}
		flush()
	}
	flush()
	return out
}

var configLineRE = regexp.MustCompile(`^llm: config models\.conf:(\d+): `)

// FuzzParseConfig parses a fuzzed config file. A parsed config, written
// back in the format, parses to the same config; its limits and prices are
// in range; printing it never shows a key. An error names the file and a
// line of it, and never holds a key, read from the environment or written
// on an api_key line (well formed or not).
func FuzzParseConfig(f *testing.F) {
	f.Add(goodConfig)
	for _, s := range indentedBlocks(f, "../README.md") {
		f.Add(s)
	}
	f.Add("[endpoint a]\nbase_url = https://x/v1/\napi_key = sk-inline\napi_key_env = UNSET_K\napi_key =\n[prices]\nm = 1e-3, 2\n")
	f.Add("[endpoint a]\nbase_url = http://h\napi_key: sk-proj-0123456789\n[role judge]\nendpoint = a\nmodel = m\n")
	f.Add("[endpoint a]\nbase_url = http://h\napi_key = sk-proj-0123456789\nmax_attempts = 0\n")
	f.Add("[endpoint e]\nbase_url = http://h\nmax_retry_after = 90s\nmax_retry_after = 1m0.25s\n[role judge]\nendpoint = e\nmodel = m\n")
	f.Add("[role embedder]\nendpoint = e\nmodel = m=1\n[endpoint e]\nbase_url = http://h\ntimeout = 1h0m0.5s\n[prices]\nm = nan, inf\n")
	f.Fuzz(func(t *testing.T, src string) {
		c, err := ParseConfig("models.conf", strings.NewReader(src), fuzzGetenv)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "llm: config models.conf") {
				t.Fatalf("error %q does not name the file", msg)
			}
			if m := configLineRE.FindStringSubmatch(msg); m != nil {
				if n, _ := strconv.Atoi(m[1]); n < 1 || n > strings.Count(src, "\n")+1 {
					t.Errorf("error %q: line %d outside the file", msg, n)
				}
			}
			if strings.Contains(msg, fuzzEnvKey) && !strings.Contains(src, fuzzEnvKey) {
				t.Errorf("error %q holds the key read from the environment", msg)
			}
			for _, k := range inlineKeys(src) {
				if strings.Contains(msg, k) {
					t.Errorf("error %q holds the api_key value %q", msg, k)
				}
			}
			return
		}
		for _, e := range c.Endpoints {
			if e.MaxConcurrency < 1 || e.MaxAttempts < 1 || e.Timeout <= 0 || e.RequestsPerMinute < 0 || e.TokensPerMinute < 0 || e.MaxRetryAfter < 0 || len(e.BaseURLs) == 0 {
				t.Errorf("endpoint %q out of range: %+v", e.Name, *e)
			}
			if k := e.apiKey(); strings.Trim(k, "0123456789abcdefx") != "" {
				// The key may also be, say, the endpoint's name: it must not
				// appear more often than with another key (a key that could
				// be part of a printed address is not checked).
				print := func() string { return fmt.Sprintf("%v %+v %#v", e, *e, c) }
				with := strings.Count(print(), k)
				e.setKey("\x00")
				without := strings.Count(print(), k)
				e.setKey(k)
				if with != without {
					t.Errorf("printing the config shows endpoint %q's key", e.Name)
				}
			}
		}
		for m, p := range c.Prices {
			if p.Prompt < 0 || p.Completion < 0 || math.IsNaN(p.Prompt) || math.IsNaN(p.Completion) || math.IsInf(p.Prompt, 0) || math.IsInf(p.Completion, 0) {
				t.Errorf("price of %q is %+v: want finite non-negative numbers", m, p)
			}
		}
		for r, rm := range c.Roles {
			if c.Endpoints[rm.Endpoint] == nil || rm.Model == "" || !knownRole(r) {
				t.Errorf("role %q = %+v", r, rm)
			}
		}
		text := writeConfig(c)
		c2, err := ParseConfig("models.conf", strings.NewReader(text), fuzzGetenv)
		if err != nil {
			t.Fatalf("the config written back does not parse: %v\n%s", err, text)
		}
		if a, b := configValue(c), configValue(c2); !reflect.DeepEqual(a, b) {
			t.Fatalf("the config written back parses differently:\n%+v\n%+v\n%s", a, b, text)
		}
	})
}

// apiKeyLineRE matches a line setting api_key, well formed or not
// ("api_key = K", "api_key: K", "api_key K"), with the value.
var apiKeyLineRE = regexp.MustCompile(`^\s*api_key\s*[=:\s]\s*(.*)$`)

// inlineKeys returns the values of src's api_key lines that an error must
// not show: those of at least 8 bytes that occur once in src (a shorter
// value, or one also written elsewhere, say as a name, may rightly appear).
func inlineKeys(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if i := strings.Index(l, "#"); i >= 0 {
			l = l[:i]
		}
		m := apiKeyLineRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if k := strings.TrimSpace(m[1]); len(k) >= 8 && strings.Count(src, k) == 1 {
			out = append(out, k)
		}
	}
	return out
}

// writeConfig writes c in the config format: each endpoint's settings, the
// roles and the prices, in name order.
func writeConfig(c *Config) string {
	var b strings.Builder
	for _, n := range c.endpointNames() {
		e := c.Endpoints[n]
		fmt.Fprintf(&b, "[endpoint %s]\nbase_url = %s\n", n, strings.Join(e.BaseURLs, ", "))
		if e.KeyEnv != "" {
			fmt.Fprintf(&b, "api_key_env = %s\n", e.KeyEnv)
		}
		if e.apiKey() != fuzzGetenv(e.KeyEnv) {
			fmt.Fprintf(&b, "api_key = %s\n", e.apiKey())
		}
		fmt.Fprintf(&b, "max_concurrency = %d\nrequests_per_minute = %d\ntokens_per_minute = %d\ntimeout = %s\nmax_attempts = %d\n",
			e.MaxConcurrency, e.RequestsPerMinute, e.TokensPerMinute, e.Timeout, e.MaxAttempts)
		if e.MaxRetryAfter != 0 { // 0 (the client's default) has no spelling
			fmt.Fprintf(&b, "max_retry_after = %s\n", e.MaxRetryAfter)
		}
	}
	var roles []string
	for r := range c.Roles {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	for _, r := range roles {
		fmt.Fprintf(&b, "[role %s]\nendpoint = %s\nmodel = %s\n", r, c.Roles[r].Endpoint, c.Roles[r].Model)
	}
	b.WriteString("[prices]\n")
	var models []string
	for m := range c.Prices {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		p := c.Prices[m]
		fmt.Fprintf(&b, "%s = %s, %s\n", m, strconv.FormatFloat(p.Prompt, 'g', -1, 64), strconv.FormatFloat(p.Completion, 'g', -1, 64))
	}
	return b.String()
}

// configValue is what a config says, without where it says it (the section
// lines): endpoints with their keys, roles and prices.
func configValue(c *Config) map[string]any {
	eps := map[string]any{}
	for n, e := range c.Endpoints {
		v := *e
		v.line, v.key = 0, nil
		eps[n] = []any{v, e.apiKey()}
	}
	return map[string]any{"endpoints": eps, "roles": c.Roles, "prices": c.Prices}
}

// FuzzReplyJSON finds the JSON object in a fuzzed model reply. What it
// returns is a JSON object that it finds again as it is; an object in a
// ```json fence, or alone in prose without braces, is found exactly; the
// lists of the object decode with JSONStrings.
func FuzzReplyJSON(f *testing.F) {
	for _, s := range []string{
		"{\"score\": 2}",
		"Verdict:\n```json\n{'score': 2, 'tags': ['a', 'b',],}\n```",
		"The answer is {\"answer\": \"it's here\", \"n\": [1, \"x\", null]} as you see.",
		"```\n{\"a\": {\"b\": [1, 2,]}}\n```\n```json\n{\"c\": 3}\n```",
		"{'a': 'don\\'t', \"b\": \"say \\\"hi\\\"\"}",
		"no object at all",
	} {
		f.Add(s, "", "", "", "")
	}
	f.Add("", "Sure.", "Hope it helps.", "answer", "B")
	f.Add("", "", "", "score", "it's {5}")
	f.Fuzz(func(t *testing.T, reply, before, after, key, value string) {
		checkReply(t, reply)
		obj, _ := json.Marshal(map[string]string{key: value})
		if strings.Contains(before+after+string(obj), "`") {
			return
		}
		fenced := before + "\n```json\n" + string(obj) + "\n```\n" + after
		if got, ok := ReplyJSON(fenced); !ok || !bytes.Equal(got, obj) {
			t.Errorf("ReplyJSON(%q) = %q, %v; want the fenced object %s", fenced, got, ok, obj)
		}
		if strings.ContainsAny(before+after, "{}") {
			return
		}
		bare := before + string(obj) + after
		if got, ok := ReplyJSON(bare); !ok || !bytes.Equal(got, obj) {
			t.Errorf("ReplyJSON(%q) = %q, %v; want the object %s", bare, got, ok, obj)
		}
	})
}

// checkReply checks the properties of ReplyJSON on any reply.
func checkReply(t *testing.T, reply string) {
	t.Helper()
	got, ok := ReplyJSON(reply)
	if !ok {
		if got != nil {
			t.Errorf("ReplyJSON(%q) = %q with false", reply, got)
		}
		return
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(got, &obj); err != nil || obj == nil {
		t.Fatalf("ReplyJSON(%q) = %q, not a JSON object: %v", reply, got, err)
	}
	if again, ok := ReplyJSON(string(got)); !ok || !bytes.Equal(again, got) {
		t.Errorf("ReplyJSON of its own result %q = %q, %v", got, again, ok)
	}
	for k, raw := range obj {
		var items []any
		if json.Unmarshal(raw, &items) != nil {
			if _, ok := JSONStrings(raw); ok {
				t.Errorf("JSONStrings(%s) of key %q: true for a value that is not a list", raw, k)
			}
			continue
		}
		strs, ok := JSONStrings(raw)
		if !ok || len(strs) > len(items) {
			t.Errorf("JSONStrings(%s) = %q, %v for a list of %d items", raw, strs, ok, len(items))
		}
	}
}

// TestParseConfigRejectsNonFinitePrices: strconv.ParseFloat reads "NaN" and
// "Inf", so a price of nan or inf was accepted and every cost estimate
// became NaN or +Inf. Found by FuzzParseConfig's price property.
func TestParseConfigRejectsNonFinitePrices(t *testing.T) {
	for _, v := range []string{"nan, 1", "1, NaN", "inf, 0", "0, +Inf", "1, -inf"} {
		src := "[prices]\nm = " + v + "\n"
		if _, err := ParseConfig("models.conf", strings.NewReader(src), fuzzGetenv); err == nil || !strings.Contains(err.Error(), "models.conf:2: price of \"m\"") {
			t.Errorf("price %q: error %v, want one naming models.conf:2 and the model", v, err)
		}
	}
}
