package generate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
)

func ps(texts ...string) []Passage {
	var out []Passage
	for i, t := range texts {
		id := fmt.Sprintf("t%d", i+1)
		out = append(out, Passage{ID: id, TraceIDs: []string{id}, Text: t})
	}
	return out
}

func opts(texts ...string) []datasets.Choice {
	var out []datasets.Choice
	for i, t := range texts {
		out = append(out, datasets.Choice{ID: string(rune('A' + i)), Text: t})
	}
	return out
}

const cbdEN = "Cannot be determined based on available information"

// mcCase is a hand-written multiple-choice case: the passages a retriever
// might return and the option a careful reader would pick.
type mcCase struct {
	desc     string
	question string
	passages []Passage
	choices  []datasets.Choice
	correct  string
}

// handCases were written to set DefaultThreshold and DefaultMargin (see
// TestTuneDefaults); they are not benchmark data.
var handCases = []mcCase{
	{"feeling after marathon", "How did I feel after finishing my first marathon?",
		ps("Ran my first marathon in Berlin today. Exhausted but so proud of myself!",
			"Coffee with mum, we talked about her garden.",
			"Work was stressful, the project deadline moved again."),
		opts("Proud and exhausted", "Disappointed and angry", "Bored and indifferent", "Anxious about work", cbdEN), "A"},
	{"restaurant never mentioned", "What did I think of the new Italian restaurant downtown?",
		ps("Ran my first marathon in Berlin today.", "Coffee with mum, we talked about her garden.",
			"Work was stressful, the project deadline moved again."),
		opts("Loved the pasta", "Found it overpriced", "Thought the service was slow", "Never went there", cbdEN), "E"},
	{"why piano stopped", "Why did I stop playing piano?",
		ps("I haven't touched the piano since my wrist injury in May. The doctor said to rest it.",
			"Started guitar lessons, love them."),
		opts("Because of a wrist injury", "Because I started guitar lessons instead", "Because I lost interest in music",
			"Because the piano was sold", cbdEN), "A"},
	{"zh wedding in Beijing", "我上个月去北京做什么了？",
		ps("上个月去北京参加了朋友的婚礼，很开心。", "最近工作很忙，经常加班。"),
		opts("参加朋友的婚礼", "出差开会", "看望父母", "旅游爬长城", "无法确定"), "A"},
	{"zh colleague never mentioned", "我对新同事的看法是什么？",
		ps("上个月去北京参加了朋友的婚礼，很开心。", "最近工作很忙，经常加班。"),
		opts("很欣赏他", "觉得他很难相处", "没有什么印象", "觉得他很懒", "无法确定"), "E"},
	{"birthday present", "What did my sister give me for my birthday?",
		ps("Lena surprised me with a vintage camera for my birthday! Best sister ever.", "Bought a new lens online."),
		opts("A vintage camera", "A new lens", "A book about photography", "Concert tickets", cbdEN), "A"},
	{"first marathon city, lexically ambiguous", "Which city did I run my first marathon in?",
		ps("Ran my first marathon in Berlin today.", "Planning to run the Paris marathon next spring."),
		opts("Berlin", "Paris", "London", "Rome", cbdEN), "A"},
	{"wedding not yet happened", "How did I feel about my brother's wedding?",
		ps("My brother's wedding is next month, still need to buy a suit.", "Work was hectic."),
		opts("Happy and moved", "Stressed about the speech", "Jealous", "Indifferent", cbdEN), "E"},
	{"trip only planned", "What did I think about the hiking trip with Tom?",
		ps("Hiking trip with Tom planned for Saturday, weather looks good."),
		opts("Loved it despite the rain", "It was too exhausting", "Tom got lost and it was stressful",
			"The weather was good and the views were great", cbdEN), "E"},
	{"upset on Friday, paraphrased", "Why was I upset last Friday?",
		ps("Friday: my laptop died and I lost the whole presentation. So upset.", "Saturday brunch with Ana was lovely."),
		opts("My laptop broke and I lost my presentation", "I had an argument with Ana", "I missed the train",
			"I failed an exam", cbdEN), "A"},
	{"zh knee injury", "我为什么不再跑步了？",
		ps("膝盖受伤以后，医生让我暂停跑步。"),
		opts("因为膝盖受伤", "因为工作太忙", "因为搬家了", "因为失去兴趣", "根据现有信息无法确定"), "A"},
	{"undecided between two drinks", "What did I order at the cafe?",
		ps("At the cafe I couldn't decide between a latte and a cappuccino.", "Met Jonas for lunch."),
		opts("A latte", "A cappuccino", "Green tea", "Hot chocolate", cbdEN), "E"},
	{"no passages at all", "Where did I go on holiday last summer?",
		nil, opts("Spain", "Italy", "Greece", "Nowhere", cbdEN), "E"},
}

func answerCase(t *testing.T, e Extractive, c mcCase) Answer {
	t.Helper()
	q := datasets.Question{ID: c.desc, Text: c.question, Choices: c.choices, Correct: c.correct}
	a, err := e.Answer(context.Background(), q, c.passages)
	if err != nil {
		t.Fatalf("%s: %v", c.desc, err)
	}
	return a
}

