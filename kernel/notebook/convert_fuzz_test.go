package notebook

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// Fuzz targets of the conversions. Run one with e.g.
//
//	go test -run='^$' -fuzz='^FuzzPercentRoundTrip$' -fuzztime=30s ./kernel/notebook

// FuzzPercentRoundTrip: every file ParseSource accepts is written back
// byte for byte by Percent, directly and, when it is UTF-8 with one line
// ending (an .ipynb holds only text, and refuses a stray carriage return
// with an error naming its line), through an .ipynb.
func FuzzPercentRoundTrip(f *testing.F) {
	for _, b := range notebookSeeds(f) {
		f.Add(b)
	}
	f.Add([]byte("// %% [markdown]\r\n//x\r\n  // y  \r\n\r\n// %% [parameters] T tags=[\"a\"]\r\nn := 1 \r\n"))
	f.Add([]byte("// %%\n// %% [md]\n\n// %%tags=[]\n"))
	f.Add([]byte("//%% A [raw] k={\"a\": [1, 2.5]} tags=[\"é\"]\n// x\r\n\n\n"))
	f.Add([]byte("// %% title=\"x\"\na := 1\n// %% memlab={\"marker\": \"y\"} lines_to_next_cell=3 tags=[\"q\"]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		nb, err := ParseSource("nb.go", src)
		if err != nil {
			return
		}
		if got := nb.Percent(); !bytes.Equal(got, src) {
			t.Fatalf("Percent differs from the file:\n%s", firstDiff(got, src))
		}
		ipy, err := nb.Ipynb(IpynbOptions{})
		if nb.layout.strayCR > 0 {
			if err == nil || !strings.Contains(err.Error(), "carriage return") {
				t.Fatalf("a file with a stray \\r converts to .ipynb: err %v", err)
			}
			return
		}
		if !utf8.Valid(src) {
			if err == nil || !strings.Contains(err.Error(), "not UTF-8") {
				t.Fatalf("a file that is not UTF-8 converts to .ipynb: err %v", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Ipynb: %v", err)
		}
		back, err := ParseIpynb("nb.ipynb", ipy)
		if err != nil {
			t.Fatalf("the .ipynb does not read back: %v\n%s", err, ipy)
		}
		if got := back.Percent(); !bytes.Equal(got, src) {
			t.Fatalf(".go -> .ipynb -> .go differs:\n%s", firstDiff(got, src))
		}
	})
}

// FuzzParseIpynb reads fuzzed .ipynb files: an error names the file; a
// notebook read converts to .ipynb and reads back as the same cells, and
// converts to .go either as cells that read back the same or with an error
// naming a cell.
func FuzzParseIpynb(f *testing.F) {
	for _, b := range notebookSeeds(f) {
		nb, err := ParseSource("seed.go", b)
		if err != nil {
			continue
		}
		ipy, err := nb.Ipynb(IpynbOptions{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(ipy)
	}
	f.Add([]byte(`{"nbformat": 4, "nbformat_minor": 2, "metadata": {"memlab": {"percent": {"header": "", "line_ending": "\r\n", "lines_at_end": 2}}},
	 "cells": [{"cell_type": "markdown", "source": ["a\n", "b"], "metadata": {"memlab": {"marker": "// %% [md]", "lines_before": 3}}},
	 {"cell_type": "code", "source": "", "metadata": {"lines_to_next_cell": 0, "tags": []}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		nb, err := ParseIpynb("nb.ipynb", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "notebook: parse nb.ipynb: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		ipy, err := nb.Ipynb(IpynbOptions{Outputs: true})
		if err != nil {
			t.Fatalf("Ipynb: %v", err)
		}
		back, err := ParseIpynb("nb.ipynb", ipy)
		if err != nil {
			t.Fatalf("the written .ipynb does not read back: %v\n%s", err, ipy)
		}
		if len(back.Cells) != len(nb.Cells) {
			t.Fatalf("%d cells, %d read back", len(nb.Cells), len(back.Cells))
		}
		for i := range nb.Cells {
			if !sameCell(&nb.Cells[i], &back.Cells[i]) {
				t.Fatalf("cell %d: %+v, read back %+v", i+1, nb.Cells[i], back.Cells[i])
			}
		}
		if _, err := nb.Convert(FormatGo, IpynbOptions{}); err != nil && !strings.Contains(err.Error(), "notebook: write nb.ipynb as .go: ") {
			t.Fatalf("Convert to .go: %v", err)
		}
	})
}
