package analysis

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// CohenKappa returns Cohen's kappa, the chance-corrected agreement of two
// raters who labelled the same items (a[i] and b[i] are the labels of item
// i):
//
//	κ   = (p_o − p_e) / (1 − p_e)
//	p_o = #{i : a[i] = b[i]} / n
//	p_e = Σ_k (n_a(k) / n) · (n_b(k) / n)
//
// with n_a(k), n_b(k) the number of items each rater gave label k; the
// labels are those either rater used. κ is 1 for perfect agreement, 0 for
// chance agreement and negative below it. See
// https://en.wikipedia.org/wiki/Cohen%27s_kappa; it equals
// sklearn.metrics.cohen_kappa_score with default arguments.
//
// An error is returned when the slices differ in length or are empty, and
// when κ is undefined (p_e = 1: both raters used one and the same label);
// κ is then NaN.
func CohenKappa(a, b []int) (float64, error) {
	if err := checkPairs("cohen kappa", a, b); err != nil {
		return math.NaN(), err
	}
	n := float64(len(a))
	na, nb := map[int]float64{}, map[int]float64{}
	agree := 0.0
	for i := range a {
		na[a[i]]++
		nb[b[i]]++
		if a[i] == b[i] {
			agree++
		}
	}
	po := agree / n
	pe := 0.0
	for k, ca := range na {
		pe += ca / n * nb[k] / n
	}
	if pe == 1 {
		return math.NaN(), fmt.Errorf("analysis: cohen kappa: undefined, both raters gave every item label %d", a[0])
	}
	return (po - pe) / (1 - pe), nil
}

// QuadraticWeightedKappa returns the quadratic-weighted kappa of two raters
// on the ordinal scale min..max (K = max − min + 1 categories), which
// counts a disagreement by the square of its distance:
//
//	w_ij = (i − j)² / (K − 1)²
//	O    = Confusion(a, b, min, max)            observed counts
//	E_ij = (Σ_j' O_ij') · (Σ_i' O_i'j) / n      counts expected by chance
//	κ_w  = 1 − Σ_ij w_ij·O_ij / Σ_ij w_ij·E_ij
//
// It equals sklearn.metrics.cohen_kappa_score(a, b, weights="quadratic")
// when every category of min..max is used; with K = 2 it equals CohenKappa.
// See https://en.wikipedia.org/wiki/Cohen%27s_kappa#Weighted_kappa.
//
// An error is returned when the slices differ in length or are empty, when
// max <= min, when a label lies outside [min, max], and when κ_w is
// undefined (Σ w·E = 0: both raters used one and the same label); κ_w is
// then NaN.
func QuadraticWeightedKappa(a, b []int, min, max int) (float64, error) {
	if err := checkPairs("quadratic weighted kappa", a, b); err != nil {
		return math.NaN(), err
	}
	if max <= min {
		return math.NaN(), fmt.Errorf("analysis: quadratic weighted kappa: scale [%d, %d] needs at least two labels", min, max)
	}
	for i := range a {
		for _, x := range []int{a[i], b[i]} {
			if x < min || x > max {
				return math.NaN(), fmt.Errorf("analysis: quadratic weighted kappa: item %d: label %d outside [%d, %d]", i, x, min, max)
			}
		}
	}
	o := Confusion(a, b, min, max)
	k := max - min + 1
	rows, cols := make([]float64, k), make([]float64, k)
	for i := range o {
		for j, c := range o[i] {
			rows[i] += float64(c)
			cols[j] += float64(c)
		}
	}
	n := float64(len(a))
	den := float64((k - 1) * (k - 1))
	var obs, exp float64
	for i := range o {
		for j := range o[i] {
			w := float64((i-j)*(i-j)) / den
			obs += w * float64(o[i][j])
			exp += w * rows[i] * cols[j] / n
		}
	}
	if exp == 0 {
		return math.NaN(), fmt.Errorf("analysis: quadratic weighted kappa: undefined, both raters gave every item label %d", a[0])
	}
	return 1 - obs/exp, nil
}

// Confusion returns the k×k contingency table of two raters on the scale
// min..max (k = max − min + 1): entry [i][j] counts the items a labelled
// min+i and b labelled min+j. Pairs with a label outside [min, max] are not
// counted (the table's total is then below len(a)).
//
// It panics if len(a) != len(b) or max < min.
func Confusion(a, b []int, min, max int) [][]int {
	if len(a) != len(b) {
		panic("analysis: confusion: slice length mismatch")
	}
	if max < min {
		panic("analysis: confusion: max < min")
	}
	k := max - min + 1
	m := make([][]int, k)
	for i := range m {
		m[i] = make([]int, k)
	}
	for i := range a {
		x, y := a[i]-min, b[i]-min
		if x < 0 || x >= k || y < 0 || y >= k {
			continue
		}
		m[x][y]++
	}
	return m
}

func checkPairs(op string, a, b []int) error {
	if len(a) != len(b) {
		return fmt.Errorf("analysis: %s: %d labels from the first rater, %d from the second", op, len(a), len(b))
	}
	if len(a) == 0 {
		return fmt.Errorf("analysis: %s: no items", op)
	}
	return nil
}

// ReadLabelsCSV reads "id,label" rows (e.g. human labels of judged items)
// into a map from id to integer label. A first row whose label is not an
// integer is taken as a header and skipped; columns after the second are
// ignored. Errors name the line: fewer than two columns, an empty id, a
// label that is not an integer, an id given twice.
func ReadLabelsCSV(r io.Reader) (map[string]int, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	out := map[string]int{}
	lineOf := map[string]int{}
	for row := 0; ; row++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("analysis: read labels csv: %w", err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) < 2 {
			return nil, fmt.Errorf("analysis: read labels csv: line %d: want id,label, got %d column(s)", line, len(rec))
		}
		id, lab := strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1])
		v, err := strconv.Atoi(lab)
		if err != nil {
			if row == 0 {
				continue // header
			}
			return nil, fmt.Errorf("analysis: read labels csv: line %d: label %q of id %q is not an integer", line, lab, id)
		}
		if id == "" {
			return nil, fmt.Errorf("analysis: read labels csv: line %d: empty id", line)
		}
		if prev, dup := lineOf[id]; dup {
			return nil, fmt.Errorf("analysis: read labels csv: line %d: id %q already labelled at line %d", line, id, prev)
		}
		lineOf[id] = line
		out[id] = v
	}
	return out, nil
}

// PairLabels joins two label maps on their common ids, in sorted id order,
// ready for CohenKappa or QuadraticWeightedKappa: a[i] and b[i] are the two
// labels of ids[i]. Ids in only one map are left out; count them with
// len(x) − len(ids).
func PairLabels(x, y map[string]int) (ids []string, a, b []int) {
	for id := range x {
		if _, ok := y[id]; ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		a = append(a, x[id])
		b = append(b, y[id])
	}
	return ids, a, b
}
