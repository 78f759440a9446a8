package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runstore"
)

// findRun resolves a RUN argument (an id, a unique id prefix or a label).
func findRun(st *runstore.Store, arg string) (runstore.RunInfo, error) {
	ri, err := st.Run(arg)
	if errors.Is(err, runstore.ErrNoRun) {
		return ri, fmt.Errorf("%w (memlab runs list -store %s lists the runs)", err, st.Path())
	}
	return ri, err
}

// runsList is `memlab runs list [-store PATH] [-json]`.
func runsList(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("runs list", flag.ContinueOnError)
	storePath := storeFlag(fs)
	asJSON := jsonFlag(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("runs list takes no arguments, got %q", pos)
	}
	st, err := openRunStore(*storePath, storeRead)
	if err != nil {
		return err
	}
	defer st.Close()
	infos, err := st.Runs()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, newRunsListJSON(st.Path(), infos))
	}
	if len(infos) == 0 {
		_, err := fmt.Fprintf(stdout, "no runs in %s\n", st.Path())
		return err
	}
	t := analysis.Table{Header: []string{"id", "label", "dataset", "system", "k", "done / failed / questions", "updated", "code version"},
		Align: []string{"l", "l", "l", "l", "r", "r", "l", "l"}}
	for _, ri := range infos {
		t.AddRow([]string{ri.ID, ri.Label, ri.Spec.Dataset, shortSystem(ri.Spec.System), fmt.Sprint(ri.Spec.K),
			fmt.Sprintf("%d / %d / %d", ri.Done, ri.Failed, ri.Questions), ri.Updated.Format("2006-01-02 15:04"), ri.CodeVersion})
	}
	_, err = fmt.Fprintf(stdout, "%d runs in %s\n\n%s", len(infos), st.Path(), t.Markdown())
	return err
}

// shortSystem is a system name without its settings: "flat(bm25,...)" ->
// "flat".
func shortSystem(name string) string {
	if i := strings.IndexAny(name, "( "); i > 0 {
		return name[:i]
	}
	return name
}

