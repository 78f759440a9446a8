package offline

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/memlab/memlab/llm"
)

var _ llm.Extractor = (*Extractive)(nil)

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"plain", "I woke up. It rained! Did it stop? Yes", []string{"I woke up.", "It rained!", "Did it stop?", "Yes"}},
		{"abbreviations and numbers", "Mr. Smith paid 3.5 euros at 10 a.m. on example.com today. J. Doe agreed.",
			[]string{"Mr. Smith paid 3.5 euros at 10 a.m. on example.com today.", "J. Doe agreed."}},
		{"quotes and ellipsis", `She said "go." Then... silence?! End`, []string{`She said "go."`, "Then...", "silence?!", "End"}},
		{"chinese", "我搬到了北京。秋天很美！你喜欢吗？好", []string{"我搬到了北京。", "秋天很美！", "你喜欢吗？", "好"}},
		{"newlines and bullets", "Plans for today:\n- buy milk\n* call Anna\n1. pay rent\n• walk\n\n> quoted\n## Heading",
			[]string{"Plans for today:", "buy milk", "call Anna", "pay rent", "walk", "quoted", "Heading"}},
		{"speaker labels", "**Anna:** hi there\n**Ben**: hello\nAnna Lee: fine. You?\n小明：你好\nnote: kept\nTime 10:30 ok",
			[]string{"hi there", "hello", "fine.", "You?", "你好", "note: kept", "Time 10:30 ok"}},
		{"emphasis", "I **really** liked __it__.", []string{"I really liked it."}},
		{"empty", " \n\n ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := splitSentences(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

const chat = "**Anna:** I moved to Berlin in March 2021 for a new job at a robotics startup. Mr. Smith, my manager, was great.\n" +
	"**Ben:** Nice! How is the robotics startup?\n" +
	"- Anna: The robotics work is hard but the team is kind. I paid 3.5 thousand euros rent.\nAnd so it is."

const zh = "我上个月搬到了北京。北京的秋天很美！我在一家机器人公司工作，同事很友好。\n小明：你喜欢北京吗？"

func TestExtract(t *testing.T) {
	e := NewExtractive(ExtractOptions{SummarySentences: 2, Keywords: 4})
	tests := []struct {
		name, kind, text string
		want             []string
	}{
		{"facts en", llm.ExtractFacts, chat, []string{
			"I moved to Berlin in March 2021 for a new job at a robotics startup.",
			"Mr. Smith, my manager, was great.", "Nice!", "How is the robotics startup?",
			"The robotics work is hard but the team is kind.", "I paid 3.5 thousand euros rent.",
		}},
		{"facts zh", llm.ExtractFacts, zh, []string{"我上个月搬到了北京。", "北京的秋天很美！", "我在一家机器人公司工作，同事很友好。", "你喜欢北京吗？"}},
		{"facts repeats and no content", llm.ExtractFacts, "It was cold. And so it is. It was cold.", []string{"It was cold."}},
		// The two sentences about the robotics startup share the most words.
		{"summary en", llm.ExtractSummary, chat, []string{"I moved to Berlin in March 2021 for a new job at a robotics startup. How is the robotics startup?"}},
		{"summary zh", llm.ExtractSummary, zh, []string{"北京的秋天很美！你喜欢北京吗？"}},
		{"summary short text", llm.ExtractSummary, "Only one sentence here.", []string{"Only one sentence here."}},
		{"summary empty", llm.ExtractSummary, "and the of", nil},
		{"keywords en", llm.ExtractKeywords, chat, []string{"paid 3.5 thousand", "robotics startup", "march 2021", "new job"}},
		{"keywords zh", llm.ExtractKeywords, "北京的秋天。北京的秋天！杭州", []string{"北京", "秋天", "杭州"}},
		{"keywords empty", llm.ExtractKeywords, "the and. of!", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.Extract(context.Background(), tt.kind, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestExtractSummaryCentrality(t *testing.T) {
	text := "The garden has roses and tulips. I water the roses and tulips in the garden every morning. " +
		"My car broke down. The garden roses bloom in June."
	e := NewExtractive(ExtractOptions{SummarySentences: 1})
	got, _ := e.Extract(context.Background(), llm.ExtractSummary, text)
	if want := []string{"The garden has roses and tulips."}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// Two sentences: kept in text order, not score order.
	e = NewExtractive(ExtractOptions{SummarySentences: 2})
	got, _ = e.Extract(context.Background(), llm.ExtractSummary, text)
	if len(got) != 1 || !strings.HasPrefix(got[0], "The garden has roses") || strings.Contains(got[0], "car") {
		t.Errorf("got %q, want the two garden sentences in order", got)
	}
}

func TestExtractCorpusIDF(t *testing.T) {
	// With a corpus where "diary" is everywhere, it stops being a keyword.
	corpus := []string{"diary entry one", "diary entry two", "diary about a kite", "diary"}
	text := "Diary, kite. Diary; diary. Diary! Kite."
	plain := NewExtractive(ExtractOptions{Keywords: 1})
	fitted := NewExtractive(ExtractOptions{Keywords: 1, Corpus: corpus})
	if got, _ := plain.Extract(context.Background(), llm.ExtractKeywords, text); !slices.Equal(got, []string{"diary"}) {
		t.Errorf("without corpus: got %q, want [diary]", got)
	}
	if got, _ := fitted.Extract(context.Background(), llm.ExtractKeywords, text); !slices.Equal(got, []string{"kite"}) {
		t.Errorf("with corpus: got %q, want [kite]", got)
	}
	if want := "extractive(summary=3,keywords=1,phrase=3,idf=corpus/4)"; fitted.Name() != want {
		t.Errorf("Name = %q, want %q", fitted.Name(), want)
	}
}

func TestExtractErrors(t *testing.T) {
	e := NewExtractive(ExtractOptions{})
	_, err := e.Extract(context.Background(), "summ", "text")
	want := `offline: extract: unknown kind "summ" (known: summary, keywords, facts)`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Extract(ctx, llm.ExtractFacts, "text"); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: err = %v", err)
	}
	if e.Name() != "extractive(summary=3,keywords=10,phrase=3,idf=text)" {
		t.Errorf("Name = %q", e.Name())
	}
}

func TestKeywordPhraseLength(t *testing.T) {
	e := NewExtractive(ExtractOptions{PhraseWords: 2, Keywords: 5})
	got, _ := e.Extract(context.Background(), llm.ExtractKeywords, "Huge red wooden sailing boats")
	for _, k := range got {
		if n := len(strings.Fields(k)); n > 2 {
			t.Errorf("keyphrase %q has %d words, want ≤ 2", k, n)
		}
	}
	if !slices.Equal(got, []string{"huge red", "wooden sailing", "boats"}) {
		t.Errorf("got %q", got)
	}
}