// reversed returns c with its options other than the last (E) in reverse
// order, ids unchanged: a choice that depends on option order changes.
func reversed(c mcCase) mcCase {
	n := len(c.choices) - 1
	rc := append([]datasets.Choice(nil), c.choices...)
	for i := 0; i < n/2; i++ {
		rc[i], rc[n-1-i] = rc[n-1-i], rc[i]
	}
	c.choices = rc
	return c
}

// rightBothWays reports whether e picks the correct option of c with the
// options in listed and in reversed order (so a tie broken by option order
// does not count as right).
func rightBothWays(t *testing.T, e Extractive, c mcCase) bool {
	return answerCase(t, e, c).Choice == c.correct && answerCase(t, e, reversed(c)).Choice == c.correct
}

// TestTuneDefaults reports the accuracy of a grid of settings on handCases
// (go test -v -run TuneDefaults), counting a case right only if it is right
// in both option orders, and checks that the defaults are among the best.
// With the defaults every case is right except the lexically ambiguous
// "first marathon city", where both cities are fully supported and the
// reader abstains (E) rather than guess. Thresholds 0.4 to 0.6 and every
// positive margin up to 0.3 do equally well on these cases; the defaults
// take the middle threshold and a small margin.
func TestTuneDefaults(t *testing.T) {
	best := 0
	var lines []string
	for _, th := range []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8} {
		var row []string
		for _, m := range []float64{0, 0.05, 0.1, 0.15, 0.2, 0.3} {
			e := Extractive{Threshold: th, Margin: m, Sentences: 1, Passages: DefaultPassages}
			n := 0
			for _, c := range handCases {
				if rightBothWays(t, e, c) {
					n++
				}
			}
			best = max(best, n)
			row = append(row, fmt.Sprintf("m=%.2f:%2d", m, n))
		}
		lines = append(lines, fmt.Sprintf("threshold %.1f  %s", th, strings.Join(row, " ")))
	}
	t.Logf("correct of %d hand cases:\n%s", len(handCases), strings.Join(lines, "\n"))
	n := 0
	for _, c := range handCases {
		a := answerCase(t, NewExtractive(), c)
		if rightBothWays(t, NewExtractive(), c) {
			n++
		} else if c.desc != "first marathon city, lexically ambiguous" {
			t.Errorf("%s: default chose %s, want %s (%s)", c.desc, a.Choice, c.correct, a.Raw)
		}
	}
	if n != best {
		t.Errorf("defaults get %d of %d right, the grid's best is %d", n, len(handCases), best)
	}
}

func TestExtractiveChoiceDetails(t *testing.T) {
	e := NewExtractive()
	// Case "feeling after marathon": only t1 shares question terms (first,
	// marathon), so it alone is relevant; A's terms {proud, exhaust} are both
	// in it, so support = 1 and the answer cites t1.
	a := answerCase(t, e, handCases[0])
	if a.Choice != "A" || a.Text != "Proud and exhausted" || a.Abstained || a.Support != 1 ||
		!reflect.DeepEqual(a.TraceIDs, []string{"t1"}) {
		t.Errorf("marathon case: %+v", a)
	}
	if !strings.Contains(a.Raw, "A=1.000") || !strings.Contains(a.Raw, "E=cannot-be-determined") {
		t.Errorf("Raw = %q", a.Raw)
	}

	// Hand-computed support, case "upset on Friday": n = 2 passages; Q terms
	// {upset, last, friday}; only t1 is relevant. A's terms minus Q and
	// minus the terms common to all options: {laptop, broke, lost,
	// presentation}; laptop, lost, presentation are in t1 (df 1, idf
	// ln(1+3/2)), broke is in none (idf ln(1+3/1) = ln 4).
	// support = 3·ln 2.5 / (3·ln 2.5 + ln 4).
	a = answerCase(t, e, handCases[9])
	want := 3 * math.Log(2.5) / (3*math.Log(2.5) + math.Log(4))
	if a.Choice != "A" || math.Abs(a.Support-want) > 1e-12 {
		t.Errorf("upset case: choice %s support %v, want A %v", a.Choice, a.Support, want)
	}

	// The same case with a threshold above that support abstains with E.
	a = answerCase(t, Extractive{Threshold: 0.7, Margin: 0.1}, handCases[9])
	if a.Choice != "E" || !a.Abstained || a.TraceIDs != nil {
		t.Errorf("high threshold: %+v", a)
	}

	// Without a cannot-be-determined option: the best supported option is
	// answered even below the threshold; with no support at all the reader
	// abstains with an empty choice.
	noCBD := handCases[9]
	noCBD.choices = noCBD.choices[:4]
	if a := answerCase(t, Extractive{Threshold: 0.9}, noCBD); a.Choice != "A" || a.Abstained {
		t.Errorf("no CBD option, some support: %+v", a)
	}
	noCBD.passages = ps("Nothing relevant here.")
	if a := answerCase(t, Extractive{Threshold: 0.9}, noCBD); a.Choice != "" || !a.Abstained || a.Support != 0 {
		t.Errorf("no CBD option, no support: %+v", a)
	}

	// Margin: two equally supported options -> E.
	if a := answerCase(t, e, handCases[6]); a.Choice != "E" || !a.Abstained || a.Support != 1 {
		t.Errorf("tie: %+v", a)
	}
	// With Margin 0 the tie goes to the first option.
	if a := answerCase(t, Extractive{Threshold: 0.5}, handCases[6]); a.Choice != "A" {
		t.Errorf("tie, margin 0: %+v", a)
	}
}

