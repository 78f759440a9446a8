package generate

import (
	"errors"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
)

var abcde = []datasets.Choice{
	{ID: "A", Text: "She ran the Berlin marathon"},
	{ID: "B", Text: "She ran the Paris marathon"},
	{ID: "C", Text: "She stopped running after an injury"},
	{ID: "D", Text: "She never ran a marathon"},
	{ID: "E", Text: "Cannot be determined based on available information"},
}

func TestParseChoice(t *testing.T) {
	tests := []struct {
		out  string
		want string // "" means an error is expected
		err  error
	}{
		// 1. lone id
		{"C", "C", nil},
		{"c", "C", nil},
		{"C.", "C", nil},
		{"(c)", "C", nil},
		{"  [D]\n", "D", nil},
		{"**B**", "B", nil},
		{"Ｃ", "C", nil},
		{"（B）", "B", nil},
		{"Answer: ＊＊B＊＊, not A or C.", "B", nil}, // fullwidth emphasis is removed like ** (found by FuzzParseChoice)
		{"E\n\nExplanation: A and B are not mentioned.", "E", nil},
		// 2. full option text
		{"she ran the  PARIS marathon.", "B", nil},
		{"Cannot be determined based on available information", "E", nil},
		// 3. answer markers
		{"Answer: C", "C", nil},
		{"answer: c", "C", nil},
		{"The answer is (B) because she mentions Paris.", "B", nil},
		{"The answer is B because she mentions Paris.", "B", nil},
		{"Final answer would be option D.", "D", nil},
		{"The correct answer is: A", "A", nil},
		{"Answer: C. Option A is wrong because it was Paris.", "C", nil},
		{"答案：C", "C", nil},
		{"答案是B。", "B", nil},
		{"正确答案为【A】", "A", nil},
		{"The answer is A or B.", "", ErrAmbiguous},
		{"Answer: A\nAnswer: D", "", ErrAmbiguous},
		{"The answer is a bit unclear, but I'd pick C.", "C", nil},
		// 4. option markers
		{"Option C", "C", nil},
		{"I choose b.", "B", nil},
		{"I would go with D here.", "D", nil},
		{"选项C", "C", nil},
		{"我选C，因为她受伤了。", "C", nil},
		{"我选择了B", "B", nil},
		{"Options A to E were considered; I pick e", "E", nil},
		{"Option A or option B, hard to say.", "", ErrAmbiguous},
		// 5. leading id
		{"C) She stopped running after an injury", "C", nil},
		{"B. Paris", "B", nil},
		{"(B) because of Paris", "B", nil},
		{"D - she never did", "D", nil},
		{"B because of Paris", "B", nil},
		// 6. bracketed anywhere
		{"Based on the diary, (C) fits best.", "C", nil},
		{"Either (A) or (B).", "", ErrAmbiguous},
		// 7. option text inside the output
		{"I believe she stopped running after an injury last year.", "C", nil},
		{"She ran the Berlin marathon, and she ran the Paris marathon too.", "", ErrAmbiguous},
		// 8. bare capitals
		{"I think it's C.", "C", nil},
		{"A few diaries mention it: D.", "D", nil},
		{"C is right, not A.", "C", nil}, // rule 5 (leading "C ") decides first
		{"Not A; it's C.", "", ErrAmbiguous},
		{"A or B", "", ErrAmbiguous},
		{"Maybe A is right", "A", nil},
		{"I guess A few things point to D", "D", nil},
		// failures
		{"", "", ErrUnparseable},
		{"I don't know.", "", ErrUnparseable},
		{"Probably the one about Rome.", "", ErrUnparseable},
		{"a bit of everything", "", ErrUnparseable},
		{"F", "", ErrUnparseable},
	}
	for _, tc := range tests {
		got, err := ParseChoice(tc.out, abcde)
		if tc.err != nil {
			if !errors.Is(err, tc.err) || got != "" {
				t.Errorf("ParseChoice(%q) = %q, %v; want error %v", tc.out, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseChoice(%q) = %q, %v; want %q", tc.out, got, err, tc.want)
		}
	}
}

func TestParseChoiceEdges(t *testing.T) {
	if _, err := ParseChoice("A", nil); err == nil || !strings.Contains(err.Error(), "no options") {
		t.Errorf("no choices: err = %v", err)
	}
	// Ids returned as the dataset spells them.
	lower := []datasets.Choice{{ID: "a", Text: "yes"}, {ID: "b", Text: "no"}}
	if got, err := ParseChoice("Answer: B", lower); err != nil || got != "b" {
		t.Errorf("lowercase ids: %q, %v", got, err)
	}
	// Multi-letter ids are whole tokens: "A1" is not "A".
	multi := []datasets.Choice{{ID: "A1", Text: "x"}, {ID: "A", Text: "y"}}
	if got, err := ParseChoice("answer: A1", multi); err != nil || got != "A1" {
		t.Errorf("multi-letter ids: %q, %v", got, err)
	}
	// An option without an id (the loader reports it) is never the answer:
	// its text named the option "" with no error (found by FuzzParseChoice).
	noID := []datasets.Choice{{ID: "", Text: "yes"}, {ID: "B", Text: "no"}}
	for _, out := range []string{"yes", "I'd say yes."} {
		if got, err := ParseChoice(out, noID); !errors.Is(err, ErrUnparseable) {
			t.Errorf("option without id, output %q: %q, %v; want ErrUnparseable", out, got, err)
		}
	}
	_, err := ParseChoice(strings.Repeat("nothing here ", 20), abcde)
	if err == nil || !strings.Contains(err.Error(), `generate: parse choice "nothing here`) || !strings.Contains(err.Error(), "...") {
		t.Errorf("long output: err = %v (want the output quoted and cut)", err)
	}
}

func TestCannotDetermine(t *testing.T) {
	tests := []struct {
		desc    string
		choices []datasets.Choice
		want    string
	}{
		{"english E", abcde, "E"},
		{"chinese text, not E", []datasets.Choice{{ID: "A", Text: "无法确定"}, {ID: "B", Text: "他去了北京"}}, "A"},
		{"curly apostrophe", []datasets.Choice{{ID: "A", Text: "x"}, {ID: "B", Text: "It Can’t Be Determined."}}, "B"},
		{"two matches prefer E", []datasets.Choice{{ID: "A", Text: "not enough information"}, {ID: "E", Text: "无法判断"}}, "E"},
		{"no text match: id E", []datasets.Choice{{ID: "A", Text: "x"}, {ID: "E", Text: "y"}}, "E"},
		{"none", []datasets.Choice{{ID: "A", Text: "x"}, {ID: "B", Text: "y"}}, ""},
		{"no choices", nil, ""},
	}
	for _, tc := range tests {
		if got := CannotDetermine(tc.choices); got != tc.want {
			t.Errorf("%s: CannotDetermine = %q, want %q", tc.desc, got, tc.want)
		}
	}
}
