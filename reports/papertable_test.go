package reports

import (
	"math"
	"strings"
	"testing"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/judge"
)

func TestWithPaper(t *testing.T) {
	tab := analysis.Table{Header: []string{"metric", "k", "LLaMA Flat", "4o-mini Flat"}, Align: []string{"l", "r", "r", "r"}}
	tab.AddRow([]string{"QA consistency", "10", "0.51", "0.70"})
	tab.AddRow([]string{"MRR", "10", "0.3", "0.4"})
	key := func(row []string, col string) (PaperQuery, bool) {
		b, s, _ := strings.Cut(col, " ")
		k := 10
		if row[1] != "10" {
			return PaperQuery{}, false
		}
		return PaperQuery{Paper: PaperCloneMem, Table: "4", K: k, Metric: row[0], Backbone: b, System: s}, true
	}
	out, note, err := WithPaper(tab, key, "LLaMA Flat", "4o-mini Flat")
	if err != nil {
		t.Fatal(err)
	}
	if h := strings.Join(out.Header, "|"); h != "metric|k|LLaMA Flat|LLaMA Flat (paper)|4o-mini Flat|4o-mini Flat (paper)" {
		t.Errorf("header %s", h)
	}
	if r := strings.Join(out.Rows[0], "|"); r != "QA consistency|10|0.51|0.4730|0.70|0.7187" {
		t.Errorf("row 0 %s", r)
	}
	if r := strings.Join(out.Rows[1], "|"); r != "MRR|10|0.3||0.4|" {
		t.Errorf("row 1 (no paper figure) %s", r)
	}
	if len(out.Align) != len(out.Header) || out.Align[3] != "r" || tab.Header[2] != "LLaMA Flat" || len(tab.Header) != 4 {
		t.Errorf("align %v, input header %v", out.Align, tab.Header)
	}
	if !strings.Contains(note, "CloneMem Table 4, LLaMA Flat: embedder not stated.") || strings.Count(note, "embedder not stated") != 2 ||
		strings.Contains(note, "KnowMe") {
		t.Errorf("note %q", note)
	}
	// One column: "paper"; an ambiguous key says so.
	one, _, err := WithPaper(tab, func(row []string, _ string) (PaperQuery, bool) {
		return PaperQuery{Table: "4", K: 10, Metric: row[0]}, true
	}, "LLaMA Flat")
	if err != nil || one.Header[3] != "paper" || one.Rows[0][3] != "ambiguous" {
		t.Errorf("one column: %v %v", one, err)
	}
	if _, _, err := WithPaper(tab, key, "LLaMA Mem0"); err == nil || !strings.Contains(err.Error(), `"LLaMA Mem0"`) {
		t.Errorf("missing column: %v", err)
	}
}

func iv(est, lo, hi float64, n int) analysis.Interval {
	return analysis.Interval{Estimate: est, Lo: lo, Hi: hi, Level: 0.95, N: n}
}