// runsShow is `memlab runs show [-store PATH] [-json] RUN`.
func runsShow(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("runs show", flag.ContinueOnError)
	storePath := storeFlag(fs)
	asJSON := jsonFlag(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("runs show takes one RUN (an id, id prefix or label), got %d arguments", len(pos))
	}
	st, err := openRunStore(*storePath, storeRead)
	if err != nil {
		return err
	}
	defer st.Close()
	ri, err := findRun(st, pos[0])
	if err != nil {
		return err
	}
	recs, err := st.Records(ri.ID)
	if err != nil {
		return err
	}
	fails, err := st.Failures(ri.ID)
	if err != nil {
		return err
	}
	q, queued, err := st.Queue(context.Background(), ri.ID)
	if err != nil {
		return err
	}
	if *asJSON {
		out := newRunShowJSON(st.Path(), ri, recs, fails)
		if queued {
			out.Queue = &queueJSON{Items: q.Items, Todo: q.Todo, Claimed: q.Claimed, Expired: q.Expired, Done: q.Done, Retaken: q.Retaken,
				Workers: append([]string{}, q.Workers...)}
		}
		return writeJSON(stdout, out)
	}
	var b strings.Builder
	s := ri.Spec
	fmt.Fprintf(&b, "run %s (%s) in %s\n\n", ri.ID, ri.Label, st.Path())
	fmt.Fprintf(&b, "dataset:        %s (fingerprint %s)\n", s.Dataset, s.Fingerprint)
	fmt.Fprintf(&b, "questions:      %d (ids hash %s)\n", s.Questions, s.QuestionsHash)
	fmt.Fprintf(&b, "system:         %s\n", s.System)
	fmt.Fprintf(&b, "reader:         %s\n", s.Reader)
	fmt.Fprintf(&b, "k:              %d\n", s.K)
	judges := "none"
	if len(s.Judges) > 0 {
		judges = strings.Join(s.Judges, "; ")
	}
	fmt.Fprintf(&b, "judges:         %s\n", judges)
	params := "none"
	if keys := s.ParamKeys(); len(keys) > 0 {
		kv := make([]string, len(keys))
		for i, k := range keys {
			kv[i] = k + "=" + s.Params[k]
		}
		params = strings.Join(kv, " ")
	}
	fmt.Fprintf(&b, "params:         %s\n", params)
	if s.Scheme == record.SchemeLegacy {
		fmt.Fprintf(&b, "identity:       legacy (the hash of the display names)\n")
	} else {
		fmt.Fprintf(&b, "identity:       %s\n", s.IdentityJSON())
	}
	fmt.Fprintf(&b, "code version:   %s\n", ri.CodeVersion)
	fmt.Fprintf(&b, "created:        %s\n", ri.Created.Format(time.RFC3339))
	fmt.Fprintf(&b, "updated:        %s\n", ri.Updated.Format(time.RFC3339))
	fmt.Fprintf(&b, "sessions:       %d (%.1fs in all)\n", ri.Sessions, ri.Seconds)
	m := ri.Meter
	fmt.Fprintf(&b, "meter:          ingest %d calls, %d tokens, %d embeds; query %d calls, %d tokens, %d embeds\n",
		m.IngestCalls, m.IngestTokens, m.IngestEmbeds, m.QueryCalls, m.QueryTokens, m.QueryEmbeds)
	status := "complete"
	if !ri.Complete() {
		status = "incomplete"
	}
	fmt.Fprintf(&b, "records:        %d done, %d failed, %d questions (%s)\n", ri.Done, ri.Failed, ri.Questions, status)
	failedQs := map[string]bool{}
	for _, f := range fails {
		failedQs[f.QuestionID] = true
	}
	fmt.Fprintf(&b, "failure history: %d failed attempts at %d questions\n", len(fails), len(failedQs))
	if ri.Owner != "" {
		fmt.Fprintf(&b, "running:        %s, lease renewed %s\n", ri.Owner, ri.Heartbeat.Format(time.RFC3339))
	}
	if queued {
		fmt.Fprintf(&b, "work queue:     %d items: %d to do, %d claimed (%d with a lease run out), %d done, %d claimed again; %d workers\n",
			q.Items, q.Todo, q.Claimed, q.Expired, q.Done, q.Retaken, len(q.Workers))
	}

	if len(recs) > 0 {
		sums := []reports.Summary{reports.Summarize("", recs)}
		byTask := map[string][]record.Record{}
		for _, r := range recs {
			byTask[r.Task] = append(byTask[r.Task], r)
		}
		tasks := make([]string, 0, len(byTask))
		for task := range byTask {
			tasks = append(tasks, task)
		}
		sort.Strings(tasks)
		if len(tasks) > 1 {
			for _, task := range tasks {
				sums = append(sums, reports.Summarize(task, byTask[task]))
			}
		}
		fmt.Fprintf(&b, "\nretrieval\n\n%s", reports.RetrievalTable(sums).Markdown())
		fmt.Fprintf(&b, "\nanswers\n\n%s", reports.AnswerTable(sums).Markdown())
		res := &record.Result{System: ri.Spec.System, K: ri.Spec.K, Records: recs}
		if ut := reports.UsageTable([]*record.Result{res}); usedModels(recs) {
			fmt.Fprintf(&b, "\nmodel use per stage\n\n%s", ut.Markdown())
		}
		if jt := reports.JudgeTable([]*record.Result{res}); len(jt.Rows) > 0 {
			fmt.Fprintf(&b, "\nLLM judges\n\n%s", jt.Markdown())
			if len(tasks) > 1 {
				fmt.Fprintf(&b, "\nLLM judges by task\n\n%s", reports.JudgeTaskTable([]*record.Result{res}).Markdown())
			}
		}
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}

// runsDiff is `memlab runs diff [-store PATH] [-max N] RUN_A RUN_B`.
func runsDiff(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("runs diff", flag.ContinueOnError)
	storePath := storeFlag(fs)
	max := fs.Int("max", 20, "changed questions listed, worst regressions first (0 = all)")
	flipsOf := fs.String("flips", "", "also list the questions whose 0/1 `METRIC` (e.g. \"Choice accuracy\", All-Any) flipped, with both runs' retrieved traces")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("runs diff takes two runs RUN_A RUN_B, got %d arguments", len(pos))
	}
	if *max < 0 {
		return usagef("runs diff: -max must be >= 0, got %d", *max)
	}
	st, err := openRunStore(*storePath, storeRead)
	if err != nil {
		return err
	}
	defer st.Close()
	var infos [2]runstore.RunInfo
	var recs [2][]record.Record
	for i, arg := range pos {
		if infos[i], err = findRun(st, arg); err != nil {
			return err
		}
		if recs[i], err = st.Records(infos[i].ID); err != nil {
			return err
		}
	}
	d := reports.Diff(recs[0], recs[1])
	var b strings.Builder
	for i, name := range []string{"A", "B"} {
		ri := infos[i]
		fmt.Fprintf(&b, "%s: %s (%s): %s k=%d over %s, %d done / %d failed / %d questions\n", name, ri.ID, ri.Label,
			shortSystem(ri.Spec.System), ri.Spec.K, ri.Spec.Dataset, ri.Done, ri.Failed, ri.Questions)
	}
	if infos[0].Spec.Dataset != infos[1].Spec.Dataset || infos[0].Spec.Fingerprint != infos[1].Spec.Fingerprint {
		fmt.Fprintf(&b, "warning: the runs are over different datasets (%s %s, %s %s)\n",
			infos[0].Spec.Dataset, infos[0].Spec.Fingerprint, infos[1].Spec.Dataset, infos[1].Spec.Fingerprint)
	}
	fmt.Fprintf(&b, "\n%d questions in both (%d scored in both), %d only in A, %d only in B, %d changed\n",
		d.Both, d.Paired, len(d.OnlyA), len(d.OnlyB), len(d.Changed))
	if len(d.OnlyA) > 0 {
		fmt.Fprintf(&b, "only in A: %s\n", listCut(d.OnlyA, 20))
	}
	if len(d.OnlyB) > 0 {
		fmt.Fprintf(&b, "only in B: %s\n", listCut(d.OnlyB, 20))
	}
	fmt.Fprintf(&b, "\npaired means\n\n%s", d.Table().Markdown())
	if len(d.Changed) > 0 {
		qt := d.Questions()
		title := "changed questions, worst regressions first"
		if *max > 0 && len(qt.Rows) > *max {
			title += fmt.Sprintf(" (%d of %d; -max 0 lists all)", *max, len(qt.Rows))
			qt.Rows = qt.Rows[:*max]
		}
		fmt.Fprintf(&b, "\n%s\n\n%s", title, qt.Markdown())
	}
	if *flipsOf != "" {
		flips, err := reports.Flips(recs[0], recs[1], *flipsOf)
		if err != nil {
			return err
		}
		fixed := 0
		for _, f := range flips {
			if f.Fixed {
				fixed++
			}
		}
		fmt.Fprintf(&b, "\n%s flipped on %d questions: %d wrong → right, %d right → wrong (gold traces are not marked here: use reports.FlipsTable with the dataset in a cell)\n\n%s",
			*flipsOf, len(flips), fixed, len(flips)-fixed, reports.FlipsTable(nil, flips).Markdown())
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}

// listCut joins ids, cut after n with a count of the rest.
func listCut(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, " ")
	}
	return fmt.Sprintf("%s ... (%d more)", strings.Join(ids[:n], " "), len(ids)-n)
}

