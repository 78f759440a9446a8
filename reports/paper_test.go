package reports

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/memlab/memlab/judge"
)

// paperResultsPath is the papers' published figures, relative to this
// package's directory.
const paperResultsPath = "../../shared/docs/paper-results.md"

// mdCell is one number of a markdown table of paper-results.md with the
// query its row and column give.
type mdCell struct {
	q    PaperQuery
	text string // as printed; "-" when the paper gives none
	line int
}

// parsePaperResults reads every number of the markdown tables of
// paper-results.md, keyed by the paper's labels of its row and column.
func parsePaperResults(t *testing.T, md string) []mdCell {
	t.Helper()
	lines := strings.Split(md, "\n")
	tableRe := regexp.MustCompile(`Table (\d+)`)
	split := func(l string) []string {
		cs := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
		for i := range cs {
			cs[i] = strings.TrimSpace(cs[i])
		}
		return cs
	}
	var out []mdCell
	paper, table := "", ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "## CloneMem"):
			paper = PaperCloneMem
		case strings.HasPrefix(l, "## KnowMe"):
			paper = PaperKnowMe
		}
		if m := tableRe.FindStringSubmatch(l); m != nil && (strings.HasPrefix(l, "## ") || strings.HasPrefix(l, "Table ")) {
			table = m[1]
		}
		if !strings.HasPrefix(l, "|") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "| ---") {
			continue
		}
		header := split(l)
		for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			row := split(lines[i])
			if len(row) != len(header) {
				t.Fatalf("%s line %d: %d cells, header has %d", paperResultsPath, i+1, len(row), len(header))
			}
			at := map[string]string{}
			for j, h := range header {
				at[h] = row[j]
			}
			for j, h := range header {
				switch h {
				case "k", "metric", "part", "backbone", "system":
					continue
				}
				q := PaperQuery{Paper: paper, Table: table}
				if k := at["k"]; k != "" {
					n, err := strconv.Atoi(k)
					if err != nil {
						t.Fatalf("%s line %d: k %q", paperResultsPath, i+1, k)
					}
					q.K = n
				}
				switch {
				case paper == PaperKnowMe:
					q.Part, q.Backbone, q.System, q.Task, q.Metric = at["part"], at["backbone"], at["system"], h, "judge score"
				case table == "3" || table == "4":
					q.Metric = at["metric"]
					q.Backbone, q.System, _ = strings.Cut(h, " ")
				case table == "5":
					q.Metric, q.K, q.System = at["metric"], 10, "Flat"
					b, e, _ := strings.Cut(h, " / ")
					q.Backbone, q.Embedder = b, e
				case table == "6":
					q.Metric, q.System, q.Backbone, q.Embedder, q.Unit = at["metric"], "Flat", "LLaMA", "Contriever", h
				default:
					t.Fatalf("%s line %d: a table of %s I do not know (%q)", paperResultsPath, i+1, paper, table)
				}
				out = append(out, mdCell{q: q, text: row[j], line: i + 1})
			}
		}
		i--
	}
	return out
}

// TestPaperDataMatchesPaperResults compares every number of
// paper-results.md's tables with the embedded data, both ways: each cell
// is found once with the same value, and the data holds nothing else.
func TestPaperDataMatchesPaperResults(t *testing.T) {
	md, err := os.ReadFile(paperResultsPath)
	if err != nil {
		t.Skipf("no %s (the shared docs are not checked out beside the project): %v", paperResultsPath, err)
	}
	cells := parsePaperResults(t, string(md))
	figures := 0
	perTable := map[string]int{}
	for _, c := range cells {
		e, err := PaperLookup(c.q)
		if c.text == "-" {
			if err == nil {
				t.Errorf("line %d: %s: the paper gives no figure, the data has %s", c.line, c.q, e.Text)
			}
			continue
		}
		figures++
		perTable[c.q.Paper+" "+c.q.Table]++
		if err != nil {
			t.Errorf("line %d: %v", c.line, err)
			continue
		}
		want, perr := strconv.ParseFloat(strings.TrimPrefix(c.text, "+"), 64)
		if perr != nil {
			t.Errorf("line %d: %s: %q is not a number", c.line, c.q, c.text)
			continue
		}
		if e.Value != want || e.Text != c.text {
			t.Errorf("line %d: %s: data has %s (%v), the paper %s", c.line, c.q, e.Text, e.Value, c.text)
		}
		if rel := strings.HasPrefix(c.text, "+") || (c.q.Paper == PaperKnowMe && c.q.System != "base"); rel != e.Relative {
			t.Errorf("line %d: %s: relative %v, want %v", c.line, c.q, e.Relative, rel)
		}
	}
	if n := len(PaperEntries()); n != figures {
		t.Errorf("the data holds %d figures, paper-results.md %d", n, figures)
	}
	// The tables paper-results.md gives, and their sizes: a table lost
	// by the parser would otherwise pass.
	for table, want := range map[string]int{"CloneMem 3": 36, "CloneMem 4": 96, "CloneMem 5": 28, "CloneMem 6": 38, "KnowMe-Bench 1": 224} {
		if perTable[table] != want {
			t.Errorf("%s: %d figures in paper-results.md, want %d", table, perTable[table], want)
		}
	}
}

