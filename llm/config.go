package llm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/memlab/memlab/component"
	"io"
	"math"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Config names the endpoints memlab may call and maps each role to a model
// on one of them. It never needs to hold a key: an endpoint names the
// environment variable its key comes from.
//
// # File format
//
// A config file is TOML (https://toml.io, read with
// github.com/pelletier/go-toml/v2): a table per endpoint, a table per
// role, and the prices.
//
//	# ~/.config/memlab/models.toml
//	[endpoints.vllm]
//	base_url = ["http://10.0.0.5:8000/v1", "http://10.0.0.6:8000/v1"]  # replicas share the load (or one string)
//	api_key_env = "VLLM_API_KEY"   # the key is read from this variable, which must be set (omit it: no key)
//	max_concurrency = 32           # calls in flight at once (default 8)
//	requests_per_minute = 600      # 0 = unlimited (default)
//	tokens_per_minute = 400000     # prompt + completion tokens; 0 = unlimited
//	timeout = "60s"                # per attempt (default 120s)
//	max_attempts = 6               # retries on 429, 5xx, timeouts and broken connections (default 6)
//	max_retry_after = "120s"       # longest Retry-After waited; past it the call fails (default 120s)
//
//	[roles.backbone]
//	endpoint = "vllm"
//	model = "Qwen2.5-7B-Instruct"
//
//	[roles.judge]
//	endpoint = "openai"
//	model = "gpt-4o-mini-2024-07-18"
//
//	[prices]                       # USD per million tokens
//	"gpt-4o-mini-2024-07-18" = { prompt = 0.15, completion = 0.60 }
//
// A file is TOML when its name ends in .toml or it has an
// [endpoints.NAME] or [roles.ROLE] table. Errors name FILE:LINE (of the
// setting, or of its table) and the setting, never its value; an unknown
// setting is an error.
//
// The older line format is still read, with a message on stderr (once,
// LegacyConfigNotice) saying how to convert it: memlab config convert
// OLD [NEW.toml] writes the TOML equivalent (Config.TOML). It has one
// setting per line, `#` starting a comment, and sections in brackets:
//
//	[endpoint vllm]
//	base_url = http://10.0.0.5:8000/v1, http://10.0.0.6:8000/v1
//	api_key_env = VLLM_API_KEY
//	max_concurrency = 32
//	timeout = 60s
//
//	[role backbone]
//	endpoint = vllm
//	model = Qwen2.5-7B-Instruct
//
//	[prices]                     # USD per million tokens: prompt, completion
//	gpt-4o-mini-2024-07-18 = 0.15, 0.60
//
// Roles are embedder, extractor, backbone and judge. A file that defines no
// endpoint or no role is an error, and so is an api_key_env naming an unset
// (or empty) variable for an endpoint a role uses. An endpoint's key may
// also be written inline as `api_key = ...`; then keep the file out of
// version control. Keys never reach the cache, a run record, a notebook
// output or a log, nor do the credentials of a base URL (its userinfo and
// key=/token= parameters): every name, message and log line that names a
// URL goes through RedactURLs.
type Config struct {
	// Source is the file the config came from, or "environment".
	Source string
	// Format is the file's format: ConfigFormatTOML, ConfigFormatLines,
	// or "" when the config is not from a file.
	Format    string
	Endpoints map[string]*Endpoint
	Roles     map[string]RoleModel
	// Prices maps a model to its price per million tokens.
	Prices map[string]Price
}

// Endpoint is one OpenAI-compatible server (or a set of replicas).
type Endpoint struct {
	Name     string
	BaseURLs []string
	// KeyEnv names the environment variable holding the key.
	KeyEnv string
	// key is the resolved key, behind a pointer so that printing an
	// Endpoint (even with %+v) shows an address, never the key.
	key               *secret
	MaxConcurrency    int
	RequestsPerMinute int
	TokensPerMinute   int
	Timeout           time.Duration
	MaxAttempts       int
	// MaxRetryAfter is the longest Retry-After waited (0 = the client's
	// Options.MaxRetryAfter); a longer one fails the call as rate-limited.
	MaxRetryAfter time.Duration
	line          int // where the section starts, for messages
}

