package analysis

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// wikiRaters is the 50-item yes(1)/no(0) example of
// https://en.wikipedia.org/wiki/Cohen%27s_kappa: both yes 20, A yes B no 5,
// A no B yes 10, both no 15. p_o = 35/50 = 0.7, p_e = 0.5·0.6 + 0.5·0.4 =
// 0.5, κ = 0.4 (the article's value).
func wikiRaters() (a, b []int) {
	add := func(n, x, y int) {
		for range n {
			a, b = append(a, x), append(b, y)
		}
	}
	add(20, 1, 1)
	add(5, 1, 0)
	add(10, 0, 1)
	add(15, 0, 0)
	return a, b
}

func TestCohenKappa(t *testing.T) {
	wa, wb := wikiRaters()
	tests := []struct {
		desc string
		a, b []int
		want float64
		err  string
	}{
		{"wikipedia yes/no example", wa, wb, 0.4, ""},
		// sklearn's cohen_kappa_score docstring example (negative, positive,
		// negative, neutral, positive vs ... negative) = 0.6875; by hand:
		// p_o = 4/5, p_e = (2·3 + 2·1 + 1·1)/25 = 9/25, κ = 0.44/0.64.
		{"sklearn docstring example", []int{0, 1, 0, 2, 1}, []int{0, 1, 0, 2, 0}, 0.6875, ""},
		{"perfect", []int{3, 1, 2}, []int{3, 1, 2}, 1, ""},
		// p_o = 0, p_e = 0.5·0.5·2 = 0.5: κ = −1.
		{"perfect disagreement", []int{0, 1}, []int{1, 0}, -1, ""},
		// p_o = 3/4; labels of a: 1×3, 0×1; of b: 1×4; p_e = 3/4: κ = 0.
		{"chance level", []int{1, 1, 1, 0}, []int{1, 1, 1, 1}, 0, ""},
		{"constant raters", []int{2, 2}, []int{2, 2}, math.NaN(), "undefined"},
		{"length mismatch", []int{1}, []int{1, 2}, math.NaN(), "1 labels from the first rater, 2 from the second"},
		{"empty", nil, nil, math.NaN(), "no items"},
	}
	for _, tc := range tests {
		got, err := CohenKappa(tc.a, tc.b)
		checkKappa(t, tc.desc, got, err, tc.want, tc.err)
	}
}

func TestQuadraticWeightedKappa(t *testing.T) {
	wa, wb := wikiRaters()
	tests := []struct {
		desc     string
		a, b     []int
		min, max int
		want     float64
		err      string
	}{
		// With two categories the weights are 0/1: equal to Cohen's kappa.
		{"two categories = cohen", wa, wb, 0, 1, 0.4, ""},
		// By hand: O has (0,0), (1,2), (2,2); w = (i−j)²/4; Σ w·O = 1/4.
		// Rows [1 1 1], columns [1 0 2], n = 3; Σ w·E = (2 + 0.75 + 1)/3 =
		// 1.25; κ_w = 1 − 0.25/1.25 = 0.8.
		{"hand 3x3", []int{0, 1, 2}, []int{0, 2, 2}, 0, 2, 0.8, ""},
		// The same, shifted to the scale 1..3.
		{"offset scale", []int{1, 2, 3}, []int{1, 3, 3}, 1, 3, 0.8, ""},
		// By hand on 0..5 (KnowMe scale): pairs (5,5) (4,5) (0,1) (3,3);
		// w = d²/25; Σ w·O = (1 + 1)/25 = 0.08. Rows: 0:1 3:1 4:1 5:1;
		// columns: 1:1 3:1 5:2; n = 4; Σ_ij r_i·c_j·d² by row:
		// r0: 1·1 + 9·1 + 25·2 = 60; r3: 4 + 0 + 8 = 12; r4: 9 + 1 + 2 = 12;
		// r5: 16 + 4 + 0 = 20; total 104; Σ w·E = 104/(25·4) = 1.04;
		// κ_w = 1 − 0.08/1.04 = 12/13.
		{"hand 0-5", []int{5, 4, 0, 3}, []int{5, 5, 1, 3}, 0, 5, 12.0 / 13, ""},
		{"perfect", []int{0, 3, 5}, []int{0, 3, 5}, 0, 5, 1, ""},
		{"label out of scale", []int{0, 6}, []int{0, 5}, 0, 5, math.NaN(), "item 1: label 6 outside [0, 5]"},
		{"one-label scale", []int{1}, []int{1}, 1, 1, math.NaN(), "at least two labels"},
		{"constant raters", []int{3, 3}, []int{3, 3}, 0, 5, math.NaN(), "undefined"},
		{"length mismatch", []int{1, 2}, []int{1}, 0, 5, math.NaN(), "2 labels from the first rater, 1 from the second"},
	}
	for _, tc := range tests {
		got, err := QuadraticWeightedKappa(tc.a, tc.b, tc.min, tc.max)
		checkKappa(t, tc.desc, got, err, tc.want, tc.err)
	}
}

