package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/memlab/memlab/datasets"
)

// datasetsValidate is `memlab datasets validate [-strict] [-max N] PATH`.
func datasetsValidate(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("datasets validate", flag.ContinueOnError)
	strict := fs.Bool("strict", false, "exit 1 when the validation report lists any defect")
	max := fs.Int("max", 10, "defects listed per kind (0 = all)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	d, err := loadDataset(pos)
	if err != nil {
		return err
	}
	if err := datasets.WriteValidation(stdout, d, *max); err != nil {
		return err
	}
	if *strict && len(d.Report.Defects) > 0 {
		return fmt.Errorf("%s: %d defects (-strict)", d.Source, len(d.Report.Defects))
	}
	return nil
}

// datasetsStats is `memlab datasets stats [-json] PATH`.
func datasetsStats(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("datasets stats", flag.ContinueOnError)
	asJSON := jsonFlag(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	d, err := loadDataset(pos)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, datasetStatsJSON(datasets.ComputeStats(d)))
	}
	return datasets.WriteStats(stdout, d)
}

// loadDataset loads the one PATH argument; "sample" is the bundled sample.
func loadDataset(pos []string) (*datasets.Dataset, error) {
	if len(pos) != 1 {
		return nil, usagef("want one dataset PATH, got %d arguments", len(pos))
	}
	return datasets.Open(pos[0])
}

// cmdVersion is `memlab version` (and `memlab --version`): it prints the
// module version and VCS revision the binary was built from.
func cmdVersion(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("version takes no arguments, got %q", pos)
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		_, err := fmt.Fprintln(stdout, "memlab (no build information)")
		return err
	}
	rev, dirty := "", ""
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = " (modified)"
			}
		}
	}
	_, err = fmt.Fprintf(stdout, "memlab %s %s%s %s\n", bi.Main.Version, rev, dirty, bi.GoVersion)
	return err
}