// secret holds an API key.
type secret struct{ value string }

// apiKey returns the endpoint's key, "" when it has none.
func (e *Endpoint) apiKey() string {
	if e.key == nil {
		return ""
	}
	return e.key.value
}

func (e *Endpoint) setKey(k string) {
	if k == "" {
		e.key = nil
		return
	}
	e.key = &secret{value: k}
}

// HasKey reports whether a key was found for the endpoint.
func (e *Endpoint) HasKey() bool { return e.apiKey() != "" }

// RoleModel is the model a role uses, on a named endpoint.
type RoleModel struct {
	Endpoint string
	Model    string
}

// Price is a model's price in USD per million prompt and completion tokens.
type Price struct {
	Prompt, Completion float64
}

// Roles lists the known roles.
func Roles() []string { return []string{RoleEmbedder, RoleExtractor, RoleBackbone, RoleJudge} }

// Default models of the environment-only configuration.
var defaultModels = map[string]string{
	RoleEmbedder:  "text-embedding-3-small",
	RoleExtractor: "gpt-4o-mini",
	RoleBackbone:  "gpt-4o-mini",
	RoleJudge:     "gpt-4o-mini",
}

func newEndpoint(name string, line int) *Endpoint {
	return &Endpoint{Name: name, MaxConcurrency: 8, Timeout: 120 * time.Second, MaxAttempts: 6, line: line}
}

// LoadConfig reads a config file. Errors name the file and line.
func LoadConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("llm: config: %w", err)
	}
	defer f.Close()
	return ParseConfig(path, f, os.Getenv)
}

// ParseConfig parses the config format from r; name is used in messages and
// getenv resolves api_key_env. Errors name the file, the line and the
// setting, never a value (it may be a key): a line such as
// "api_key: sk-..." is reported as line N with a malformed "api_key".
// A config that defines no endpoint or no role is an error, and so is an
// api_key_env naming a variable that is not set (or empty) for an endpoint
// a role uses.
//
// The format is TOML (see Config) when name ends in .toml or the content
// has an [endpoints.NAME] or [roles.ROLE] table; else it is the line
// format, and the config's Format says so
// (ConfigFormatLines: convert it with memlab config convert, see
// LegacyConfigNotice).
func ParseConfig(name string, r io.Reader, getenv func(string) string) (*Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("llm: config %s: %w", name, err)
	}
	if isTOMLConfig(name, data) {
		return parseTOMLConfig(name, data, getenv)
	}
	return parseLineConfig(name, bytes.NewReader(data), getenv)
}

