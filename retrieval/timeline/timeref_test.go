package timeline

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/retrieval"
)

func fmtRefs(ws []Window) string {
	var out []string
	for _, w := range ws {
		if w.Kind != RefSpan {
			out = append(out, w.Kind+"("+w.Text+")")
			continue
		}
		out = append(out, fmt.Sprintf("%s..%s(%s)", w.Start.Format("2006-01-02"), w.End.Format("2006-01-02"), w.Text))
	}
	return strings.Join(out, " ")
}

func TestTimeRefs(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse("2006-01-02", s)
		if err != nil {
			t.Fatal(err)
		}
		return v.Add(12 * time.Hour)
	}
	for _, tc := range []struct {
		text, asked, want string
	}{
		{"Where's your blood pressure now compared with last summer?", "2024-01-20",
			"now(now) 2023-06-01..2023-09-01(last summer)"},
		{"Which got to you more this autumn, the diagnosis or Jo?", "2023-12-10", "2023-09-01..2023-12-01(this autumn)"},
		{"How did last summer go?", "2023-07-10", "2022-06-01..2022-09-01(last summer)"},
		{"How much faster are you at parkrun now than at your first one?", "2024-03-30", "now(now) first(your first one)"},
		{"Whatever happened with the cello, from start to finish?", "2023-12-22", "first(from start to finish)"},
		{"What did you do in March?", "2024-02-10", "2023-03-01..2023-04-01(in March)"},
		{"What did you do in March?", "2024-03-10", "2024-03-01..2024-04-01(in March)"},
		{"What happened last year and last month?", "2024-01-20", "2023-01-01..2024-01-01(last year) 2023-12-01..2024-01-01(last month)"},
		{"How has your view changed over the past year?", "2024-01-20", "2023-01-20..2024-01-20(over the past year)"},
		{"What did you eat two weeks ago?", "2024-01-20", "2024-01-03..2024-01-10(two weeks ago)"},
		{"On August 15, 1969, which bus did they take?", "", "1969-08-15..1969-08-16(August 15, 1969)"},
		{"On the evening of July 23, 1975, what did my father buy?", "", "1975-07-23..1975-07-24(July 23, 1975)"},
		{"In August 1969, what brand were the boxes?", "", "1969-08-01..1969-09-01(August 1969)"},
		{"In 1998, the narrator reflects on the winter of 1982.", "", "1998-01-01..1999-01-01(1998) 1982-01-01..1982-03-01(the winter of 1982) 1982-12-01..1983-01-01(the winter of 1982)"},
		{"According to the record from 5 December 1984, how long did it take?", "", "1984-12-05..1984-12-06(5 December 1984)"},
		{"What did you do last summer?", "", ""}, // relative: needs asked
		{"May I ask how you are?", "2024-01-20", ""},
		{"你现在对大小周的看法，跟去年比有什么不一样？", "2024-05-20", "now(现在) 2023-01-01..2024-01-01(去年)"},
		{"跟刚开始上游泳课比，你现在游得怎么样？", "2023-12-20", "first(刚开始) now(现在)"},
		{"去年夏天你在做什么？", "2024-05-20", "2023-06-01..2023-09-01(去年夏天)"},
		{"上个月和三个月前比呢？", "2024-05-20", "2024-04-01..2024-05-01(上个月) 2024-02-05..2024-03-06(三个月前)"},
		{"2023年7月16日那天发生了什么？", "", "2023-07-16..2023-07-17(2023年7月16日)"},
		{"七月的时候你怎么想？", "2024-05-20", "2023-07-01..2023-08-01(七月)"},
		{"当初为什么辞职？", "2024-05-20", "first(当初)"},
	} {
		var asked time.Time
		if tc.asked != "" {
			asked = at(tc.asked)
		}
		if got := fmtRefs(TimeRefs(tc.text, asked)); got != tc.want {
			t.Errorf("TimeRefs(%q, %s) = %q, want %q", tc.text, tc.asked, got, tc.want)
		}
	}
	w := TimeRefs("last summer", at("2024-01-20"))[0]
	if !w.Contains(at("2023-07-08")) || w.Contains(at("2023-09-01")) || w.Contains(time.Time{}) {
		t.Errorf("Contains is wrong for %+v", w)
	}
}

