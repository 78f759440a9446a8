package llm

import (
	"strings"
	"testing"
)

func TestRedactURLs(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://user:secret@host/v1", "http://***@host/v1"},
		{"https://sk-token@api.example.com", "https://***@api.example.com"},
		{"https://host:8443/openai?api-version=2024-02-01&api_key=sk-1&x=2", "https://host:8443/openai?api-version=2024-02-01&api_key=***&x=2"},
		{"http://h/v1?key=a&token=b&access_token=c&apiKey=d&X-Api-Key=e&client_secret=f&sig=g&code=h&password=i&limit=5",
			"http://h/v1?key=***&token=***&access_token=***&apiKey=***&X-Api-Key=***&client_secret=***&sig=***&code=***&password=***&limit=5"},
		{"http://u:p@h?token=abc#frag", "http://***@h?token=***#frag"},
		{"http://h/v1?access_token=abc/chat/completions", "http://h/v1?access_token=***"},
		{`Get "http://u:***@127.0.0.1:1/v1/models": dial tcp 127.0.0.1:1: connect: connection refused`,
			`Get "http://***@127.0.0.1:1/v1/models": dial tcp 127.0.0.1:1: connect: connection refused`},
		{"m@default(http://a:b@h1/v1,http://c:d@h2:9/v1)", "m@default(http://***@h1/v1,http://***@h2:9/v1)"},
		{"target=http://a:b@h1,retries=3", "target=http://***@h1,retries=3"},
		{"postgres://admin:pw@db:5432/x and wss://t@w/s", "postgres://***@db:5432/x and wss://***@w/s"},
		// Nothing to redact: unchanged.
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"},
		{"see https://x.org/a?b=c&monkeys=3#k", "see https://x.org/a?b=c&monkeys=3#k"},
		{"http://h/models/org@v2", "http://h/models/org@v2"},
		{"gpt-4o-mini@openai", "gpt-4o-mini@openai"},
		{"://user:pw@h", "://user:pw@h"},
		{"", ""},
	}
	for _, c := range cases {
		if got := RedactURLs(c.in); got != c.want {
			t.Errorf("RedactURLs(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestRedactionKeepsEndpointsApart: only credentials go, so endpoints that
// can answer differently (host, port, path, other parameters) keep
// different names, hence different run ids.
func TestRedactionKeepsEndpointsApart(t *testing.T) {
	distinct := []string{
		"http://u:p@h1/v1", "http://u:p@h2/v1", "http://u:p@h1:8001/v1", "http://u:p@h1/v2",
		"https://u:p@h1/v1", "http://u:p@h1/v1?api-version=1", "http://u:p@h1/v1?api-version=2", "http://h1/v1",
	}
	seen := map[string]string{}
	for _, u := range distinct {
		r := RedactURLs(u)
		if prev, dup := seen[r]; dup {
			t.Errorf("%s and %s both redact to %s", prev, u, r)
		}
		seen[r] = u
	}
	if a, b := RedactURLs("http://alice:one@h/v1?key=1"), RedactURLs("http://bob:two@h/v1?key=2"); a != b || strings.Contains(a, "alice") {
		t.Errorf("credentials alone differ, yet %s != %s", a, b)
	}
}