func TestPaperLookup(t *testing.T) {
	q := PaperQuery{Paper: PaperCloneMem, Table: "4", K: 10, Metric: "QA consistency", Backbone: "LLaMA", System: "Flat"}
	if v, ok := PaperValue(q); !ok || v != 0.4730 {
		t.Errorf("PaperValue(%s) = %v, %v; want 0.4730", q, v, ok)
	}
	// Too loose: every backbone.
	loose := q
	loose.Backbone = ""
	if _, err := PaperLookup(loose); err == nil || !strings.Contains(err.Error(), "selects 2 figures") {
		t.Errorf("loose query: err = %v, want one naming 2 figures", err)
	}
	if _, ok := PaperValue(loose); ok {
		t.Error("PaperValue of an ambiguous query: ok")
	}
	none := q
	none.K = 7
	if _, err := PaperLookup(none); err == nil || !strings.Contains(err.Error(), "no published figure") {
		t.Errorf("k=7: err = %v", err)
	}
	// Table 6 has no memory scores for raw traces only.
	if _, ok := PaperValue(PaperQuery{Table: "6", K: 10, Metric: "memory recall", Unit: "w/o mem"}); ok {
		t.Error("Table 6 w/o mem memory recall: found a figure the paper does not give")
	}
	// KnowMe-Bench's "+" rows are changes from base.
	e, err := PaperLookup(PaperQuery{Paper: PaperKnowMe, Part: "all", Backbone: "Qwen3-32B", System: "+ Naive RAG", Task: "T1"})
	if err != nil {
		t.Fatal(err)
	}
	if !e.Relative || e.Value != 8.8 || math.Abs(e.Absolute-68.7) > 1e-9 {
		t.Errorf("+ Naive RAG T1: relative %v value %v absolute %v; want true 8.8 68.7", e.Relative, e.Value, e.Absolute)
	}
	b, _ := PaperLookup(PaperQuery{Paper: PaperKnowMe, Part: "dataset 2", Backbone: "GPT-5-mini", System: "base", Task: "T3"})
	if b.Relative || b.Absolute != 62.5 {
		t.Errorf("base: %+v", b)
	}
	// PaperEntries returns a copy.
	es := PaperEntries()
	es[0].Value = -1
	if PaperEntries()[0].Value == -1 {
		t.Error("PaperEntries shares its slice")
	}
}

func TestParsePaperCSVErrors(t *testing.T) {
	head := strings.Join(paperColumns, ",") + "\n"
	good := "CloneMem,4,,10,QA consistency,,Flat,LLaMA,,,0.4730,0-1,,\n"
	if es, err := parsePaperCSV(head + good); err != nil || len(es) != 1 || es[0].K != 10 {
		t.Fatalf("good line: %v %v", es, err)
	}
	for name, data := range map[string]string{
		"header":    "paper,table\n" + good,
		"value":     head + "CloneMem,4,,10,QA consistency,,Flat,LLaMA,,,0.47x,0-1,,\n",
		"k":         head + "CloneMem,4,,ten,QA consistency,,Flat,LLaMA,,,0.4730,0-1,,\n",
		"scale":     head + "CloneMem,4,,10,QA consistency,,Flat,LLaMA,,,0.4730,0-3,,\n",
		"metric":    head + "CloneMem,4,,10,QA consistancy,,Flat,LLaMA,,,0.4730,0-1,,\n",
		"twice":     head + good + good,
		"relative":  head + "KnowMe-Bench,1,all,,judge score,T1,+ Mem0,Qwen3-32B,,,+1.0,%,base,\n",
		"rel value": head + "CloneMem,4,,10,QA consistency,,Flat,LLaMA,,,0.4730,0-1,yes,\n",
	} {
		if _, err := parsePaperCSV(data); err == nil || !strings.Contains(err.Error(), "papers.csv") {
			t.Errorf("%s: err = %v, want one naming the file", name, err)
		}
	}
}

func TestPaperMetric(t *testing.T) {
	for label, metric := range map[string]string{
		"QA consistency": judge.MetricQAConsistency, "choice accuracy": judge.MetricChoiceAccuracy,
		"memory recall": judge.MetricMemoryRecall, "Recall-All-Any": "All-Any", "judge score": judge.MetricKnowMeScore,
	} {
		if m, ok := PaperMetric(label); !ok || m != metric {
			t.Errorf("PaperMetric(%q) = %q, %v; want %q", label, m, ok, metric)
		}
		if l, ok := PaperMetricLabel(metric); !ok || l != label {
			t.Errorf("PaperMetricLabel(%q) = %q, %v; want %q", metric, l, ok, label)
		}
	}
	if l, ok := PaperMetricLabel("any_any"); !ok || l != "Recall-Any-Any" {
		t.Errorf("any_any: %q %v", l, ok)
	}
	// A proxy is never given the judged metric's label.
	if l, ok := PaperMetricLabel(judge.MetricEvidenceCoverage); ok {
		t.Errorf("evidence coverage labelled %q", l)
	}
	for _, e := range PaperEntries() {
		m, _ := PaperMetric(e.Metric)
		if want := PaperScale(m).Percent; want != (e.Scale == "%") {
			t.Errorf("%s: data scale %s, PaperScale percent %v", e.PaperQuery, e.Scale, want)
		}
	}
}