// TestWindowSearch: a trace dated in the window a question names ranks
// first among lexical ties; a comparison gets the best trace of its
// earlier window; nothing after the asked-at time is returned.
func TestWindowSearch(t *testing.T) {
	ctx := context.Background()
	var traces []datasets.Trace
	for i := 0; i < 12; i++ {
		traces = append(traces, datasets.Trace{ID: fmt.Sprintf("d%d", i), Time: day(i * 30),
			Text: fmt.Sprintf("Dinner note %d: pasta for dinner again, then a walk.", i)})
	}
	traces = append(traces, datasets.Trace{ID: "late", Time: day(400), Text: "Dinner: pasta for dinner, pasta, pasta."})
	m := newMem(t, Config{NoStateHit: true})
	if err := m.Ingest(ctx, "p", traces); err != nil {
		t.Fatal(err)
	}
	// day(120) is 30 April 2024
	q := datasets.Question{ID: "q", CorpusID: "p", Text: "What did I have for dinner on April 30, 2024?", AskedAt: day(365)}
	hits, err := m.Search(ctx, q, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].UnitID != "d4" {
		t.Errorf("dated question: hits %v, want d4 first", retrieval.TraceRanking(hits))
	}
	off := newMem(t, Config{WindowBoost: -1, NoStateHit: true})
	if err := off.Ingest(ctx, "p", traces); err != nil {
		t.Fatal(err)
	}
	if h, _ := off.Search(ctx, q, 1); len(h) != 1 || h[0].UnitID == "d4" {
		t.Errorf("without time references: hits %v, want a lexical tie broken by time order (not d4)", retrieval.TraceRanking(h))
	}
	// asked 15 Dec 2024: last summer is June-August 2024 (d6 on 29 June, d7 on 29 July, d8 on 28 August)
	cmp := datasets.Question{ID: "c", CorpusID: "p", Task: "comparison", Text: "How is dinner now compared with last summer?", AskedAt: day(349)}
	hits, err = m.Search(ctx, cmp, 3)
	if err != nil {
		t.Fatal(err)
	}
	ids := strings.Join(retrieval.TraceRanking(hits), " ")
	if !strings.Contains(ids, "d6") && !strings.Contains(ids, "d7") && !strings.Contains(ids, "d8") {
		t.Errorf("comparison hits %q: want a trace of last summer", ids)
	}
	for _, h := range hits {
		if h.Time.After(cmp.AskedAt) {
			t.Errorf("hit %s of %s after the question (%s)", h.UnitID, h.Time, cmp.AskedAt)
		}
	}
}

func TestQueryTermsAndConfig(t *testing.T) {
	m := newMem(t, Config{})
	toks, ws := m.queryTerms("Where's your blood pressure now?")
	var got []string
	for i, tk := range toks {
		got = append(got, fmt.Sprintf("%s:%g", tk, ws[i]))
	}
	if s := strings.Join(got, " "); s != "where's:0.5 your:0.5 blood:1 pressure:1 now:0.5" {
		t.Errorf("query terms %q", s)
	}
	drop := newMem(t, Config{FunctionWeight: -1})
	if toks, _ := drop.queryTerms("你现在怎么样"); strings.Join(toks, " ") != "现在" {
		t.Errorf("Chinese terms without function words: %v", toks)
	}
	if toks, ws := drop.queryTerms("How are you?"); len(toks) != 3 || ws[0] != 1 {
		t.Errorf("all-function question: %v %v, want every token at weight 1", toks, ws)
	}
	for _, bad := range []Config{{FunctionWeight: 2}, {WindowBoost: 1000}} {
		if _, err := New(bad, nil); err == nil {
			t.Errorf("config %+v: no error", bad)
		}
	}
	if n := m.Name(); !strings.Contains(n, "fn=0.5") || !strings.Contains(n, "window=0.5") {
		t.Errorf("name %s", n)
	}
	if n := newMem(t, Config{WindowBoost: -3}).Name(); !strings.Contains(n, "window=-1") {
		t.Errorf("name %s", n)
	}
}
