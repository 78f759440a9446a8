package generate

import (
	"errors"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
)

// FuzzParseChoice is the fuzz target of the option parser. Run it with
//
//	go test -run='^$' -fuzz='^FuzzParseChoice$' -fuzztime=30s ./generate

// choiceSpec writes choices one a line as "ID=text".
func choiceSpec(cs []datasets.Choice) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.ID + "=" + c.Text + "\n")
	}
	return b.String()
}

// parseSpec reads at most 8 choices written by choiceSpec.
func parseSpec(spec string) []datasets.Choice {
	var out []datasets.Choice
	for _, l := range strings.Split(spec, "\n") {
		if l == "" || len(out) == 8 {
			continue
		}
		id, text, _ := strings.Cut(l, "=")
		out = append(out, datasets.Choice{ID: id, Text: text})
	}
	return out
}

// toFullwidth writes the ASCII characters of s in their fullwidth forms.
func toFullwidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0x21 && r <= 0x7E {
			return r + 0xFEE0
		}
		return r
	}, s)
}

// outcome is what ParseChoice said: an id or the kind of failure.
func outcome(id string, err error) string {
	switch {
	case err == nil:
		return "id " + id
	case errors.Is(err, ErrAmbiguous):
		return "ambiguous"
	case errors.Is(err, ErrUnparseable):
		return "unparseable"
	}
	return "other error"
}

// FuzzParseChoice parses a fuzzed model output against fuzzed options. The
// answer is one of the options, or an error that is ErrUnparseable or
// ErrAmbiguous (or says there are no options) and quotes the output; the
// output in fullwidth forms reads the same; and for CloneMem-style options
// (distinct single capital letters or digits), the id alone, "(id)" and
// "The answer is id." name that option whenever no option's text reads the
// same.
func FuzzParseChoice(f *testing.F) {
	seedChoices := [][]datasets.Choice{abcde}
	if d, err := datasets.Sample(); err == nil {
		n := 0
		for _, q := range d.Questions {
			if len(q.Choices) > 0 && n < 6 {
				seedChoices = append(seedChoices, q.Choices)
				n++
			}
		}
	} else {
		f.Fatalf("sample: %v", err)
	}
	for _, out := range []string{"C", "**B**", "Ｃ", "（B）", "The answer is (B) because she mentions Paris.", "答案是B。",
		"我选择了B", "The answer is A or B.", "A few of these fit, but I think D.", "Cannot be determined", "I'd say she never ran a marathon", ""} {
		for _, cs := range seedChoices {
			f.Add(out, choiceSpec(cs))
		}
	}
	f.Add("option 10, not 1", "1=one\n10=ten\n")
	f.Fuzz(func(t *testing.T, output, spec string) {
		choices := parseSpec(spec)
		id, err := ParseChoice(output, choices)
		if err == nil {
			found := false
			for _, c := range choices {
				found = found || (c.ID == id && id != "")
			}
			if !found {
				t.Fatalf("ParseChoice(%q) = %q, not an option id of %q", output, id, spec)
			}
		} else {
			msg := err.Error()
			if !strings.HasPrefix(msg, "generate: parse choice ") {
				t.Errorf("error %q does not start with the operation", msg)
			}
			if !errors.Is(err, ErrUnparseable) && !errors.Is(err, ErrAmbiguous) && !(len(choices) == 0 && strings.Contains(msg, "no options given")) {
				t.Errorf("error %q is neither ErrUnparseable nor ErrAmbiguous", msg)
			}
		}
		if fw := toFullwidth(output); fw != output {
			if a, b := outcome(id, err), outcome(ParseChoice(fw, choices)); a != b {
				t.Errorf("ParseChoice(%q): %s, but in fullwidth forms %q: %s", output, a, fw, b)
			}
		}
		if !letterIDs(choices) {
			return
		}
		for _, c := range choices {
			for _, probe := range []string{c.ID, "(" + c.ID + ")", "The answer is " + c.ID + "."} {
				if textReads(choices, probe) {
					continue
				}
				if got, err := ParseChoice(probe, choices); err != nil || got != c.ID {
					t.Errorf("ParseChoice(%q) with options %q = %q, %v; want %q", probe, spec, got, err, c.ID)
				}
			}
		}
	})
}

// letterIDs reports whether every option id is one capital ASCII letter or
// digit, and the ids are distinct.
func letterIDs(cs []datasets.Choice) bool {
	seen := map[string]bool{}
	for _, c := range cs {
		if len(c.ID) != 1 || !(c.ID[0] >= 'A' && c.ID[0] <= 'Z' || c.ID[0] >= '0' && c.ID[0] <= '9') || seen[c.ID] {
			return false
		}
		seen[c.ID] = true
	}
	return len(cs) > 0
}

// textReads reports whether an option's text reads as probe, so that rule 2
// (the output is an option's text) rightly answers before the markers.
func textReads(cs []datasets.Choice, probe string) bool {
	p := normText(normalizeOutput(probe))
	for _, c := range cs {
		if t := normText(c.Text); t != "" && t == p {
			return true
		}
	}
	return false
}
