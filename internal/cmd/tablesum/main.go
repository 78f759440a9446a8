// Command tablesum writes stdlib/tables.sum: for each yaegi symbol table
// that the go:generate lines of stdlib.go produce, the hash of what it is
// generated from (see package internal/tablesum). It is run by go generate in
// stdlib/, after the tables.
//
// Usage:
//
//	go run ../internal/cmd/tablesum [-o tables.sum] [stdlib.go]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/memlab/memlab/internal/tablesum"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "tablesum:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("tablesum", flag.ContinueOnError)
	out := fs.String("o", "tables.sum", "file to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	src := "stdlib.go"
	if fs.NArg() > 1 {
		return fmt.Errorf("want at most one file, got %q", fs.Args())
	} else if fs.NArg() == 1 {
		src = fs.Arg(0)
	}
	lines, err := tablesum.ReadLines(src)
	if err != nil {
		return err
	}
	sums, err := tablesum.Sums(".", lines)
	if err != nil {
		return err
	}
	return os.WriteFile(*out, tablesum.Format(lines, sums), 0o644)
}
