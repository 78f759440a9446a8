package offline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// spectrumMatrix returns a rows×cols matrix U diag(sigma) Vᵀ with random
// orthonormal U and V drawn from seed.
func spectrumMatrix(rows, cols int, sigma []float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	r := len(sigma)
	gauss := func(n, m int) []float64 {
		x := make([]float64, n*m)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		var w qrWork
		w.orthonormalize(x, n, m)
		return x
	}
	u, v := gauss(rows, r), gauss(cols, r)
	a := make([]float64, rows*cols)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			var s float64
			for c := 0; c < r; c++ {
				s += u[i*r+c] * sigma[c] * v[j*r+c]
			}
			a[i*cols+j] = s
		}
	}
	return a
}

func TestRandomizedSVDMatchesExact(t *testing.T) {
	geometric := func(n int, ratio float64) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = 10 * math.Pow(ratio, float64(i))
		}
		return s
	}
	gaussian := func(rows, cols int) []float64 {
		rng := rand.New(rand.NewPCG(7, 7))
		a := make([]float64, rows*cols)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		return a
	}
	tests := []struct {
		name           string
		rows, cols     int
		a              []float64
		k, over, power int
		wantK          int
		tol            float64 // on |σ - σ_exact| / σ_exact
	}{
		// rank 4 ≤ k+p: the range finder captures the whole range, so the
		// values are exact up to rounding (and the Gram step's sqrt(eps)).
		{"rank 4, k=4", 12, 20, spectrumMatrix(12, 20, []float64{5, 3, 2, 0.5}, 1), 4, 3, 0, 4, 1e-9},
		// rank 4 but k=6 asked: the zero singular values are dropped.
		{"rank 4, k=6 reduced", 12, 20, spectrumMatrix(12, 20, []float64{5, 3, 2, 0.5}, 2), 6, 3, 1, 4, 1e-9},
		// full rank, geometric decay 0.7: σ_{k+p}/σ_k = 0.7^10 ≈ 0.03, and two
		// power iterations raise that to the 5th power; 1e-6 is a wide margin.
		{"decay 0.7, k=5", 30, 40, spectrumMatrix(30, 40, geometric(30, 0.7), 3), 5, 10, 2, 5, 1e-6},
		// k+p ≥ min(rows, cols): exact.
		{"gaussian 10×8, k=5", 10, 8, gaussian(10, 8), 5, 10, 0, 5, 1e-9},
		// flat spectrum, k+p < min: only approximate; 2 power iterations
		// give the leading values within 5 %.
		{"gaussian 40×60, k=3", 40, 60, gaussian(40, 60), 3, 10, 2, 3, 0.05},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var exact mat.SVD
			if !exact.Factorize(mat.NewDense(tt.rows, tt.cols, tt.a), mat.SVDNone) {
				t.Fatal("exact SVD failed")
			}
			want := exact.Values(nil)
			got, err := randomizedSVD(context.Background(), denseCSR(tt.rows, tt.cols, tt.a), tt.k, tt.over, tt.power, 42)
			if err != nil {
				t.Fatal(err)
			}
			if got.k != tt.wantK || len(got.sigma) != tt.wantK {
				t.Fatalf("k = %d (%d values), want %d", got.k, len(got.sigma), tt.wantK)
			}
			for i, s := range got.sigma {
				if rel := math.Abs(s-want[i]) / want[i]; rel > tt.tol {
					t.Errorf("σ%d = %.12g, exact %.12g: relative error %.3g > %g", i, s, want[i], rel, tt.tol)
				}
			}
			// V has orthonormal columns and ‖A vᵢ‖ = σᵢ.
			k, m := got.k, tt.cols
			for c := 0; c < k; c++ {
				for d := c; d < k; d++ {
					var dot float64
					for j := 0; j < m; j++ {
						dot += got.v[j*k+c] * got.v[j*k+d]
					}
					want := 0.0
					if c == d {
						want = 1
					}
					if math.Abs(dot-want) > math.Max(tt.tol, 1e-8)*10 {
						t.Errorf("v%d·v%d = %g, want %g", c, d, dot, want)
					}
				}
				var norm float64
				for i := 0; i < tt.rows; i++ {
					var s float64
					for j := 0; j < m; j++ {
						s += tt.a[i*m+j] * got.v[j*k+c]
					}
					norm += s * s
				}
				if rel := math.Abs(math.Sqrt(norm)-got.sigma[c]) / got.sigma[c]; rel > math.Max(tt.tol, 1e-8)*10 {
					t.Errorf("‖A v%d‖ = %g, σ = %g", c, math.Sqrt(norm), got.sigma[c])
				}
			}
		})
	}
}

func TestRandomizedSVDZeroMatrix(t *testing.T) {
	_, err := randomizedSVD(context.Background(), denseCSR(3, 3, make([]float64, 9)), 2, 1, 0, 1)
	if err == nil {
		t.Fatal("want an error for a zero matrix")
	}
}

func TestRandomizedSVDCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := randomizedSVD(ctx, denseCSR(2, 2, []float64{1, 0, 0, 1}), 1, 1, 1, 1)
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// denseCSR builds a csr from a dense row-major matrix (tests and tiny inputs).
func denseCSR(rows, cols int, data []float64) *csr {
	if len(data) != rows*cols {
		panic(fmt.Sprintf("offline: denseCSR: %d values for a %d×%d matrix", len(data), rows, cols))
	}
	a := &csr{rows: rows, cols: cols, ptr: make([]int, 1, rows+1)}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if v := data[i*cols+j]; v != 0 {
				a.col = append(a.col, int32(j))
				a.val = append(a.val, v)
			}
		}
		a.ptr = append(a.ptr, len(a.col))
	}
	return a
}
