package analysis

import (
	"math"
	"testing"
)

func TestNewROC(t *testing.T) {
	// 3 positives, 4 negatives: 0.9 beats 4, 0.5 beats 2 and ties 1, 0.2
	// beats 2: AUC = (8 + 0.5) / 12.
	scores := []float64{0.9, 0.5, 0.2, 0.8, 0.5, 0.1, 0.05, math.NaN()}
	labels := []bool{true, true, true, false, false, false, false, true}
	r, err := NewROC(scores, labels)
	if err != nil {
		t.Fatal(err)
	}
	if r.Positives != 3 || r.Negatives != 4 || r.Excluded != 1 {
		t.Fatalf("counts %+v", r)
	}
	if want := 8.5 / 12; math.Abs(r.AUC-want) > 1e-12 {
		t.Errorf("AUC = %v, want %v", r.AUC, want)
	}
	if r.FPR[0] != 0 || r.TPR[0] != 0 || r.FPR[len(r.FPR)-1] != 1 || r.TPR[len(r.TPR)-1] != 1 {
		t.Errorf("curve ends: FPR %v TPR %v", r.FPR, r.TPR)
	}
	if len(r.Thresholds) != 6 || r.Thresholds[0] != 0.9 || len(r.FPR) != 7 {
		t.Errorf("thresholds %v (FPR %v)", r.Thresholds, r.FPR)
	}
	// the Mann-Whitney count by sorting agrees
	if got := mannWhitneyAUC([]float64{0.9, 0.5, 0.2}, []float64{0.8, 0.5, 0.1, 0.05}); math.Abs(got-r.AUC) > 1e-12 {
		t.Errorf("mannWhitneyAUC = %v, want %v", got, r.AUC)
	}
	// perfect and reversed separation, one empty class
	if r, _ := NewROC([]float64{1, 2, 3}, []bool{false, true, true}); r.AUC != 1 {
		t.Errorf("separated AUC %v", r.AUC)
	}
	if r, _ := NewROC([]float64{1, 2, 3}, []bool{true, false, false}); r.AUC != 0 {
		t.Errorf("reversed AUC %v", r.AUC)
	}
	if r, _ := NewROC([]float64{1, 2}, []bool{true, true}); !math.IsNaN(r.AUC) {
		t.Errorf("one class AUC %v, want NaN", r.AUC)
	}
	if _, err := NewROC([]float64{1}, nil); err == nil {
		t.Error("different lengths: no error")
	}
}

func TestAUCInterval(t *testing.T) {
	scores := []float64{0.9, 0.7, 0.4, 0.65, 0.5, 0.3, 0.2, 0.1, 0.6, 0.35}
	labels := []bool{true, true, true, false, false, false, false, false, true, false}
	iv, err := AUCInterval(scores, labels, 0.95, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewROC(scores, labels)
	if iv.Estimate != r.AUC || !(iv.Lo <= iv.Estimate && iv.Estimate <= iv.Hi) || iv.Lo < 0 || iv.Hi > 1 || iv.N != 10 {
		t.Errorf("interval %+v around AUC %v", iv, r.AUC)
	}
	if iv.Hi-iv.Lo < 0.05 {
		t.Errorf("interval %+v is implausibly narrow for 4 positives", iv)
	}
	again, _ := AUCInterval(scores, labels, 0.95, 2000, 1)
	if again != iv {
		t.Errorf("same seed, another interval: %+v, %+v", again, iv)
	}
}

func TestDecisionAndYouden(t *testing.T) {
	scores := []float64{0.9, 0.5, 0.2, 0.8, 0.5, 0.1, 0.05}
	labels := []bool{true, true, true, false, false, false, false}
	c, err := ConfusionAt(scores, labels, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if c.TP != 2 || c.FP != 2 || c.FN != 1 || c.TN != 2 || c.Precision != 0.5 || math.Abs(c.Recall-2.0/3) > 1e-12 || c.FPR != 0.5 {
		t.Errorf("decision %+v", c)
	}
	th, j, err := YoudenThreshold(scores, labels)
	if err != nil {
		t.Fatal(err)
	}
	// t = 0.2: TPR 1, FPR 0.5 (J 0.5); t = 0.9: TPR 1/3, FPR 0 (J 1/3); t = 0.5: 2/3 - 1/2
	if th != 0.2 || math.Abs(j-0.5) > 1e-12 {
		t.Errorf("Youden threshold %v J %v, want 0.2 and 0.5", th, j)
	}
	if _, _, err := YoudenThreshold([]float64{1}, []bool{true}); err == nil {
		t.Error("one class: no error")
	}
}