func TestPaperTableCloneMem(t *testing.T) {
	q := func(k int, metric, backbone, system string) PaperQuery {
		return PaperQuery{Paper: PaperCloneMem, Table: "4", K: k, Metric: metric, Backbone: backbone, System: system}
	}
	cells := []PaperCell{
		{Query: q(10, "QA consistency", "LLaMA", "Flat"), Ours: iv(1.5, 1.2, 1.8, 40), Failed: 2},
		{Query: q(10, "QA consistency", "4o-mini", "Flat"), Ours: iv(2.1, 1.8, 2.4, 42)},
		{Query: q(10, "choice accuracy", "LLaMA", "Flat"), Ours: iv(0.75, 0.6, 0.9, 42)},
		{Query: q(10, "memory recall", "LLaMA", "Flat"), Metric: judge.MetricEvidenceCoverage, Ours: iv(0.5, math.NaN(), math.NaN(), 42)},
	}
	tab, note, err := PaperTable(cells, PaperTableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := strings.Join(tab.Header, "|"); h != "k|metric|LLaMA|LLaMA (paper)|4o-mini|4o-mini (paper)" {
		t.Errorf("header %s", h)
	}
	want := [][]string{
		{"10", "QA consistency", "0.5000 [0.4000, 0.6000] (n=40, 2 failed)", "0.4730", "0.7000 [0.6000, 0.8000] (n=42)", "0.7187"},
		{"10", "choice accuracy", "75.00 [60.00, 90.00] (n=42)", "77.81", "", ""},
		{"10", "memory recall (ours: " + judge.MetricEvidenceCoverage + ")", "0.500 (n=42)", "0.4807", "", ""},
	}
	if len(tab.Rows) != len(want) {
		t.Fatalf("rows %q", tab.Rows)
	}
	for i := range want {
		if g, w := strings.Join(tab.Rows[i], "|"), strings.Join(want[i], "|"); g != w {
			t.Errorf("row %d:\n got %s\nwant %s", i, g, w)
		}
	}
	for _, s := range []string{"mean of the 0-3 score / 3, on 0-1", "in %", "no paper reports it", "95% bootstrap", "embedder not stated"} {
		if !strings.Contains(note, s) {
			t.Errorf("note lacks %q: %s", s, note)
		}
	}
	// Without the paper.
	tab, note, _ = PaperTable(cells, PaperTableOptions{NoPaper: true})
	if len(tab.Header) != 4 || strings.Contains(note, "embedder not stated") {
		t.Errorf("no paper: %v %q", tab.Header, note)
	}
	// Transposed on request: systems down, metrics across.
	tab, _, _ = PaperTable(cells, PaperTableOptions{Rows: []string{"backbone", "system"}})
	if h := strings.Join(tab.Header, "|"); h != "backbone|system|QA consistency|QA consistency (paper)|choice accuracy|choice accuracy (paper)|memory recall|memory recall (paper)" {
		t.Errorf("transposed header %s", h)
	}
	if _, _, err := PaperTable(append(cells, cells[0]), PaperTableOptions{}); err == nil || !strings.Contains(err.Error(), "cells 0 and 4") {
		t.Errorf("duplicate: %v", err)
	}
	if _, _, err := PaperTable(cells, PaperTableOptions{Rows: []string{"model"}}); err == nil || !strings.Contains(err.Error(), `"model"`) {
		t.Errorf("unknown field: %v", err)
	}
	if _, _, err := PaperTable(nil, PaperTableOptions{}); err == nil {
		t.Error("no cells: no error")
	}
}

func TestPaperTableKnowMe(t *testing.T) {
	q := func(system, task string) PaperQuery {
		return PaperQuery{Paper: PaperKnowMe, Table: "1", Part: "dataset 1", Metric: "judge score", Backbone: "Qwen3-32B", System: system, Task: task}
	}
	cells := []PaperCell{
		{Query: q("base", "T1"), Ours: iv(2.5, 2.0, 3.0, 10)},
		{Query: q("base", "T2"), Ours: iv(3.0, 2.5, 3.5, 10)},
		{Query: q("+ Mem0", "T1"), Ours: iv(3.0, 2.6, 3.4, 10)},
		{Query: q("+ MemOS", "T2"), Ours: iv(2.0, 1.5, 2.5, 10)},
	}
	tab, note, err := PaperTable(cells, PaperTableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := strings.Join(tab.Header, "|"); h != "part|backbone|system|T1|T1 (paper)|T2|T2 (paper)" {
		t.Errorf("header %s", h)
	}
	want := []string{
		"dataset 1|Qwen3-32B|base|50.0 [40.0, 60.0] (n=10)|58.1|60.0 [50.0, 70.0] (n=10)|64.2",
		"dataset 1|Qwen3-32B|+ Mem0|+10.0|+10.5||",
		"dataset 1|Qwen3-32B|+ MemOS|||-20.0|+9.7",
	}
	for i, w := range want {
		if g := strings.Join(tab.Rows[i], "|"); g != w {
			t.Errorf("row %d:\n got %s\nwant %s", i, g, w)
		}
	}
	if !strings.Contains(note, KnowMeTaskMappingNote) || !strings.Contains(note, KnowMeBaseNote) || !strings.Contains(note, "/ 5, in %") {
		t.Errorf("note %q", note)
	}
	// A "+" cell without our base shows our absolute value, saying so.
	tab, _, _ = PaperTable(cells[2:3], PaperTableOptions{})
	if got := tab.Rows[0][3]; got != "60.0 (abs.; no base)" {
		t.Errorf("no base: %q", got)
	}
}

func TestPaperCellOf(t *testing.T) {
	q := PaperQuery{Paper: PaperCloneMem, Table: "4", K: 10, Metric: "QA consistency", Backbone: "LLaMA", System: "Flat"}
	c, err := PaperCellOf(q, qaRecords(), "", PaperCellOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Scores 0,0,1,2,3,3,3,3: mean 15/8 on 0-3; the two failed verdicts
	// are counted apart, the failed record in neither.
	if c.Metric != judge.MetricQAConsistency || c.Ours.Estimate != 1.875 || c.Ours.N != 8 || c.Failed != 2 ||
		!(c.Ours.Lo < 1.875 && 1.875 < c.Ours.Hi) || c.Ours.Level != 0.95 {
		t.Errorf("cell %+v", c)
	}
	tab, _, err := PaperTable([]PaperCell{c}, PaperTableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Rows[0][2]; !strings.HasPrefix(got, "0.6250 [") || !strings.HasSuffix(got, "(n=8, 2 failed)") {
		t.Errorf("cell shown as %q", got)
	}
	cl, _ := PaperCellOf(q, qaRecords(), "", PaperCellOptions{Seed: 1, ClusterByPersona: true})
	if cl.Ours.Estimate != 1.875 || cl.Ours.Lo != 1.875 || cl.Ours.Hi != 1.875 {
		t.Errorf("one persona: the clustered interval is a point, got %+v", cl.Ours)
	}
	if _, err := PaperCellOf(PaperQuery{Metric: "choice accuracy"}, qaRecords(), "", PaperCellOptions{}); err == nil ||
		!strings.Contains(err.Error(), judge.MetricChoiceAccuracy) {
		t.Errorf("missing metric: %v", err)
	}
	if _, err := PaperCellOf(PaperQuery{Metric: "F1"}, qaRecords(), "", PaperCellOptions{}); err == nil ||
		!strings.Contains(err.Error(), `"F1"`) {
		t.Errorf("unknown label: %v", err)
	}
}