func checkKappa(t *testing.T, desc string, got float64, err error, want float64, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) || !strings.HasPrefix(err.Error(), "analysis: ") {
			t.Errorf("%s: error %v, want one containing %q", desc, err, wantErr)
		}
		if !math.IsNaN(got) {
			t.Errorf("%s: value %v with an error, want NaN", desc, got)
		}
		return
	}
	if err != nil || math.Abs(got-want) > 1e-12 {
		t.Errorf("%s: got %v (err %v), want %v", desc, got, err, want)
	}
}

func TestConfusion(t *testing.T) {
	got := Confusion([]int{1, 2, 3, 3, 9}, []int{1, 3, 3, 1, 2}, 1, 3)
	want := [][]int{{1, 0, 0}, {0, 0, 1}, {1, 0, 1}} // the (9,2) pair is out of scale, not counted
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Confusion = %v, want %v", got, want)
	}
	for _, tc := range []struct {
		desc     string
		a, b     []int
		min, max int
	}{{"length mismatch", []int{1}, nil, 0, 1}, {"max < min", nil, nil, 2, 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.desc)
				}
			}()
			Confusion(tc.a, tc.b, tc.min, tc.max)
		}()
	}
}

func TestReadLabelsCSV(t *testing.T) {
	tests := []struct {
		desc string
		src  string
		want map[string]int
		err  string
	}{
		{"header and rows", "id,label\nq1,3\nq2, 0\n\"q,3\",5\n", map[string]int{"q1": 3, "q2": 0, "q,3": 5}, ""},
		{"no header, extra column", "a,1,note\nb,2,\n", map[string]int{"a": 1, "b": 2}, ""},
		{"blank lines", "a,1\n\nb,2\n", map[string]int{"a": 1, "b": 2}, ""},
		{"empty", "", map[string]int{}, ""},
		{"bad label", "id,label\nq1,3\nq2,high\n", nil, `line 3: label "high" of id "q2" is not an integer`},
		{"duplicate id", "q1,3\nq1,4\n", nil, `line 2: id "q1" already labelled at line 1`},
		{"one column", "q1,3\nq2\n", nil, "line 2: want id,label, got 1 column(s)"},
		{"empty id", "q1,3\n,4\n", nil, "line 2: empty id"},
	}
	for _, tc := range tests {
		got, err := ReadLabelsCSV(strings.NewReader(tc.src))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.desc, err, tc.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %v (err %v), want %v", tc.desc, got, err, tc.want)
		}
	}
}

func TestPairLabels(t *testing.T) {
	ids, a, b := PairLabels(map[string]int{"q2": 1, "q1": 3, "only-x": 0}, map[string]int{"q1": 2, "q2": 1, "only-y": 4})
	if fmt.Sprint(ids, a, b) != "[q1 q2] [3 1] [2 1]" {
		t.Errorf("PairLabels = %v %v %v", ids, a, b)
	}
}
