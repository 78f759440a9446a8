package offline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// rankTol is the relative size below which a singular value counts as zero.
// Singular values come from the eigenvalues of the small Gram matrix BBᵀ, so
// their absolute accuracy is about sqrt(eps)·σ₁ ≈ 1.5e-8·σ₁; 1e-6 keeps a
// margin above that noise.
const rankTol = 1e-6

// rsvd is a truncated SVD A ≈ U Σ Vᵀ: the k largest singular values and the
// right singular vectors.
type rsvd struct {
	k     int
	sigma []float64 // k values, descending, all > rankTol·σ₁
	v     []float64 // a.cols×k, row-major: row j is term j's coordinates
}

// randomizedSVD computes the k leading singular triplets of a with the
// randomized range finder of Halko, Martinsson and Tropp (2011, algorithms
// 4.4 and 5.1): a Gaussian test matrix Ω with k+oversample columns drawn from
// a PCG seeded with seed, Y = AΩ, then power iterations Y = A(AᵀQ)
// re-orthonormalised by a Householder QR after each one, and finally the
// SVD of the small (k+p)×(k+p) matrix BBᵀ with B = QᵀA. The result may hold
// fewer than k values when a has lower rank (values ≤ rankTol·σ₁ dropped).
//
// The Aᵀ side of each iteration is not orthonormalised: its condition
// number is at most σ₁/σₗ, harmless in float64, and skipping it avoids a QR
// of a terms×(k+p) matrix, the largest cost of the method.
func randomizedSVD(ctx context.Context, a *csr, k, oversample, power int, seed uint64) (*rsvd, error) {
	n, m := a.rows, a.cols
	l := min(k+oversample, n, m)
	k = min(k, l)
	if k <= 0 {
		panic(fmt.Sprintf("offline: randomizedSVD: k=%d for a %d×%d matrix", k, n, m))
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	omega := make([]float64, m*l)
	for i := range omega {
		omega[i] = rng.NormFloat64()
	}
	y := make([]float64, n*l)
	if err := a.mulDense(ctx, omega, l, y); err != nil {
		return nil, err
	}
	z := omega // m×l, reused
	var ws qrWork
	ws.orthonormalize(y, n, l)
	for it := 0; it < power; it++ {
		if err := a.mulTDense(ctx, y, l, z); err != nil {
			return nil, err
		}
		if err := a.mulDense(ctx, z, l, y); err != nil {
			return nil, err
		}
		ws.orthonormalize(y, n, l)
	}
	// Q = y (n×l). G = QᵀA AᵀQ = Qᵀ(A(AᵀQ)).
	if err := a.mulTDense(ctx, y, l, z); err != nil {
		return nil, err
	}
	az := make([]float64, n*l)
	if err := a.mulDense(ctx, z, l, az); err != nil {
		return nil, err
	}
	q := blas64.General{Rows: n, Cols: l, Stride: l, Data: y}
	g := blas64.General{Rows: l, Cols: l, Stride: l, Data: make([]float64, l*l)}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, q, blas64.General{Rows: n, Cols: l, Stride: l, Data: az}, 0, g)
	for i := 0; i < l; i++ { // symmetrise rounding
		for j := i + 1; j < l; j++ {
			s := (g.Data[i*l+j] + g.Data[j*l+i]) / 2
			g.Data[i*l+j], g.Data[j*l+i] = s, s
		}
	}
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(l, l, g.Data), mat.SVDThin) {
		return nil, fmt.Errorf("offline: randomized svd: the SVD of the %d×%d Gram matrix did not converge", l, l)
	}
	lambda := svd.Values(nil)
	var ub mat.Dense
	svd.UTo(&ub)
	sigma := make([]float64, 0, k)
	for i := 0; i < k; i++ {
		s := math.Sqrt(max(lambda[i], 0))
		if i > 0 && s <= rankTol*sigma[0] || s == 0 {
			break
		}
		sigma = append(sigma, s)
	}
	k = len(sigma)
	if k == 0 {
		return nil, fmt.Errorf("offline: randomized svd: the %d×%d matrix is zero", n, m)
	}
	// U = Q·Ub_k (n×k), then V = AᵀU Σ⁻¹ (m×k).
	ubk := blas64.General{Rows: l, Cols: k, Stride: l, Data: ub.RawMatrix().Data}
	u := blas64.General{Rows: n, Cols: k, Stride: k, Data: az[:n*k]}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, q, ubk, 0, u)
	for i := 0; i < n; i++ {
		row := u.Data[i*k : (i+1)*k]
		for j := range row {
			row[j] /= sigma[j]
		}
	}
	v := z[:m*k]
	if err := a.mulTDense(ctx, u.Data, k, v); err != nil {
		return nil, err
	}
	return &rsvd{k: k, sigma: sigma, v: v}, nil
}

// qrWork holds the scratch space of repeated thin QR factorisations.
type qrWork struct {
	tau, work []float64
}

// orthonormalize replaces the rows×cols row-major matrix y (rows ≥ cols) by
// the Q factor of its thin Householder QR factorisation.
func (w *qrWork) orthonormalize(y []float64, rows, cols int) {
	a := blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: y}
	if len(w.tau) < cols {
		w.tau = make([]float64, cols)
	}
	tau := w.tau[:cols]
	var q [1]float64
	lapack64.Geqrf(a, tau, q[:], -1)
	need := int(q[0])
	lapack64.Orgqr(a, tau, q[:], -1)
	need = max(need, int(q[0]), cols)
	if len(w.work) < need {
		w.work = make([]float64, need)
	}
	lapack64.Geqrf(a, tau, w.work, len(w.work))
	lapack64.Orgqr(a, tau, w.work, len(w.work))
}
