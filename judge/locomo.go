package judge

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/text"
)

// MetricLoCoMoF1 names LoCoMo's QA F1 as its evaluation script computes it
// (LoCoMoF1): the benchmark's own lexical metric, exact given the answer
// and the gold (record.KindExact), neither an offline proxy nor an LLM
// judge.
const MetricLoCoMoF1 = "LoCoMo F1"

// The phrases that make a category-5 (adversarial) answer right in
// LoCoMo's evaluation script, matched in the lowercased answer.
var loCoMoNoInformation = []string{"no information available", "not mentioned"}

// asciiPunctuation is Python's string.punctuation, what LoCoMo's
// normalization removes.
const asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// LoCoMoNormalize normalizes an answer as LoCoMo's evaluation script
// (task_eval/evaluation.py, normalize_answer) does, in its order:
//
//  1. commas removed;
//  2. lowercased (Python's str.lower: text.PyLower);
//  3. ASCII punctuation removed (Python's string.punctuation);
//  4. the words "a", "an", "the" and "and" replaced by a space (whole
//     words: maximal runs of word characters as the regex module's \w
//     has them: letters and other alphabetic characters, marks, decimal
//     digits, connector punctuation, ZWNJ and ZWJ);
//  5. whitespace runs (Python's str.split: Unicode White_Space and
//     U+001C..U+001F) turned into single spaces, ends trimmed.
func LoCoMoNormalize(s string) string {
	s = strings.ReplaceAll(s, ",", "")
	s = text.PyLower(s)
	s = strings.Map(func(r rune) rune {
		if r < 0x80 && strings.ContainsRune(asciiPunctuation, r) {
			return -1
		}
		return r
	}, s)
	s = removeArticles(s)
	return strings.Join(pyFields(s), " ")
}

// removeArticles replaces every maximal run of word characters that is a,
// an, the or and by a space (the regex \b(a|an|the|and)\b of the script).
func removeArticles(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); {
		if !pyWordChar(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && pyWordChar(rs[j]) {
			j++
		}
		switch w := string(rs[i:j]); w {
		case "a", "an", "the", "and":
			b.WriteByte(' ')
		default:
			b.WriteString(w)
		}
		i = j
	}
	return b.String()
}

// pyWordChar is \w of Python's regex module on str patterns: Alphabetic
// (letters, letter numbers, Other_Alphabetic), marks, decimal digits,
// connector punctuation and the join controls.
func pyWordChar(r rune) bool {
	if r < 0x80 {
		return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.In(r, unicode.Nd, unicode.Nl, unicode.Pc, unicode.Other_Alphabetic) ||
		r == 0x200C || r == 0x200D
}

// pyFields splits s as Python's str.split() with no argument does.
func pyFields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1C && r <= 0x1F })
}

// LoCoMoTokenF1 is the token F1 of LoCoMo's script (f1_score): both texts
// normalized (LoCoMoNormalize), split on spaces, each token stemmed
// (text.PorterStem, NLTK's PorterStemmer), then with multiset overlap
//
//	common = Σ_t min(count_pred(t), count_gold(t))
//	P = common / |pred|, R = common / |gold|, F1 = 2·P·R / (P + R)
//
// and 0 when common = 0, also when both are empty (the script's rule:
// memlab's TokenF1 proxy gives 1 there).
func LoCoMoTokenF1(pred, gold string) float64 {
	p, g := stems(pred), stems(gold)
	counts := map[string]int{}
	for _, t := range g {
		counts[t]++
	}
	common := 0
	for _, t := range p {
		if counts[t] > 0 {
			counts[t]--
			common++
		}
	}
	if common == 0 {
		return 0
	}
	prec := float64(common) / float64(len(p))
	rec := float64(common) / float64(len(g))
	return (2 * prec * rec) / (prec + rec)
}

func stems(s string) []string {
	ws := strings.Split(LoCoMoNormalize(s), " ")
	if len(ws) == 1 && ws[0] == "" {
		return nil
	}
	for i, w := range ws {
		ws[i] = text.PorterStem(w)
	}
	return ws
}

// LoCoMoMultiF1 is the multi-answer F1 of LoCoMo's script (f1), used for
// multi-hop questions: prediction and gold are split on commas into parts
// (empty parts kept), and
//
//	F1 = mean over gold parts g of (max over predicted parts p of LoCoMoTokenF1(p, g))
func LoCoMoMultiF1(pred, gold string) float64 {
	ps, gs := strings.Split(pred, ","), strings.Split(gold, ",")
	sum := 0.0
	for _, g := range gs {
		best := 0.0
		for _, p := range ps {
			best = max(best, LoCoMoTokenF1(p, g))
		}
		sum += best
	}
	return sum / float64(len(gs))
}

// LoCoMoSaysNoInformation reports whether an answer is right for an
// adversarial (category 5) question by LoCoMo's script: its lowercased
// text contains "no information available" or "not mentioned".
func LoCoMoSaysNoInformation(answer string) bool {
	low := text.PyLower(answer)
	for _, p := range loCoMoNoInformation {
		if strings.Contains(low, p) {
			return true
		}
	}
	return false
}

// LoCoMoF1 scores a prediction against a gold answer of a LoCoMo question
// of the given category (LoCoMo's official numbering,
// datasets.LoCoMoCategories) exactly as LoCoMo's evaluation script
// (task_eval/evaluation.py, eval_question_answering) does:
//
//   - 1 multi-hop: LoCoMoMultiF1 (comma-separated parts);
//   - 2 temporal and 4 single-hop: LoCoMoTokenF1;
//   - 3 open-domain: LoCoMoTokenF1 against the gold cut at its first ";";
//   - 5 adversarial: 1 when LoCoMoSaysNoInformation(pred), else 0 (the
//     gold is not read).
//
// Another category is an error naming it.
func LoCoMoF1(pred, gold string, category int) (float64, error) {
	switch category {
	case 1:
		return LoCoMoMultiF1(pred, gold), nil
	case 2, 4:
		return LoCoMoTokenF1(pred, gold), nil
	case 3:
		g, _, _ := strings.Cut(gold, ";")
		return LoCoMoTokenF1(pred, strings.TrimSpace(g)), nil
	case 5:
		if LoCoMoSaysNoInformation(pred) {
			return 1, nil
		}
		return 0, nil
	}
	return math.NaN(), fmt.Errorf("judge: LoCoMo F1: category %d is not one of LoCoMo's 1-5 (%s)", category, datasets.LoCoMoMapping)
}

// LoCoMoQuestionF1 is LoCoMoF1 of an answer to q, a LoCoMo question
// (datasets.LoCoMoCategory), against q.Answer. For an adversarial
// question, an answer the reader marked as an abstention (abstained) is
// right as the script's "no information available" is: memlab's readers
// say they abstain instead of writing that phrase. It is NaN, with no
// error, for a question of categories 1-4 without reference answer
// (Question.HasReference: not scored, counted as no reference). A question
// that is not LoCoMo's is an error naming it.
func LoCoMoQuestionF1(q datasets.Question, answer string, abstained bool) (float64, error) {
	cat, ok := datasets.LoCoMoCategory(q)
	if !ok {
		return math.NaN(), fmt.Errorf("judge: LoCoMo F1 of question %q: not a LoCoMo question (task %q, category %v)", q.ID, q.Task, q.Extra["category"])
	}
	switch {
	case cat == 5 && abstained:
		return 1, nil
	case cat != 5 && !q.HasReference():
		return math.NaN(), nil
	}
	return LoCoMoF1(answer, q.Answer, cat)
}
