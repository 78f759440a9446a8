package llm

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Config file formats (Config.Format).
const (
	// ConfigFormatTOML is the TOML format documented on Config.
	ConfigFormatTOML = "toml"
	// ConfigFormatLines is the older line format ("[endpoint NAME]"
	// sections of "key = value" lines), still read; memlab config convert
	// turns it into TOML.
	ConfigFormatLines = "lines"
)

// tomlSection matches a table header of the TOML format.
var tomlSection = regexp.MustCompile(`(?m)^[ \t]*\[[ \t]*"?(endpoints|roles)"?[ \t]*[.\]]`)

// isTOMLConfig reports whether a config file is TOML: by its name
// (.toml), else by its content (an [endpoints.NAME] or [roles.ROLE]
// table); anything else is read as the line format.
func isTOMLConfig(name string, data []byte) bool {
	if strings.HasSuffix(strings.ToLower(name), ".toml") {
		return true
	}
	return tomlSection.Match(data)
}

// tomlConfig is the TOML layout of a Config.
type tomlConfig struct {
	Endpoints map[string]tomlEndpoint `toml:"endpoints"`
	Roles     map[string]tomlRole     `toml:"roles"`
	Prices    map[string]tomlPrice    `toml:"prices"`
}

type tomlEndpoint struct {
	// BaseURL is a string or an array of strings (replicas).
	BaseURL           any     `toml:"base_url"`
	APIKeyEnv         *string `toml:"api_key_env"`
	APIKey            *string `toml:"api_key"`
	MaxConcurrency    *int64  `toml:"max_concurrency"`
	RequestsPerMinute *int64  `toml:"requests_per_minute"`
	TokensPerMinute   *int64  `toml:"tokens_per_minute"`
	Timeout           *string `toml:"timeout"`
	MaxAttempts       *int64  `toml:"max_attempts"`
	MaxRetryAfter     *string `toml:"max_retry_after"`
}

type tomlRole struct {
	Endpoint string `toml:"endpoint"`
	Model    string `toml:"model"`
}

type tomlPrice struct {
	Prompt     *float64 `toml:"prompt"`
	Completion *float64 `toml:"completion"`
}

// tomlLines maps every key path of a TOML document ("endpoints.vllm",
// "endpoints.vllm.base_url") to the line where it is defined.
func tomlLines(data []byte) map[string]int {
	lines := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	lineOf := func(n *unstable.Node) int {
		defer func() { recover() }() // a node without a range in the input
		if n.Raw.Length > 0 {
			return p.Shape(n.Raw).Start.Line
		}
		return p.Shape(p.Range(n.Data)).Start.Line
	}
	keyOf := func(it unstable.Iterator) ([]string, int) {
		var key []string
		line := 0
		for it.Next() {
			n := it.Node()
			if line == 0 {
				line = lineOf(n)
			}
			key = append(key, string(n.Data))
		}
		return key, line
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			k, line := keyOf(e.Key())
			table = k
			for i := range k {
				path := strings.Join(k[:i+1], ".")
				if _, ok := lines[path]; !ok || i == len(k)-1 {
					lines[path] = line
				}
			}
		case unstable.KeyValue:
			k, line := keyOf(e.Key())
			full := append(append([]string{}, table...), k...)
			for i := len(table); i < len(full); i++ {
				path := strings.Join(full[:i+1], ".")
				if _, ok := lines[path]; !ok {
					lines[path] = line
				}
			}
		}
	}
	return lines
}

