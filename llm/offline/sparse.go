package offline

import "context"

// csr is a sparse matrix in compressed sparse row form: the non-zeros of row
// i are col[ptr[i]:ptr[i+1]] with values val[ptr[i]:ptr[i+1]].
type csr struct {
	rows, cols int
	ptr        []int
	col        []int32
	val        []float64
}

// ctxEvery is how many rows the sparse loops process between context checks.
const ctxEvery = 512

// mulDense sets out = A·D, where D is a.cols×l and out is a.rows×l, both
// dense row-major with stride l.
func (a *csr) mulDense(ctx context.Context, d []float64, l int, out []float64) error {
	clear(out[:a.rows*l])
	for i := 0; i < a.rows; i++ {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		o := out[i*l : (i+1)*l]
		for p := a.ptr[i]; p < a.ptr[i+1]; p++ {
			axpy(a.val[p], d[int(a.col[p])*l:int(a.col[p]+1)*l], o)
		}
	}
	return nil
}

// mulTDense sets out = Aᵀ·D, where D is a.rows×l and out is a.cols×l, both
// dense row-major with stride l.
func (a *csr) mulTDense(ctx context.Context, d []float64, l int, out []float64) error {
	clear(out[:a.cols*l])
	for i := 0; i < a.rows; i++ {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		row := d[i*l : (i+1)*l]
		for p := a.ptr[i]; p < a.ptr[i+1]; p++ {
			j := int(a.col[p])
			axpy(a.val[p], row, out[j*l:(j+1)*l])
		}
	}
	return nil
}

// axpy sets y += alpha·x; len(y) must be at least len(x).
func axpy(alpha float64, x, y []float64) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		y[i] += alpha * x[i]
		y[i+1] += alpha * x[i+1]
		y[i+2] += alpha * x[i+2]
		y[i+3] += alpha * x[i+3]
	}
	for ; i < len(x); i++ {
		y[i] += alpha * x[i]
	}
}
