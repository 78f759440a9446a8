package record

import (
	"fmt"
	"strings"

	"github.com/memlab/memlab/retrieval"
)

// Result is the records of one configuration over a dataset's questions.
type Result struct {
	// ID is the run id (Spec.ID) and Spec what it was computed from.
	ID          string
	Spec        Spec
	Label       string
	Dataset     string
	Fingerprint string
	System      string
	Reader      string
	K           int
	Records     []Record
	// Meter is what the system spent during this run (model calls, tokens,
	// embedded texts at ingest and query), for systems that count it. For
	// a resumed run it is this session's spending; the store keeps the sum.
	Meter retrieval.Meter
	// Resumed is the number of records taken from the run store instead of
	// being computed again.
	Resumed int
	// Estimate is set, and Records empty, in a dry run (MEMLAB_DRY_RUN=1).
	Estimate *Estimate
}

// ShortName is a component name without its settings: "flat(bm25,k1=...)"
// -> "flat".
func ShortName(name string) string {
	if i := strings.IndexByte(name, '('); i > 0 {
		return name[:i]
	}
	return name
}

// DefaultLabel is the label of a run that was given none: the system's
// short name and k, "flat k=10".
func DefaultLabel(system string, k int) string {
	return fmt.Sprintf("%s k=%d", ShortName(system), k)
}
