//go:build openblas

package retrieval

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/netlib/blas/netlib"
)

// Built with -tags openblas (and CGO_LDFLAGS=-lopenblas, Debian's
// libopenblas-dev installed), the vector store's products run on OpenBLAS
// through gonum's netlib binding instead of gonum's pure-Go BLAS.
func init() { blas32.Use(netlib.Implementation{}) }
