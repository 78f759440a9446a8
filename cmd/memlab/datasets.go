package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/memlab/memlab/datasets"
)

// cmdDatasets is `memlab datasets validate|stats|errata ...`.
func cmdDatasets(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usagef("datasets needs a subcommand: validate or stats, or errata to apply an errata file")
	}
	switch args[0] {
	case "validate":
		fs := flag.NewFlagSet("datasets validate", flag.ContinueOnError)
		strict := fs.Bool("strict", false, "exit 1 when the validation report lists any defect")
		max := fs.Int("max", 10, "defects listed per kind (0 = all)")
		pos, err := parseInterspersed(fs, args[1:])
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
	case "stats":
		fs := flag.NewFlagSet("datasets stats", flag.ContinueOnError)
		pos, err := parseInterspersed(fs, args[1:])
		if err != nil {
			return err
		}
		d, err := loadDataset(pos)
		if err != nil {
			return err
		}
		return datasets.WriteStats(stdout, d)
	case "errata":
		return cmdDatasetsErrata(args[1:], stdout)
	default:
		return usagef("unknown datasets subcommand %q (want validate, stats or errata)", args[0])
	}
}

// loadDataset loads the one PATH argument; "sample" is the bundled sample.
func loadDataset(pos []string) (*datasets.Dataset, error) {
	if len(pos) != 1 {
		return nil, usagef("want one dataset PATH, got %d arguments", len(pos))
	}
	return datasets.Open(pos[0])
}

// cmdVersion prints the module version and VCS revision the binary was built from.
func cmdVersion(stdout io.Writer) error {
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
	_, err := fmt.Fprintf(stdout, "memlab %s %s%s %s\n", bi.Main.Version, rev, dirty, bi.GoVersion)
	return err
}
