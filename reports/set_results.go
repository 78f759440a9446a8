package reports

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// Results returns the runs of the points that ran (Point.Ran), in the
// points' order: the points that failed partway are among them with the
// records they completed (Failures names them). nil when s carries an
// error (see Err).
func (s *Set) Results() []*record.Result {
	if s.Err() != nil {
		return nil
	}
	var out []*record.Result
	for _, p := range s.Points {
		if p.Ran() {
			out = append(out, p.Result)
		}
	}
	return out
}

// String sums s up in a line, as a notebook prints it: "6 points over
// system (3) x k (2): 4 ran, 2 skipped, 0 failed", or the error s
// carries.
func (s *Set) String() string {
	if err := s.Err(); err != nil {
		return "set carrying an error: " + err.Error()
	}
	var axes []string
	for _, a := range s.Axes {
		axes = append(axes, fmt.Sprintf("%s (%d)", a.Name, len(a.Values)))
	}
	ran, skipped, failed := 0, 0, 0
	for _, p := range s.Points {
		switch {
		case p.Skipped != nil:
			skipped++
		case p.Err != nil:
			failed++
		}
		if p.Ran() {
			ran++
		}
	}
	over := ""
	if len(axes) > 0 {
		over = " over " + strings.Join(axes, " x ")
	}
	return fmt.Sprintf("%d points%s: %d ran, %d skipped, %d failed", len(s.Points), over, ran, skipped, failed)
}

// Skips says why points did not run: each distinct reason once, with the
// number of points it skipped and their labels, "skipped 6 points: needs
// an embedder model: configure an endpoint (...) (system=flat k=5, ...)",
// in the order the reasons are first met. A *catalog.NeedsModelError is
// one reason per model role, whatever component needs it, and any other
// error wrapping retrieval.ErrNeedsModel is that error's reason; Notes
// say what the grid left out of every point. nil when every
// point ran, or when s carries an error.
func (s *Set) Skips() []string {
	return s.grouped("skipped", func(p Point) error { return p.Skipped }, skipReason)
}

// Failures says which points failed and why, as Skips does: each
// distinct error once with its count and labels ("failed 1 point: ...").
// A failed point's run, when there is one, holds the records it
// completed; Results includes it.
func (s *Set) Failures() []string {
	return s.grouped("failed", func(p Point) error {
		if p.Skipped != nil {
			return nil
		}
		return p.Err
	}, func(err error) string { return err.Error() })
}

// grouped lists the distinct reasons of the points whose errOf is not nil.
func (s *Set) grouped(verb string, errOf func(Point) error, reason func(error) string) []string {
	if s.Err() != nil {
		return nil
	}
	var order []string
	labels := map[string][]string{}
	for i, p := range s.Points {
		err := errOf(p)
		if err == nil {
			continue
		}
		r := reason(err)
		if _, ok := labels[r]; !ok {
			order = append(order, r)
		}
		labels[r] = append(labels[r], s.labelOf(i))
	}
	if len(order) == 0 {
		return nil
	}
	out := make([]string, len(order))
	for i, r := range order {
		n := len(labels[r])
		noun := "points"
		if n == 1 {
			noun = "point"
		}
		out[i] = fmt.Sprintf("%s %d %s: %s (%s)", verb, n, noun, r, strings.Join(labels[r], ", "))
	}
	return out
}

// skipReason is the reason of a skip, shared by every point skipped for
// it: a missing model by its role, any other error by its text.
func skipReason(err error) string {
	var nm *catalog.NeedsModelError
	if errors.As(err, &nm) {
		return nm.Reason() // the role's, not the component's
	}
	if errors.Is(err, retrieval.ErrNeedsModel) {
		return retrieval.ErrNeedsModel.Error()
	}
	return err.Error()
}
