package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/memlab/memlab/datasets"
)

// cmdDatasetsErrata is `memlab datasets errata PATH ERRATA.csv`: it loads
// the dataset, applies the errata file to it (datasets.ReadErrata and
// ApplyErrata) and prints each correction's log line and the counts. A
// malformed file, or an erratum naming no question of the dataset, is an
// error naming the file and line.
func cmdDatasetsErrata(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("datasets errata", flag.ContinueOnError)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("datasets errata takes a dataset PATH and an ERRATA.csv file, got %d arguments", len(pos))
	}
	d, err := loadDataset(pos[:1])
	if err != nil {
		return err
	}
	fixed, log, err := datasets.WithErrata(d, pos[1])
	if err != nil {
		return err
	}
	for _, l := range log {
		fmt.Fprintln(stdout, l)
	}
	fmt.Fprintf(stdout, "%s: %d questions, %d after the errata; errata %s\n", d.Name, len(d.Questions), len(fixed.Questions), fixed.Errata)
	return nil
}