func TestExtractiveFreeText(t *testing.T) {
	passages := []Passage{
		{ID: "u1", TraceIDs: []string{"t1"}, Text: "Busy week. Ran my first marathon in Berlin today! Legs hurt."},
		{ID: "u2", TraceIDs: []string{"t2", "t3"}, Text: "Dinner with Ana.\nShe asked about the marathon time: 4 hours 12 minutes."},
		{ID: "u3", TraceIDs: []string{"t4"}, Text: "Ran my first marathon in Berlin today! Repeated in a copy."},
	}
	q := datasets.Question{ID: "q", Text: "How long did my first marathon in Berlin take?"}
	a, err := NewExtractive().Answer(context.Background(), q, passages)
	if err != nil {
		t.Fatal(err)
	}
	// Sentence scores (idf over 3 passages): "Ran my first marathon in Berlin
	// today!" has first, marathon, berlin; the time sentence has marathon
	// only; "Busy week." none. Two sentences, in passage order; the repeat in
	// u3 is skipped.
	wantText := "Ran my first marathon in Berlin today! She asked about the marathon time: 4 hours 12 minutes."
	if a.Text != wantText || a.Abstained || a.Choice != "" {
		t.Errorf("Text = %q, want %q (%+v)", a.Text, wantText, a)
	}
	if !reflect.DeepEqual(a.TraceIDs, []string{"t1", "t2", "t3"}) {
		t.Errorf("TraceIDs = %v", a.TraceIDs)
	}
	// Support = best sentence / all question terms: Q terms {long, first,
	// marathon, berlin, take}; df first=2, marathon=3, berlin=2, others 0.
	idf := func(df float64) float64 { return math.Log(1 + 4/(df+1)) }
	want := (2*idf(2) + idf(3)) / (2*idf(2) + idf(3) + 2*idf(0))
	if math.Abs(a.Support-want) > 1e-12 {
		t.Errorf("Support = %v, want %v", a.Support, want)
	}

	one, _ := Extractive{Sentences: 0}.Answer(context.Background(), q, passages)
	if one.Text != "Ran my first marathon in Berlin today!" {
		t.Errorf("Sentences 0 -> 1: %q", one.Text)
	}

	zh := []Passage{{ID: "z", TraceIDs: []string{"z"}, Text: "今天很累。上个月去北京参加了朋友的婚礼！很开心"}}
	a, _ = NewExtractive().Answer(context.Background(), datasets.Question{ID: "q", Text: "我上个月去北京做什么了？"}, zh)
	if a.Text != "上个月去北京参加了朋友的婚礼！" {
		t.Errorf("chinese: %q", a.Text)
	}

	a, _ = NewExtractive().Answer(context.Background(), datasets.Question{ID: "q", Text: "What about Rome?"}, passages)
	if !a.Abstained || a.Text != "" || a.TraceIDs != nil {
		t.Errorf("no overlap: %+v", a)
	}
}

func TestExtractiveErrors(t *testing.T) {
	q := datasets.Question{ID: "q7", Text: "x"}
	for _, e := range []Extractive{{Threshold: -0.1}, {Threshold: 1.5}, {Threshold: math.NaN()}, {Margin: -1}} {
		if _, err := e.Answer(context.Background(), q, nil); err == nil || !strings.Contains(err.Error(), `extractive answer "q7"`) {
			t.Errorf("%+v: err = %v", e, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewExtractive().Answer(ctx, q, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if NewExtractive().Name() != "extractive (offline)" {
		t.Error("Name")
	}
}

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"One. Two! Three? Four", []string{"One.", "Two!", "Three?", "Four"}},
		{"It cost 3.5 euros. Fine.", []string{"It cost 3.5 euros.", "Fine."}},
		{"Line one\nline two\n\n", []string{"Line one", "line two"}},
		{"他说：\"好。\"然后走了。", []string{"他说：\"好。", "\"然后走了。"}},
		{"我很开心！你呢？好", []string{"我很开心！", "你呢？", "好"}},
		{"... !!! ?", nil},
	}
	for _, tc := range tests {
		if got := splitSentences(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitSentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStem(t *testing.T) {
	tests := map[string]string{
		"finished": "finish", "finishing": "finish", "finish": "finish",
		"running": "run", "stopped": "stop", "marathons": "marathon",
		"loved": "lov", "love": "lov", "loving": "lov",
		"stories": "story", "glass": "glass", "bus": "bus", "need": "need",
		"quickly": "quick", "北京": "北京", "café": "café",
	}
	for in, want := range tests {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

var _ Reader = Extractive{}
