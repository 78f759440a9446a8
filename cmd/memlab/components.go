package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/catalog"
)

// cmdComponents prints the catalog's table, or the canonical strings of
// the given specs.
func cmdComponents(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("components", flag.ContinueOnError)
	kind := fs.String("kind", "", "keep one kind: system, embedder, extractor, reader or judge (with SPECs: their kind, default system)")
	format := fs.String("format", "markdown", "table format: markdown or csv")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *kind != "" && !slices.Contains(catalog.Kinds, catalog.Kind(*kind)) {
		return usagef("-kind %q: want one of %v", *kind, catalog.Kinds)
	}
	if *format != "markdown" && *format != "csv" {
		return usagef("-format %q: want markdown or csv", *format)
	}
	if len(pos) > 0 {
		k := catalog.KindSystem
		if *kind != "" {
			k = catalog.Kind(*kind)
		}
		var errs []error
		for _, s := range pos {
			c, err := catalog.Canonical(k, s)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			fmt.Fprintln(stdout, c)
		}
		return errors.Join(errs...)
	}
	t := catalog.Table()
	if *kind != "" {
		keep := &analysis.Table{Header: t.Header}
		in := false
		for _, r := range t.Rows {
			if r[0] != "" {
				in = r[0] == *kind
			}
			if in {
				keep.AddRow(r)
			}
		}
		t = keep
	}
	if *format == "csv" {
		fmt.Fprint(stdout, t.CSV())
		return nil
	}
	fmt.Fprintln(stdout, t.Markdown())
	return nil
}