// parseTOMLConfig parses the TOML format. Errors name the file and line.
func parseTOMLConfig(name string, data []byte, getenv func(string) string) (*Config, error) {
	var tc tomlConfig
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&tc); err != nil {
		return nil, tomlError(name, err)
	}
	lines := tomlLines(data)
	at := func(path ...string) int {
		for n := len(path); n > 0; n-- {
			if l, ok := lines[strings.Join(path[:n], ".")]; ok {
				return l
			}
		}
		return 0
	}
	bad := func(line int, format string, a ...any) error {
		return fmt.Errorf("llm: config %s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	c := &Config{Source: name, Format: ConfigFormatTOML, Endpoints: map[string]*Endpoint{}, Roles: map[string]RoleModel{}, Prices: map[string]Price{}}
	roleLines := map[string]int{}
	keyEnvLines := map[string]int{}
	for _, en := range sortedKeys(tc.Endpoints) {
		te := tc.Endpoints[en]
		if !isName(en) {
			return nil, bad(at("endpoints", en), "endpoint name %s: want letters, digits, '-', '_' or '.'", quoteName(en))
		}
		e := newEndpoint(en, at("endpoints", en))
		c.Endpoints[en] = e
		// The settings go through the line format's setter, so that both
		// formats mean the same; api_key after api_key_env, as written.
		type setting struct {
			key, value string
			set        bool
		}
		var urls string
		switch v := te.BaseURL.(type) {
		case nil:
		case string:
			urls = v
		case []any:
			parts := make([]string, len(v))
			for i, u := range v {
				s, ok := u.(string)
				if !ok || strings.Contains(s, ",") {
					return nil, bad(at("endpoints", en, "base_url"), "endpoint %q: base_url: want a string or an array of strings (URLs)", en)
				}
				parts[i] = s
			}
			urls = strings.Join(parts, ",")
			if len(v) == 0 {
				return nil, bad(at("endpoints", en, "base_url"), "endpoint %q: base_url: the array is empty", en)
			}
		default:
			return nil, bad(at("endpoints", en, "base_url"), "endpoint %q: base_url: want a string or an array of strings (URLs)", en)
		}
		str := func(p *string) (string, bool) {
			if p == nil {
				return "", false
			}
			return *p, true
		}
		num := func(p *int64) (string, bool) {
			if p == nil {
				return "", false
			}
			return strconv.FormatInt(*p, 10), true
		}
		var ss []setting
		add := func(key string, v string, ok bool) { ss = append(ss, setting{key, v, ok}) }
		add("base_url", urls, te.BaseURL != nil)
		v, ok := str(te.APIKeyEnv)
		add("api_key_env", v, ok)
		v, ok = str(te.APIKey)
		add("api_key", v, ok)
		v, ok = num(te.MaxConcurrency)
		add("max_concurrency", v, ok)
		v, ok = num(te.RequestsPerMinute)
		add("requests_per_minute", v, ok)
		v, ok = num(te.TokensPerMinute)
		add("tokens_per_minute", v, ok)
		v, ok = str(te.Timeout)
		add("timeout", v, ok)
		v, ok = num(te.MaxAttempts)
		add("max_attempts", v, ok)
		v, ok = str(te.MaxRetryAfter)
		add("max_retry_after", v, ok)
		for _, s := range ss {
			if !s.set {
				continue
			}
			if err := setEndpoint(e, s.key, s.value, getenv); err != nil {
				return nil, bad(at("endpoints", en, s.key), "endpoint %q: %v", en, err)
			}
			if s.key == "api_key_env" {
				keyEnvLines[en] = at("endpoints", en, s.key)
			}
		}
	}
	for _, r := range sortedKeys(tc.Roles) {
		if !knownRole(r) {
			return nil, bad(at("roles", r), "unknown role %s (known: %s)", quoteName(r), strings.Join(Roles(), ", "))
		}
		roleLines[r] = at("roles", r)
		c.Roles[r] = RoleModel{Endpoint: tc.Roles[r].Endpoint, Model: tc.Roles[r].Model}
	}
	for _, m := range sortedKeys(tc.Prices) {
		tp := tc.Prices[m]
		if tp.Prompt == nil || tp.Completion == nil {
			return nil, bad(at("prices", m), "price of %s: want { prompt = USD, completion = USD } per million tokens", quoteName(m))
		}
		p, err := parsePrice(strconv.FormatFloat(*tp.Prompt, 'g', -1, 64) + "," + strconv.FormatFloat(*tp.Completion, 'g', -1, 64))
		if err != nil {
			return nil, bad(at("prices", m), "price of %s: %v", quoteName(m), err)
		}
		c.Prices[m] = p
	}
	if err := c.check(bytes.Count(data, []byte("\n"))+1, roleLines, keyEnvLines); err != nil {
		return nil, err
	}
	return c, nil
}

// tomlError names the file and line of a TOML decoding error, without
// quoting the input (a line may hold a key).
func tomlError(name string, err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return fmt.Errorf("llm: config %s:%d: not valid TOML: %s", name, row, strings.TrimPrefix(de.Error(), "toml: "))
	}
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		e := sm.Errors[0]
		row, _ := e.Position()
		return fmt.Errorf("llm: config %s:%d: unknown setting %s (known: endpoints.NAME.{%s}, roles.ROLE.{endpoint, model}, prices.MODEL.{prompt, completion})",
			name, row, quoteName(strings.Join(e.Key(), ".")), strings.Join(settings["endpoint"], ", "))
	}
	// A value of the wrong type: go-toml names the Go type and field.
	msg := err.Error()
	if looksLikeKey(msg) {
		msg = "a value of the wrong type"
	}
	return fmt.Errorf("llm: config %s: %s", name, msg)
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TOML returns the config in the TOML format (as ParseConfig reads it):
// endpoints (base URLs, the api_key_env naming each key, limits), roles
// and prices, sorted by name, settings equal to the defaults left out.
// Keys are never written unless inlineKeys is set and the endpoint's key
// is inline (api_key, with no api_key_env); else an inline key is a
// comment saying there is one. Credentials in base URLs are written only
// with inlineKeys (they are part of the URL), else redacted.
func (c *Config) TOML(inlineKeys bool) string {
	var b strings.Builder
	def := newEndpoint("", 0)
	for _, en := range c.endpointNames() {
		e := c.Endpoints[en]
		fmt.Fprintf(&b, "[endpoints.%s]\n", tomlKey(en))
		urls := e.BaseURLs
		if !inlineKeys {
			urls = e.redactedURLs()
		}
		if len(urls) == 1 {
			fmt.Fprintf(&b, "base_url = %s\n", tomlString(urls[0]))
		} else {
			q := make([]string, len(urls))
			for i, u := range urls {
				q[i] = tomlString(u)
			}
			fmt.Fprintf(&b, "base_url = [%s]\n", strings.Join(q, ", "))
		}
		switch {
		case e.KeyEnv != "":
			fmt.Fprintf(&b, "api_key_env = %s\n", tomlString(e.KeyEnv))
		case e.HasKey() && inlineKeys:
			fmt.Fprintf(&b, "api_key = %s  # keep this file out of version control, or name a variable with api_key_env\n", tomlString(e.apiKey()))
		case e.HasKey():
			b.WriteString("# api_key: an inline key (not shown)\n")
		}
		ints := []struct {
			key    string
			v, def int
		}{
			{"max_concurrency", e.MaxConcurrency, def.MaxConcurrency},
			{"requests_per_minute", e.RequestsPerMinute, def.RequestsPerMinute},
			{"tokens_per_minute", e.TokensPerMinute, def.TokensPerMinute},
		}
		for _, s := range ints {
			if s.v != s.def {
				fmt.Fprintf(&b, "%s = %d\n", s.key, s.v)
			}
		}
		if e.Timeout != def.Timeout {
			fmt.Fprintf(&b, "timeout = %s\n", tomlString(durationText(e.Timeout)))
		}
		if e.MaxAttempts != def.MaxAttempts {
			fmt.Fprintf(&b, "max_attempts = %d\n", e.MaxAttempts)
		}
		if e.MaxRetryAfter != 0 {
			fmt.Fprintf(&b, "max_retry_after = %s\n", tomlString(durationText(e.MaxRetryAfter)))
		}
		b.WriteString("\n")
	}
	for _, r := range sortedKeys(c.Roles) {
		rm := c.Roles[r]
		fmt.Fprintf(&b, "[roles.%s]\nendpoint = %s\nmodel = %s\n\n", tomlKey(r), tomlString(rm.Endpoint), tomlString(rm.Model))
	}
	if len(c.Prices) > 0 {
		b.WriteString("[prices]  # USD per million tokens\n")
		for _, m := range sortedKeys(c.Prices) {
			p := c.Prices[m]
			fmt.Fprintf(&b, "%s = { prompt = %s, completion = %s }\n", tomlKey(m), tomlFloat(p.Prompt), tomlFloat(p.Completion))
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// durationText is d as time.ParseDuration reads it, without the zero
// units String adds ("1m0s" is "1m").
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func tomlFloat(x float64) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// tomlKey is k as a TOML key: bare when it can be, else quoted.
func tomlKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	return tomlString(k)
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// LegacyConfigNotice is the message for a config file in the line format:
// how to convert it to TOML. "" for any other config.
func LegacyConfigNotice(c *Config) string {
	if c == nil || c.Format != ConfigFormatLines {
		return ""
	}
	return fmt.Sprintf("memlab: %s is in the older line format, still read; convert it to TOML with: memlab config convert %s %s (then point MEMLAB_CONFIG at the new file)",
		c.Source, c.Source, tomlName(c.Source))
}

// tomlName is the default name of a converted config: path with the
// extension .toml.
func tomlName(path string) string {
	ext := ""
	if i := strings.LastIndexByte(path, '.'); i > strings.LastIndexByte(path, '/') {
		ext = path[i:]
	}
	return strings.TrimSuffix(path, ext) + ".toml"
}

// noticeShownEnv, set in the environment once the notice was printed,
// keeps worker processes (which inherit it) from printing it again.
const noticeShownEnv = "MEMLAB_CONFIG_NOTICE_SHOWN"

var noticeOnce sync.Once

// noteLegacy prints LegacyConfigNotice(c) to stderr, once per process
// tree.
func noteLegacy(c *Config) {
	msg := LegacyConfigNotice(c)
	if msg == "" || os.Getenv(noticeShownEnv) != "" {
		return
	}
	noticeOnce.Do(func() {
		fmt.Fprintln(os.Stderr, msg)
		os.Setenv(noticeShownEnv, "1")
	})
}