// parseLineConfig parses the line format (ConfigFormatLines).
func parseLineConfig(name string, r io.Reader, getenv func(string) string) (*Config, error) {
	c := &Config{Source: name, Format: ConfigFormatLines, Endpoints: map[string]*Endpoint{}, Roles: map[string]RoleModel{}, Prices: map[string]Price{}}
	type section struct{ kind, name string }
	var cur section
	var ep *Endpoint
	var role *RoleModel
	roleLines := map[string]int{}
	keyEnvLines := map[string]int{} // endpoint -> line of its api_key_env
	sc := bufio.NewScanner(r)
	n := 0
	bad := func(format string, a ...any) error {
		return fmt.Errorf("llm: config %s:%d: %s", name, n, fmt.Sprintf(format, a...))
	}
	flushRole := func() {
		if role != nil {
			c.Roles[cur.name] = *role
			role = nil
		}
	}
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "[") {
			if !strings.HasSuffix(line, "]") {
				return nil, bad("malformed section header (no closing ]): want [endpoint NAME], [role ROLE] or [prices]")
			}
			flushRole()
			ep = nil
			fields := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(line, "["), "]"))
			switch {
			case len(fields) == 2 && fields[0] == "endpoint":
				if !isName(fields[1]) {
					return nil, bad("endpoint name %s: want letters, digits, '-', '_' or '.'", quoteName(fields[1]))
				}
				if _, dup := c.Endpoints[fields[1]]; dup {
					return nil, bad("endpoint %q defined twice", fields[1])
				}
				ep = newEndpoint(fields[1], n)
				c.Endpoints[fields[1]] = ep
			case len(fields) == 2 && fields[0] == "role":
				if !knownRole(fields[1]) {
					return nil, bad("unknown role %s (known: %s)", quoteName(fields[1]), strings.Join(Roles(), ", "))
				}
				if _, dup := roleLines[fields[1]]; dup {
					return nil, bad("role %q defined twice", fields[1])
				}
				roleLines[fields[1]] = n
				role = &RoleModel{}
			case len(fields) == 1 && fields[0] == "prices":
			default:
				kind := "(empty)"
				if len(fields) > 0 {
					kind = quoteName(fields[0])
				}
				return nil, bad("unknown section (%d words, the first %s): want [endpoint NAME], [role ROLE] or [prices]", len(fields), kind)
			}
			cur = section{}
			if len(fields) > 0 {
				cur.kind = fields[0]
			}
			if len(fields) > 1 {
				cur.name = fields[1]
			}
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || strings.ContainsAny(key, " \t:") {
			// Not quoted: the line may hold a key ("api_key: sk-...").
			if k := leadingWord(line); knownSetting(cur.kind, k) {
				return nil, bad("setting %q: want %s = value (with '=')", k, k)
			}
			return nil, bad("malformed line (not shown: it may hold a key): want key = value")
		}
		switch cur.kind {
		case "endpoint":
			if err := setEndpoint(ep, key, value, getenv); err != nil {
				return nil, bad("endpoint %q: %v", ep.Name, err)
			}
			if key == "api_key_env" {
				keyEnvLines[ep.Name] = n
			}
		case "role":
			switch key {
			case "endpoint":
				role.Endpoint = value
			case "model":
				role.Model = value
			default:
				return nil, bad("role %q: unknown setting %s (known: endpoint, model)", cur.name, quoteName(key))
			}
		case "prices":
			p, err := parsePrice(value)
			if err != nil {
				return nil, bad("price of %s: %v", quoteName(key), err)
			}
			c.Prices[key] = p
		default:
			return nil, bad("setting %s outside a section", quoteName(key))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("llm: config %s: %w", name, err)
	}
	flushRole()
	if err := c.check(n, roleLines, keyEnvLines); err != nil {
		return nil, err
	}
	return c, nil
}

// check validates a parsed config: at least one endpoint, each with a
// base URL, and one role; each role names an endpoint that is defined and
// whose api_key_env, if any, is set. lines is the file's line count;
// roleLines and keyEnvLines where each role's section and each endpoint's
// api_key_env are, for messages.
func (c *Config) check(lines int, roleLines, keyEnvLines map[string]int) error {
	name := c.Source
	epSection, roleSection := "[endpoint NAME]", "[role ROLE]"
	if c.Format == ConfigFormatTOML {
		epSection, roleSection = "[endpoints.NAME]", "[roles.ROLE]"
	}
	if len(c.Endpoints) == 0 {
		return fmt.Errorf("llm: config %s: no endpoint defined (%d lines, none an %s section): see the format in the doc of llm.Config", name, lines, epSection)
	}
	for _, en := range c.endpointNames() {
		if e := c.Endpoints[en]; len(e.BaseURLs) == 0 {
			return fmt.Errorf("llm: config %s:%d: endpoint %q has no base_url", name, e.line, e.Name)
		}
	}
	if len(c.Roles) == 0 {
		return fmt.Errorf("llm: config %s: no role defined: add a %s section (%s) naming an endpoint and a model",
			name, roleSection, strings.Join(Roles(), ", "))
	}
	for _, r := range Roles() {
		rm, ok := c.Roles[r]
		if !ok {
			continue
		}
		if rm.Endpoint == "" || rm.Model == "" {
			return fmt.Errorf("llm: config %s:%d: role %q needs both endpoint and model", name, roleLines[r], r)
		}
		e, ok := c.Endpoints[rm.Endpoint]
		if !ok {
			return fmt.Errorf("llm: config %s:%d: role %q names endpoint %s, which is not defined (defined: %s)",
				name, roleLines[r], r, quoteName(rm.Endpoint), strings.Join(c.endpointNames(), ", "))
		}
		if e.KeyEnv != "" && !e.HasKey() {
			return fmt.Errorf("llm: config %s:%d: endpoint %q (used by role %s): api_key_env names %s, which is not set (or empty): export it, or remove api_key_env for a server that needs no key",
				name, keyEnvLines[e.Name], e.Name, r, e.KeyEnv)
		}
	}
	return nil
}

