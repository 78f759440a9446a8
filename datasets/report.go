package datasets

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report as text: the number of defects per kind, then,
// for each kind, up to maxPerKind defects with their file, JSON path and
// message, followed by "... and M more" when some are left out. A
// maxPerKind of 0 writes the counts only; a negative one writes every defect.
func (r Report) WriteText(w io.Writer, maxPerKind int) error {
	ew := &errWriter{w: w}
	if len(r.Defects) == 0 {
		ew.printf("defects: none\n")
		return ew.err
	}
	counts := r.Counts()
	kinds := r.Kinds()
	ew.printf("defects: %d\n", len(r.Defects))
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	for _, k := range kinds {
		fmt.Fprintf(tw, "  %s\t%d\n", k, counts[k])
	}
	tw.Flush()
	if maxPerKind == 0 {
		return ew.err
	}
	for _, k := range kinds {
		ew.printf("\n%s (%d):\n", k, counts[k])
		shown := 0
		for _, d := range r.Defects {
			if d.Kind != k {
				continue
			}
			if maxPerKind > 0 && shown == maxPerKind {
				break
			}
			shown++
			where := strings.TrimSpace(d.File + " " + d.Path)
			if where == "" {
				where = "(dataset)"
			}
			ew.printf("  %s: %s\n", where, d.Message)
		}
		if more := counts[k] - shown; more > 0 {
			ew.printf("  ... and %d more\n", more)
		}
	}
	return ew.err
}

// WriteValidation writes what `memlab datasets validate` prints: the
// dataset's identity and size (traces, questions per task), its timestamp
// defects (empty, unparseable, backwards), evidence references, unknown
// ones and those dated after their question, text fields holding numbers or
// lists, encoding problems (bytes that are not UTF-8, byte-order marks),
// dataset file names that are directories, records missing fields,
// questions without reference answer
// (Question.HasReference: judges and proxies leave them out and count
// them as "no reference"), then the defect report with up to
// maxPerKind defects per kind (see Report.WriteText).
//
// Backwards timestamps compare each KnowMe stream entry with the one just
// before it; an entry whose time is empty or unparseable after one with a
// known time also counts (the order is lost there), and the line tells the
// two cases apart. A CloneMem trace counts when it is dated before the last
// known date before it in its context.
func WriteValidation(w io.Writer, d *Dataset, maxPerKind int) error {
	if d == nil {
		panic("datasets: WriteValidation of a nil dataset")
	}
	s := ComputeStats(d)
	counts := d.Report.Counts()
	earlier, lost := 0, 0
	for _, df := range d.Report.Defects {
		if df.Kind != DefectBackwardsTime {
			continue
		}
		if strings.HasPrefix(df.Message, msgBackwardsLost) {
			lost++
		} else {
			earlier++
		}
	}
	ew := &errWriter{w: w}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "dataset:\t%s (%s)\n", d.Name, d.Format)
	fmt.Fprintf(tw, "source:\t%s\n", d.Source)
	fmt.Fprintf(tw, "fingerprint:\t%s\n", d.Fingerprint)
	fmt.Fprintf(tw, "corpora:\t%d\n", len(d.Corpora))
	for _, c := range s.Corpora {
		fmt.Fprintf(tw, "  %s\t%s, %d traces, %d questions\n", c.ID, langOrUnknown(c.Language), c.Traces, c.Questions)
	}
	fmt.Fprintf(tw, "traces:\t%d\n", s.Traces)
	fmt.Fprintf(tw, "questions:\t%d in %d tasks\n", s.Questions, len(s.ByTask))
	for _, c := range s.ByTask {
		fmt.Fprintf(tw, "  %s\t%d\n", c.Key, c.N)
	}
	fmt.Fprintf(tw, "empty timestamps:\t%d\n", counts[DefectEmptyTime])
	fmt.Fprintf(tw, "unparseable timestamps:\t%d\n", counts[DefectBadTime])
	fmt.Fprintf(tw, "backwards timestamps:\t%d (%d to an earlier time, %d from a known time to an empty or unparseable one)\n",
		counts[DefectBackwardsTime], earlier, lost)
	fmt.Fprintf(tw, "evidence references:\t%d in %d questions, %d unknown\n", s.EvidenceRefs, s.WithEvidence, s.UnknownRefs)
	fmt.Fprintf(tw, "evidence after question time:\t%d (no system may retrieve it: it caps Oracle recall)\n", counts[DefectFutureEvidence])
	fmt.Fprintf(tw, "text fields holding other values:\t%d\n", counts[DefectNotText])
	fmt.Fprintf(tw, "encoding problems:\t%d (invalid UTF-8, byte-order marks)\n", counts[DefectEncoding])
	fmt.Fprintf(tw, "names that are directories:\t%d\n", counts[DefectNotAFile])
	fmt.Fprintf(tw, "records missing fields:\t%d\n", counts[DefectMissingField])
	fmt.Fprintf(tw, "duplicate ids:\t%d\n", counts[DefectDuplicateID])
	noRef := 0
	for _, q := range d.Questions {
		if !q.HasReference() {
			noRef++
		}
	}
	fmt.Fprintf(tw, "questions without reference answer:\t%d (not judged: scores count them apart as \"no reference\")\n", noRef)
	fmt.Fprintf(tw, "unmatched records:\t%d\n", counts[DefectUnmatched])
	tw.Flush()
	ew.printf("\n")
	if ew.err != nil {
		return ew.err
	}
	return d.Report.WriteText(w, maxPerKind)
}

func langOrUnknown(l string) string {
	if l == "" {
		return "language unknown"
	}
	return l
}

// errWriter remembers the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	fmt.Fprintf(e, format, args...)
}
