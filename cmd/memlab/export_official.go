package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/formats"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
)

// exportOfficial is `memlab runs export -format clonemem|knowme|locomo
// -data PATH [-o OUT] [-key KEY] RUN`: the records of RUN written as its
// benchmark's official scorer reads them (package formats; docs/formats.md
// says every key): CloneMem's results file per persona and LoCoMo's qa file
// per conversation into the directory out, KnowMe-Bench's judge input to
// the file out or stdout. The dataset at data must be the run's (same
// fingerprint) and of the format's benchmark. URL credentials are redacted
// from what is written, as from every export.
func exportOfficial(storePath, format, data, key, out string, pos []string, stdout io.Writer) error {
	switch {
	case len(pos) != 1:
		return usagef("runs export -format %s takes one RUN, got %d", format, len(pos))
	case data == "":
		return usagef("runs export -format %s needs -data PATH, the run's dataset: the files hold its questions", format)
	case out == "" && format != "knowme":
		return usagef("runs export -format %s writes a file per %s: give the directory with -o DIR", format, map[string]string{"clonemem": "persona", "locomo": "conversation"}[format])
	}
	d, err := datasets.Open(data)
	if err != nil {
		return err
	}
	if want := map[string]string{"clonemem": datasets.FormatCloneMem, "knowme": datasets.FormatKnowMe, "locomo": datasets.FormatLoCoMo}[format]; d.Format != want {
		return usagef("runs export -format %s: %s is a %s dataset", format, data, d.Format)
	}
	st, err := openRunStore(storePath, storeRead)
	if err != nil {
		return err
	}
	defer st.Close()
	ri, err := findRun(st, pos[0])
	if err != nil {
		return err
	}
	if d.Fingerprint != ri.Spec.Fingerprint {
		return fmt.Errorf("runs export: %s has fingerprint %.16s, run %s was made on %.16s: give the run's dataset (memlab runs show %s names it)",
			data, d.Fingerprint, ri.ID, ri.Spec.Fingerprint, ri.ID)
	}
	recs, err := st.Records(ri.ID)
	if err != nil {
		return err
	}
	res := &record.Result{ID: ri.ID, Spec: ri.Spec, Label: ri.Label, Dataset: ri.Spec.Dataset, Fingerprint: ri.Spec.Fingerprint,
		K: ri.Spec.K, Records: recs}
	if len(recs) > 0 {
		res.System, res.Reader = recs[0].System, recs[0].Reader
	}
	var paths []string
	switch format {
	case "clonemem":
		paths, err = formats.WriteCloneMemDir(out, d, res)
	case "locomo":
		paths, err = formats.WriteLoCoMoDir(out, d, res, key)
	case "knowme":
		var buf bytes.Buffer
		if err = formats.WriteKnowMe(&buf, d, res); err != nil {
			break
		}
		redacted := llm.RedactURLs(buf.String())
		if out == "" {
			_, err = io.WriteString(stdout, redacted)
			return err
		}
		if err = os.WriteFile(out, []byte(redacted), 0o644); err == nil {
			paths = []string{out}
		}
	}
	if err != nil {
		return fmt.Errorf("runs export: %w", err)
	}
	for _, p := range paths {
		if err := redactFile(p); err != nil {
			return fmt.Errorf("runs export: %w", err)
		}
	}
	failed := 0
	for _, r := range recs {
		if r.Failure != "" {
			failed++
		}
	}
	_, err = fmt.Fprintf(stdout, "wrote %d records of run %s (%s) as %s's scorer reads them, %d failed left out, to %d files:\n", len(recs)-failed, ri.ID, ri.Label, format, failed, len(paths))
	for _, p := range paths {
		fmt.Fprintf(stdout, "  %s\n", p)
	}
	return err
}

// redactFile rewrites the file at path with its URL credentials redacted,
// when it holds any.
func redactFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if r := llm.RedactURLs(string(b)); r != string(b) {
		return os.WriteFile(path, []byte(r), 0o644)
	}
	return nil
}