// leadingWord returns the first word of a line: up to a space, tab, ':' or
// '='.
func leadingWord(line string) string {
	if i := strings.IndexAny(line, " \t:="); i >= 0 {
		return line[:i]
	}
	return line
}

// settings are the keys of each section kind.
var settings = map[string][]string{
	"endpoint": {"base_url", "api_key_env", "api_key", "max_concurrency", "requests_per_minute", "tokens_per_minute", "timeout", "max_attempts", "max_retry_after"},
	"role":     {"endpoint", "model"},
}

// knownSetting reports whether k is a setting of sections of kind.
func knownSetting(kind, k string) bool {
	for _, s := range settings[kind] {
		if s == k {
			return true
		}
	}
	return false
}

// isName reports whether s can name an endpoint: letters, digits, '-',
// '_' and '.', not looking like a key.
func isName(s string) bool {
	if s == "" || len(s) > 64 || looksLikeKey(s) {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// quoteName quotes s for an error message when it is a name (a setting,
// a section, an endpoint or a model), and says it is not shown when it
// may be a secret: a config error never prints a key.
func quoteName(s string) string {
	ok := s != "" && len(s) <= 80 && !looksLikeKey(s)
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:/@+", r)) {
			ok = false
			break
		}
	}
	if !ok {
		return "(a word not shown: it may be a key)"
	}
	return strconv.Quote(s)
}

// keyPrefixes start API keys and tokens of common providers.
var keyPrefixes = []string{"sk-", "sk_", "pk-", "pk_", "rk-", "hf_", "gsk_", "xai-", "ghp_", "gho_", "github_pat_", "glpat-", "akia", "aiza", "key-", "bearer"}

// looksLikeKey reports whether s may be an API key rather than a name:
// a known key prefix, or a long run of letters and digits without the
// separators names have.
func looksLikeKey(s string) bool {
	low := strings.ToLower(s)
	for _, p := range keyPrefixes {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	if len(s) >= 32 && !strings.ContainsAny(s, "./") {
		return true
	}
	letters, digits, seps := false, false, false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits = true
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letters = true
		default:
			seps = true
		}
	}
	return len(s) >= 16 && letters && digits && !seps
}

func setEndpoint(e *Endpoint, key, value string, getenv func(string) string) error {
	atoi := func() (int, error) {
		v, err := strconv.Atoi(value)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("%s: want a non-negative integer", key)
		}
		return v, nil
	}
	var err error
	switch key {
	case "base_url":
		e.BaseURLs = nil
		us := strings.Split(value, ",")
		for i, u := range us {
			u = strings.TrimRight(strings.TrimSpace(u), "/")
			if err := checkBaseURL(u); err != nil {
				which := ""
				if len(us) > 1 {
					which = fmt.Sprintf(" (URL %d of %d)", i+1, len(us))
				}
				return fmt.Errorf("base_url%s: %w", which, err)
			}
			e.BaseURLs = append(e.BaseURLs, u)
		}
	case "api_key_env":
		if value != "" && !isEnvName(value) {
			return fmt.Errorf("api_key_env: want the name of an environment variable such as VLLM_API_KEY (the value is not one and is not shown: it may be the key itself, which belongs in that variable)")
		}
		e.KeyEnv = value
		e.setKey("")
		if value != "" {
			e.setKey(getenv(value))
		}
	case "api_key":
		e.setKey(value)
	case "max_concurrency":
		e.MaxConcurrency, err = atoi()
		if err == nil && e.MaxConcurrency == 0 {
			err = fmt.Errorf("max_concurrency must be at least 1")
		}
	case "requests_per_minute":
		e.RequestsPerMinute, err = atoi()
	case "tokens_per_minute":
		e.TokensPerMinute, err = atoi()
	case "max_attempts":
		e.MaxAttempts, err = atoi()
		if err == nil && e.MaxAttempts == 0 {
			err = fmt.Errorf("max_attempts must be at least 1")
		}
	case "timeout":
		e.Timeout, err = time.ParseDuration(value)
		if err != nil || e.Timeout <= 0 {
			err = fmt.Errorf("timeout: want a positive duration such as 60s")
		}
	case "max_retry_after":
		e.MaxRetryAfter, err = time.ParseDuration(value)
		if err != nil || e.MaxRetryAfter <= 0 {
			err = fmt.Errorf("max_retry_after: want a positive duration such as 120s")
		}
	default:
		err = fmt.Errorf("unknown setting %s (known: %s)", quoteName(key), strings.Join(settings["endpoint"], ", "))
	}
	return err
}

