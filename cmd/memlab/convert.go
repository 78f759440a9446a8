package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memlab/memlab/kernel/notebook"
)

// cmdConvert is `memlab convert [-to go|ipynb] [-outputs] IN [OUT]`: it
// turns a percent-format .go notebook into a Jupyter .ipynb and back
// (notebook.Notebook.Convert). OUT defaults to IN with the other
// extension; "-" writes to stdout (with -to).
func cmdConvert(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.String("to", "", "output format: go or ipynb (default: OUT's extension, else the other one of IN's)")
	outputs := fs.Bool("outputs", false, "keep the outputs and execution counts of an .ipynb (a run's) when writing .ipynb; by default they are dropped")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usagef("convert takes a notebook and an optional output file, got %d arguments", len(pos))
	}
	in := pos[0]
	inFormat := notebook.FormatOf(in)
	if inFormat == "" {
		return usagef("convert: %s is neither a .go nor an .ipynb notebook", in)
	}
	switch *to {
	case "", notebook.FormatGo, notebook.FormatIpynb:
	default:
		return usagef("convert: -to %q: want go or ipynb", *to)
	}
	if *outputs && inFormat == notebook.FormatGo {
		return usagef("convert: -outputs: a .go notebook has no outputs (memlab run writes the .ipynb of a run, with its outputs)")
	}
	out := ""
	if len(pos) == 2 {
		out = pos[1]
	}
	format := *to
	if format == "" && out != "" && out != "-" {
		format = notebook.FormatOf(out)
		if format == "" {
			return usagef("convert: cannot tell the format of %s from its extension: name it .go or .ipynb, or give -to", out)
		}
	}
	if format == "" {
		format = map[string]string{notebook.FormatGo: notebook.FormatIpynb, notebook.FormatIpynb: notebook.FormatGo}[inFormat]
	}
	if out == "" {
		out = strings.TrimSuffix(in, filepath.Ext(in)) + "." + format
	}
	if out == "-" && *to == "" {
		return usagef("convert: writing to stdout (-) needs -to go or -to ipynb")
	}
	if out != "-" && sameFile(in, out) {
		return usagef("convert: %s would overwrite the notebook it converts: name another output file", out)
	}
	nb, err := notebook.Parse(in)
	if err != nil {
		return err
	}
	b, err := nb.Convert(format, notebook.IpynbOptions{Outputs: *outputs})
	if err != nil {
		return err
	}
	if out == "-" {
		_, err := stdout.Write(b)
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return fmt.Errorf("writing the converted notebook: %w", err)
	}
	fmt.Fprintf(stderr, "memlab convert: wrote %s\n", out)
	return nil
}

// sameFile reports whether two paths name the same file (or would).
func sameFile(a, b string) bool {
	if fa, err := os.Stat(a); err == nil {
		if fb, err := os.Stat(b); err == nil {
			return os.SameFile(fa, fb)
		}
	}
	aa, err1 := filepath.Abs(a)
	ab, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == ab
}