// runsExport is `memlab runs export [-store PATH] [-format csv|jsonl] [-o FILE] RUN...`:
// the records of every RUN, in the order given, each row with its run id;
// with -format clonemem, knowme or locomo, one RUN in its benchmark's
// official scorer's input (exportOfficial).
func runsExport(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("runs export", flag.ContinueOnError)
	storePath := storeFlag(fs)
	format := fs.String("format", "csv", "csv (one row per record of each run, run_id first, scores as columns), jsonl (one full record per line, with its run_id), "+
		"or a benchmark's official scorer's input for one RUN with -data: clonemem (a results file per persona, into the directory -o), "+
		"knowme (the judge input, to -o FILE or stdout) or locomo (a qa file per conversation, into the directory -o)")
	out := fs.String("o", "", "output `FILE` (default: standard output); a directory for -format clonemem and locomo")
	data := fs.String("data", "", "the run's dataset, for -format clonemem, knowme and locomo (the files hold its questions)")
	key := fs.String("key", "memlab", "-format locomo: the prediction key, KEY_prediction and KEY_prediction_context (LoCoMo's scripts use the model's name)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("runs export takes one or more RUNs (an id, id prefix or label), got none")
	}
	var write func(io.Writer, []reports.RunRecords) error
	switch *format {
	case "csv":
		write = reports.WriteRunsCSV
	case "jsonl":
		write = writeRunsJSONL
	case "clonemem", "knowme", "locomo":
		return exportOfficial(*storePath, *format, *data, *key, *out, pos, stdout)
	default:
		return usagef("runs export: unknown -format %q (want csv, jsonl, clonemem, knowme or locomo)", *format)
	}
	if *data != "" {
		return usagef("runs export: -data is for -format clonemem, knowme and locomo")
	}
	st, err := openRunStore(*storePath, storeRead)
	if err != nil {
		return err
	}
	defer st.Close()
	var all []reports.RunRecords
	seen := map[string]string{}
	n := 0
	for _, arg := range pos {
		ri, err := findRun(st, arg)
		if err != nil {
			return err
		}
		if prev, dup := seen[ri.ID]; dup {
			return usagef("runs export: %q and %q name the same run %s", prev, arg, ri.ID)
		}
		seen[ri.ID] = arg
		recs, err := st.Records(ri.ID)
		if err != nil {
			return err
		}
		all = append(all, reports.RunRecords{RunID: ri.ID, Records: recs})
		n += len(recs)
	}
	if *out == "" {
		return write(stdout, all)
	}
	f, err := os.Create(*out)
	if err != nil {
		return fmt.Errorf("runs export: %w", err)
	}
	fw := newRedactingWriter(f)
	if err := write(fw, all); err != nil {
		f.Close()
		return fmt.Errorf("runs export to %s: %w", *out, err)
	}
	if err := fw.Close(); err != nil {
		f.Close()
		return fmt.Errorf("runs export to %s: %w", *out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("runs export to %s: %w", *out, err)
	}
	ids := make([]string, len(all))
	for i, r := range all {
		ids[i] = r.RunID
	}
	_, err = fmt.Fprintf(stdout, "wrote %d records of %d runs (%s) to %s\n", n, len(all), strings.Join(ids, ", "), *out)
	return err
}

// writeRunsJSONL writes the records of runs as JSON lines, each record
// with a run_id field first (record.WriteJSONL's fields after it).
func writeRunsJSONL(w io.Writer, runs []reports.RunRecords) error {
	for _, r := range runs {
		var buf bytes.Buffer
		if err := record.WriteJSONL(&buf, r.Records); err != nil {
			return err
		}
		id, err := json.Marshal(r.RunID)
		if err != nil {
			return err
		}
		for _, line := range bytes.SplitAfter(buf.Bytes(), []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if line[0] != '{' {
				return fmt.Errorf("runs export: a record of run %s is not a JSON object", r.RunID)
			}
			rest := line[1:]
			sep := ","
			if len(bytes.TrimSpace(rest)) > 0 && bytes.TrimSpace(rest)[0] == '}' {
				sep = ""
			}
			if _, err := fmt.Fprintf(w, `{"run_id":%s%s%s`, id, sep, rest); err != nil {
				return err
			}
		}
	}
	return nil
}

// usedModels reports whether any record made or was served a model call.
func usedModels(recs []record.Record) bool {
	for _, r := range recs {
		if r.Usage.Total().Calls > 0 {
			return true
		}
	}
	return false
}