// checkBaseURL checks that u is an absolute http or https URL with a host.
// Its error does not quote u, which may hold credentials or be a key put
// on the wrong line.
func checkBaseURL(u string) error {
	p, err := url.Parse(u)
	switch {
	case err != nil:
		return errors.New("not a valid URL: want http://HOST[:PORT]/PATH or https://...")
	case p.Scheme != "http" && p.Scheme != "https":
		return errors.New("want an http:// or https:// URL")
	case p.Host == "":
		return errors.New("the URL has no host: want http://HOST[:PORT]/PATH")
	}
	return nil
}

// isEnvName reports whether s can be an environment variable's name and
// does not look like a key.
func isEnvName(s string) bool {
	if len(s) > 128 || looksLikeKey(s) {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

func parsePrice(v string) (Price, error) {
	a, b, ok := strings.Cut(v, ",")
	if !ok {
		return Price{}, errors.New("want PROMPT, COMPLETION (USD per million tokens)")
	}
	p, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	q, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	// ParseFloat also reads "NaN" and "Inf", which no price is.
	if err1 != nil || err2 != nil || !(p >= 0 && q >= 0) || math.IsInf(p, 1) || math.IsInf(q, 1) {
		return Price{}, errors.New("want two finite non-negative numbers (USD per million prompt and completion tokens)")
	}
	return Price{Prompt: p, Completion: q}, nil
}

func knownRole(r string) bool {
	for _, k := range Roles() {
		if k == r {
			return true
		}
	}
	return false
}

func (c *Config) endpointNames() []string {
	var names []string
	for n := range c.Endpoints {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ConfigFromEnv builds the configuration of the environment alone:
// OPENAI_BASE_URL (default https://api.openai.com/v1) and OPENAI_API_KEY as
// endpoint "default", every role on it, with models from MEMLAB_<ROLE>_MODEL
// (e.g. MEMLAB_JUDGE_MODEL) or gpt-4o-mini / text-embedding-3-small. It
// returns nil when neither OPENAI_BASE_URL nor OPENAI_API_KEY is set: then
// no endpoint is configured and notebooks use the offline components.
func ConfigFromEnv(getenv func(string) string) *Config {
	base, key := getenv("OPENAI_BASE_URL"), getenv("OPENAI_API_KEY")
	if base == "" && key == "" {
		return nil
	}
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	c := SingleEndpoint(base, "")
	e := c.Endpoints["default"]
	e.KeyEnv = "OPENAI_API_KEY"
	e.setKey(key)
	c.Source = "environment"
	for _, r := range Roles() {
		if m := getenv("MEMLAB_" + strings.ToUpper(r) + "_MODEL"); m != "" {
			c.Roles[r] = RoleModel{Endpoint: "default", Model: m}
		}
	}
	return c
}

// SingleEndpoint returns a configuration with one endpoint, "default", at
// baseURL, with no key and the default limits, serving every role with
// model ("" = the default model of each role: gpt-4o-mini, and
// text-embedding-3-small for the embedder). Change its exported fields
// (e.g. c.Endpoints["default"].MaxAttempts) before New to tune it. It is
// what a single local server (vLLM, Ollama, llama.cpp) or a test needs.
func SingleEndpoint(baseURL, model string) *Config {
	e := newEndpoint("default", 0)
	e.BaseURLs = []string{strings.TrimRight(baseURL, "/")}
	c := &Config{Source: "single endpoint " + RedactURLs(e.BaseURLs[0]), Endpoints: map[string]*Endpoint{"default": e},
		Roles: map[string]RoleModel{}, Prices: map[string]Price{}}
	for _, r := range Roles() {
		m := model
		if m == "" {
			m = defaultModels[r]
		}
		c.Roles[r] = RoleModel{Endpoint: "default", Model: m}
	}
	return c
}

// DefaultConfig is the configuration memlab uses when a notebook does not
// build its own: the file named by MEMLAB_CONFIG if set, else the
// environment (ConfigFromEnv). It returns nil, nil when nothing is
// configured. A file in the older line format is read, and the first
// time (in this process and the workers it starts) stderr says how to
// convert it (LegacyConfigNotice).
func DefaultConfig() (*Config, error) {
	if p := os.Getenv("MEMLAB_CONFIG"); p != "" {
		c, err := LoadConfig(p)
		noteLegacy(c)
		return c, err
	}
	return ConfigFromEnv(os.Getenv), nil
}

// Role returns the endpoint and model of a role, or an error naming the role
// and the configured ones.
func (c *Config) Role(role string) (*Endpoint, string, error) {
	rm, ok := c.Roles[role]
	if !ok {
		var have []string
		for r := range c.Roles {
			have = append(have, r)
		}
		sort.Strings(have)
		return nil, "", fmt.Errorf("llm: role %q is not configured in %s (configured: %s)", role, c.Source, strings.Join(have, ", "))
	}
	return c.Endpoints[rm.Endpoint], rm.Model, nil
}

// Target describes where calls of role go, for run specs and reports:
// "MODEL@ENDPOINT(URL,URL...)". c is usually an *Client (anything with a
// Config() *Config method); model overrides the role's model ("" = the
// role's). Without a config it is the model alone ("default" when none is
// named). Keys and the credentials of the URLs (RedactURLs) are never
// included; the hosts and paths are, so that two endpoints are two
// targets.
func Target(c any, role, model string) string {
	cc, ok := c.(interface{ Config() *Config })
	if !ok || cc.Config() == nil {
		if model == "" {
			model = "default"
		}
		return model
	}
	ep, m, err := cc.Config().Role(role)
	if model == "" {
		model = m
	}
	if model == "" {
		model = "default"
	}
	if err != nil || ep == nil {
		return model
	}
	return model + "@" + ep.Name + "(" + strings.Join(ep.redactedURLs(), ",") + ")"
}

// ModelSpec is the spec of the model that calls of role go to
// (component kind "model", knob "target": Target, so the model name, the
// endpoint's name and its URLs without credentials; never a key).
func ModelSpec(c any, role, model string) component.Spec {
	return component.New("model").With("target", Target(c, role, model))
}

// redactedURLs returns the endpoint's base URLs without their credentials
// (RedactURLs), for names, messages and logs.
func (e *Endpoint) redactedURLs() []string {
	out := make([]string, len(e.BaseURLs))
	for i, u := range e.BaseURLs {
		out[i] = RedactURLs(u)
	}
	return out
}

// String describes the endpoint without its key or the credentials of its
// URLs, so that printing it (also with %+v) leaks nothing.
func (e Endpoint) String() string {
	key := "no key"
	switch {
	case e.KeyEnv != "" && e.HasKey():
		key = "key from $" + e.KeyEnv
	case e.HasKey():
		key = "inline key"
	}
	return fmt.Sprintf("endpoint %q (%s; %s; max_concurrency=%d requests_per_minute=%d tokens_per_minute=%d timeout=%s max_attempts=%d)",
		e.Name, strings.Join(e.redactedURLs(), ", "), key, e.MaxConcurrency, e.RequestsPerMinute, e.TokensPerMinute, e.Timeout, e.MaxAttempts)
}

// GoString is String, for %#v.
func (e Endpoint) GoString() string { return e.String() }
