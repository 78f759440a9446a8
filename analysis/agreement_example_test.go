package analysis_test

import (
	"fmt"
	"strings"

	"github.com/memlab/memlab/analysis"
)

func ExampleQuadraticWeightedKappa() {
	judgeA, _ := analysis.ReadLabelsCSV(strings.NewReader("id,score\nq1,5\nq2,4\nq3,0\nq4,3\n"))
	human, _ := analysis.ReadLabelsCSV(strings.NewReader("q1,5\nq2,5\nq3,1\nq4,3\nq5,2\n"))
	ids, a, b := analysis.PairLabels(judgeA, human)
	k, _ := analysis.CohenKappa(a, b)
	qwk, _ := analysis.QuadraticWeightedKappa(a, b, 0, 5)
	fmt.Printf("%d items: kappa %.3f, quadratic-weighted %.3f\n", len(ids), k, qwk)
	// Output:
	// 4 items: kappa 0.385, quadratic-weighted 0.923
}
