// Command extract writes yaegi symbol tables for Go packages, one file per
// package, in the current directory. It is run by go generate in stdlib/.
//
// Usage:
//
//	go run ../internal/cmd/extract [-name stdlib] [-o DIR] importpath...
//
// Unlike `yaegi extract`, it stops with a non-zero exit at the first package
// it cannot extract, so a broken table is never silently missing.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/memlab/memlab/internal/tablesum"
	"github.com/traefik/yaegi/extract"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("extract", flag.ContinueOnError)
	name := fs.String("name", "stdlib", "package name of the generated files")
	dir := fs.String("o", ".", "directory to write the files into")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("no packages given")
	}
	ext := extract.Extractor{Dest: *name}
	for _, pkg := range fs.Args() {
		var buf bytes.Buffer
		path, err := ext.Extract(pkg, "", &buf)
		if err != nil {
			return fmt.Errorf("package %s: %w", pkg, err)
		}
		out := filepath.Join(*dir, tablesum.FileName(path))
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("package %s: %w", pkg, err)
		}
	}
	return nil
}
