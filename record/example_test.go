package record_test

import (
	"fmt"

	"github.com/memlab/memlab/record"
)

// Grid lists the points of a parameter grid, the first axis slowest.
func ExampleGrid() {
	k, _ := record.ParseAxis("k=5,10")
	sys, _ := record.ParseAxis("system=bm25,oracle")
	axes := []record.Axis{k, sys}
	points, _ := record.Grid(axes)
	for _, p := range points {
		fmt.Println(record.PointName(axes, p))
	}
	// Output:
	// k=5,system=bm25
	// k=5,system=oracle
	// k=10,system=bm25
	// k=10,system=oracle
}
