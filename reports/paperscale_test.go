package reports

import (
	"math"
	"strings"
	"testing"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/judge"
)

func TestPaperScale(t *testing.T) {
	for _, tc := range []struct {
		metric      string
		raw, paper  float64
		text, unit  string
		paperName   string
		describeHas string
	}{
		{judge.MetricQAConsistency, 1.419, 0.473, "0.4730", "0-1", PaperCloneMem, "/ 3, on 0-1"},
		{judge.MetricMemoryHelpfulness, 1.5, 0.75, "0.7500", "0-1", PaperCloneMem, "/ 2, on 0-1"},
		{judge.MetricMemoryRecall, 0.4807, 0.4807, "0.4807", "0-1", PaperCloneMem, "as it is"},
		{"All-Any", 0.1588, 0.1588, "0.1588", "0-1", PaperCloneMem, "as it is"},
		{"recall_flat", 0.2, 0.2, "0.2000", "0-1", PaperCloneMem, "as it is"},
		{judge.MetricChoiceAccuracy, 0.7781, 77.81, "77.81", "%", PaperCloneMem, "in %"},
		{judge.MetricKnowMeScore, 2.995, 59.9, "59.9", "%", PaperKnowMe, "/ 5, in %"},
		{judge.MetricEvidenceCoverage, 0.25, 0.25, "0.250", "raw 0-1", "", "no paper reports it"},
		{"MRR", 0.5, 0.5, "0.500", "raw 0-1", "", "raw"},
	} {
		s := PaperScale(tc.metric)
		if got := s.Apply(tc.raw); math.Abs(got-tc.paper) > 1e-9 {
			t.Errorf("%s: Apply(%v) = %v, want %v", tc.metric, tc.raw, got, tc.paper)
		}
		if got := s.Format(tc.raw); got != tc.text {
			t.Errorf("%s: Format = %q, want %q", tc.metric, got, tc.text)
		}
		if s.Unit() != tc.unit || s.Paper != tc.paperName {
			t.Errorf("%s: unit %q paper %q, want %q %q", tc.metric, s.Unit(), s.Paper, tc.unit, tc.paperName)
		}
		if d := s.Describe(); !strings.Contains(d, tc.describeHas) || !strings.HasPrefix(d, tc.metric+":") {
			t.Errorf("%s: Describe = %q, want it to contain %q", tc.metric, d, tc.describeHas)
		}
	}
	if !math.IsNaN(PaperScale(judge.MetricQAConsistency).Apply(math.NaN())) {
		t.Error("NaN not kept")
	}
}

func TestPaperScaleInterval(t *testing.T) {
	s := PaperScale(judge.MetricQAConsistency)
	iv := analysis.Interval{Estimate: 1.5, Lo: 1.2, Hi: 1.8, Level: 0.95, N: 40, Excluded: 2}
	p := s.ApplyInterval(iv)
	if p.Estimate != 0.5 || math.Abs(p.Lo-0.4) > 1e-12 || math.Abs(p.Hi-0.6) > 1e-12 || p.N != 40 || p.Excluded != 2 || p.Level != 0.95 {
		t.Errorf("ApplyInterval = %+v", p)
	}
	if got := s.FormatInterval(iv); got != "0.5000 [0.4000, 0.6000]" {
		t.Errorf("FormatInterval = %q", got)
	}
	if got := s.FormatInterval(analysis.Interval{Estimate: 3, Lo: math.NaN(), Hi: math.NaN()}); got != "1.0000" {
		t.Errorf("no bounds: %q", got)
	}
	if got := s.FormatInterval(analysis.Interval{Estimate: math.NaN()}); got != "n/a" {
		t.Errorf("no value: %q", got)
	}
}

func TestScaleNote(t *testing.T) {
	n := ScaleNote(judge.MetricQAConsistency, judge.MetricChoiceAccuracy, judge.MetricQAConsistency)
	if strings.Count(n, judge.MetricQAConsistency) != 1 || !strings.Contains(n, judge.MetricChoiceAccuracy) || !strings.HasPrefix(n, "Scales as the papers report them: ") {
		t.Errorf("ScaleNote = %q", n)
	}
	if ScaleNote() != "" {
		t.Error("ScaleNote() not empty")
	}
}
