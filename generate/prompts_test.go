package generate

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
)

// goldenHashes pin the prompt versions. A failure here means a prompt's text
// changed: that is a new prompt version, so results made with the old one
// are no longer comparable. Update the hash on purpose, never to silence the
// test.
var goldenHashes = map[string]string{
	"clonemem-free":      "97166dc2675a",
	"clonemem-choice":    "fd21e206fe4f",
	"knowme-extraction":  "e43f348cc423",
	"knowme-abstention":  "4a25f7741cc8",
	"knowme-temporal":    "a118f5d7f8ee",
	"knowme-ordering":    "ef6f10bd96eb",
	"knowme-insight":     "cd97a1e587aa",
	"locomo-qa":          "5f1a83909e78",
	"locomo-temporal":    "c8fd26512ce6",
	"locomo-adversarial": "725a18ccbba2",
}

func TestPromptHashes(t *testing.T) {
	hex12 := regexp.MustCompile(`^[0-9a-f]{12}$`)
	seen := map[string]string{}
	ps := Prompts()
	if len(ps) != len(goldenHashes) {
		t.Fatalf("Prompts() has %d prompts, the golden table %d", len(ps), len(goldenHashes))
	}
	for _, p := range ps {
		if !hex12.MatchString(p.Hash) {
			t.Errorf("%s: hash %q is not 12 hex digits", p.Name, p.Hash)
		}
		if p.Hash != PromptHash(p.System, p.User) {
			t.Errorf("%s: Hash %s does not match its text (%s)", p.Name, p.Hash, PromptHash(p.System, p.User))
		}
		if want, ok := goldenHashes[p.Name]; !ok || p.Hash != want {
			t.Errorf("%s: hash %s, golden %q: the prompt text changed (a new version)", p.Name, p.Hash, want)
		}
		if other, dup := seen[p.Hash]; dup {
			t.Errorf("%s and %s share the hash %s", p.Name, other, p.Hash)
		}
		seen[p.Hash] = p.Name
	}
	// The hash covers both messages and where one ends.
	base := PromptHash("ab", "c")
	for _, h := range []string{PromptHash("a", "bc"), PromptHash("ab ", "c"), PromptHash("ab", "C")} {
		if h == base {
			t.Errorf("different texts share the hash %s", h)
		}
	}
	if NewPrompt("x", "ab", "c").Hash != base || NewPrompt("y", "ab", "c").Hash != base {
		t.Error("the name changed the hash, or NewPrompt does not hash")
	}
}

func TestRender(t *testing.T) {
	q := datasets.Question{ID: "q", Text: "  Why did I stop running? ", Choices: []datasets.Choice{{ID: "A", Text: "Injury"}, {ID: "B", Text: "Boredom"}}}
	tests := []struct {
		name   string
		p      Prompt
		person string
		q      datasets.Question
		ps     []Passage
		want   []string // substrings of system + "\n|\n" + user
		absent []string
	}{
		{"choice with time", PromptCloneMemChoice, " Ana ", func() datasets.Question {
			q := q
			q.AskedAt = time.Date(2024, 1, 2, 9, 0, 0, 0, time.UTC)
			return q
		}(), testPassages[:1],
			[]string{"You are Ana. A close friend", "on 2024-01-02 09:00.", "---- idx 1 ----\ndate: 2023-05-04\nmedium: diary\n", "asks: Why did I stop running?\n", "A. Injury\nB. Boredom\n"},
			[]string{"idx 2", "no memories"}},
		{"free without time", PromptCloneMemFree, "", datasets.Question{Text: "Why?"}, nil,
			[]string{"You are the person whose memories", "(no memories were retrieved)", "Your friend asks: Why?"},
			[]string{"It is now", "question on", "Options"}},
		{"knowme named", PromptKnowMeOrdering, "Karl", datasets.Question{Text: "List the steps."}, testPassages[1:2],
			[]string{"memory records of Karl, a person", "numbered list", "---- idx 1 ----\ndate: 2023-05-06 18:30\nmedium: chat_private", "Question: List the steps."},
			[]string{"asked on"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sys, user, err := tt.p.Render(tt.person, tt.q, tt.ps)
			if err != nil {
				t.Fatal(err)
			}
			all := sys + "\n|\n" + user
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("lacks %q:\n%s", w, all)
				}
			}
			for _, w := range tt.absent {
				if strings.Contains(all, w) {
					t.Errorf("has %q:\n%s", w, all)
				}
			}
			if strings.Contains(all, "{{") || strings.Contains(all, "<no value>") {
				t.Errorf("unfilled template:\n%s", all)
			}
		})
	}
}

func TestRenderBadTemplate(t *testing.T) {
	for _, p := range []Prompt{NewPrompt("broken", "{{if .Person}", "x"), NewPrompt("unknown-field", "ok", "{{.Nope}}")} {
		_, _, err := p.Render("", datasets.Question{}, nil)
		if err == nil || !strings.HasPrefix(err.Error(), `generate: render prompt "`+p.Name+`" (`+p.Hash+`)`) {
			t.Errorf("%s: error %v, want one naming the prompt and its hash", p.Name, err)
		}
	}
}

func TestFormatTime(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	tests := []struct {
		t    time.Time
		want string
	}{
		{time.Time{}, ""},
		{time.Date(2023, 5, 4, 0, 0, 0, 0, time.UTC), "2023-05-04"},
		{time.Date(2023, 5, 4, 18, 30, 0, 0, time.UTC), "2023-05-04 18:30"},
		{time.Date(1969, 8, 15, 14, 1, 20, 0, time.UTC), "1969-08-15 14:01:20"},
		{time.Date(2023, 5, 4, 0, 30, 0, 0, cet), "2023-05-04 00:30"},
	}
	for _, tt := range tests {
		if got := FormatTime(tt.t); got != tt.want {
			t.Errorf("FormatTime(%v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}
