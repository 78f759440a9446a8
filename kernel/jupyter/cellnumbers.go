package jupyter

import "github.com/memlab/memlab/kernel"

// cellNumbers maps the session's own cell numbers (kernel.CellResult.Count,
// the "cell N" of its errors) to the kernel's execution counts (In [n]).
// They differ: the kernel counts only the cells it stores in history (not
// silent ones, not empty ones), and a worker session restarted after a
// crash counts from 1 again while In [n] goes on. Only the executor
// goroutine uses it.
type cellNumbers struct {
	last int         // the session's number of the last cell run
	in   map[int]int // the session's number -> execution count
}

// add records that the session ran its cell session as execution count n.
// A number not above the last one means a fresh session (a restarted
// worker): the numbers of the old one are forgotten.
func (c *cellNumbers) add(session, n int) {
	if c.in == nil || session <= c.last {
		c.in = map[int]int{}
	}
	c.last = session
	c.in[session] = n
}

// renumber returns the error of a cell with the cells it names in
// execution counts (see kernel.RenumberCells).
func (c *cellNumbers) renumber(err error) error {
	return kernel.RenumberCells(err, func(cell int) (int, bool) {
		n, ok := c.in[cell]
		return n, ok
	})
}
