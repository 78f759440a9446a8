package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"sort"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
)

// errNoJudgeEndpoint is calibrate's error when no endpoint is configured:
// a calibration measures a model judge, never an offline proxy.
var errNoJudgeEndpoint = errors.New("calibrate needs a judge model and no endpoint is configured " +
	"(set OPENAI_BASE_URL / OPENAI_API_KEY or MEMLAB_CONFIG); " +
	"to build the calibration set offline, give -write FILE.csv")

// cmdCalibrate is `memlab calibrate -data PATH [-per-task N] [-seed S]
// [-write FILE.csv] [-human FILE.csv] [-kind knowme|clonemem|locomo] [-model M]
// [-rubric FILE] [-threshold T] [-workers N]`. It builds the calibration
// set of the dataset offline (runs.CalibrationSet: paraphrases of the
// reference answers labelled right, perturbations labelled wrong). With
// -write it writes the set as a labels CSV (runs.WriteCalibrationCSV) and
// calls no model; otherwise it asks the judge role of the configured
// endpoint about every item, and those of -human's labels file too, and
// prints the calibration table (reports.CalibrationTable).
func cmdCalibrate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "the dataset: a CloneMem or KnowMe-Bench path, or sample (required)")
	perTask := fs.Int("per-task", 0, "questions used per task (0 = all)")
	seed := fs.Uint64("seed", 1, "seed of the perturbations")
	write := fs.String("write", "", "write the calibration set to this CSV (corpus_id,question_id,answer,label) and call no model")
	human := fs.String("human", "", "also calibrate on this human-labelled CSV (the format -write writes)")
	kind := fs.String("kind", "", "knowme, clonemem or locomo (default: from the dataset's format)")
	model := fs.String("model", "", "judge model (default: the judge role's)")
	rubric := fs.String("rubric", "", "KnowMe rubric file (default: memlab's rubrics)")
	threshold := fs.Float64("threshold", 0.5, "a score at or above this share of the judge's scale means \"right\"")
	workers := fs.Int("workers", 0, "items judged at once (0 = runs.DefaultWorkers)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 0 || *data == "":
		return usagef("calibrate takes -data PATH and no other argument")
	case *write != "" && *human != "":
		return usagef("calibrate: -write writes the set and asks no judge; -human needs the judge: give one of them")
	case *threshold <= 0 || *threshold > 1:
		return usagef("calibrate: -threshold %g, want a share of the scale in (0, 1]", *threshold)
	case *perTask < 0:
		return usagef("calibrate: -per-task %d, want 0 (all) or more", *perTask)
	}
	d, err := loadDataset([]string{*data})
	if err != nil {
		return err
	}
	items := runs.CalibrationSet(d, *seed, *perTask)
	if len(items) == 0 {
		return fmt.Errorf("%s: no question has a reference answer: no calibration set", d.Name)
	}
	if *write != "" {
		if err := runs.WriteCalibrationCSV(*write, items); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %d calibration items of %s to %s (label = the generated one; relabel and give it back with -human)\n\n%s",
			len(items), d.Name, *write, kindCounts(items))
		return nil
	}
	var humanItems []record.CalibrationItem
	if *human != "" {
		if humanItems, err = runs.ReadCalibrationCSV(*human, d); err != nil {
			return err
		}
		if len(humanItems) == 0 {
			return fmt.Errorf("%s: no labelled answer", *human)
		}
	}
	k := *kind
	if k == "" {
		k = d.Format
	}
	switch {
	case k != datasets.FormatKnowMe && k != datasets.FormatCloneMem && k != datasets.FormatLoCoMo:
		return usagef("calibrate: -kind %q, want knowme, clonemem or locomo", k)
	case k != datasets.FormatKnowMe && *rubric != "":
		return usagef("calibrate: -rubric is for the KnowMe judge; the %s judge has its own prompt", k)
	}
	if !llm.Configured() {
		if _, err := llm.DefaultConfig(); err != nil {
			return err // a config file that does not load says why
		}
		return errNoJudgeEndpoint
	}
	client, err := llm.Default()
	if err != nil {
		return err
	}
	defer llm.CloseDefault()
	j, metric, err := judgeOfKind("calibrate", client, k, *model, *rubric)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), interruptSignals...)
	defer stop()
	sets := []struct {
		name  string
		items []record.CalibrationItem
	}{{"generated", items}, {"human labels", humanItems}}
	var cals []*record.Calibration
	failed, total := 0, 0
	for _, s := range sets {
		if len(s.items) == 0 {
			continue
		}
		fmt.Fprintf(stderr, "calibrating %s on %d %s items of %s\n", j.Name(), len(s.items), s.name, d.Name)
		c, err := runs.Calibrate(ctx, j, s.items, metric, *threshold, *workers)
		if err != nil {
			return err
		}
		c.Judge += " (" + s.name + ")"
		cals = append(cals, c)
		failed += c.Failed
		total += c.Items
	}
	name := j.Name()
	if name != metric {
		name += ", " + metric
	}
	fmt.Fprintf(stdout, "calibration of %s on %s: \"right\" = a score at or above %g of the judge's scale; a positive is a wrong answer\n\n%s\n",
		name, d.Name, *threshold, reports.CalibrationTable(cals).Markdown())
	if failed > 0 {
		fmt.Fprintf(stdout, "%d of %d verdicts failed: counted as failed, not scored, and left out of sensitivity, specificity and kappa.\n", failed, total)
	}
	printUsage(stderr)
	if failed == total {
		return fmt.Errorf("every verdict of %s failed: nothing was calibrated", j.Name())
	}
	return nil
}

// judgeOfKind is the answer judge of kind (knowme, clonemem or locomo: the
// J judge, CORRECT or WRONG against the gold answer) on client, with model
// and the KnowMe rubric file when given, and the metric of its verdicts;
// cmd names the command in a usage error. calibrate and rejudge use it.
func judgeOfKind(cmd string, client *llm.Client, kind, model, rubric string) (runs.Judge, string, error) {
	cfg := judge.Config{Model: model}
	switch kind {
	case datasets.FormatKnowMe:
		var rs *judge.RubricSet
		if rubric != "" {
			var err error
			if rs, err = judge.LoadRubricFile(rubric); err != nil {
				return nil, "", err
			}
		}
		return runs.KnowMeJudge(judge.NewKnowMeJudge(client, rs, cfg)), judge.MetricKnowMeScore, nil
	case datasets.FormatCloneMem:
		return runs.CloneMemQAJudge(judge.NewCloneMemJudge(client, cfg)), judge.MetricQAConsistency, nil
	case datasets.FormatLoCoMo:
		return runs.LoCoMoJudge(judge.NewLoCoMoJudge(client, cfg)), judge.MetricLoCoMoJ, nil
	}
	return nil, "", usagef("%s: -kind %q, want knowme, clonemem or locomo", cmd, kind)
}

// kindCounts is a markdown table of the items per kind, with their label.
func kindCounts(items []record.CalibrationItem) string {
	n := map[string]int{}
	right := map[string]bool{}
	for _, it := range items {
		n[it.Kind]++
		right[it.Kind] = it.Right
	}
	kinds := make([]string, 0, len(n))
	for k := range n {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	s := "| kind | label | items |\n| --- | --- | ---: |\n"
	for _, k := range kinds {
		label := "wrong"
		if right[k] {
			label = "right"
		}
		s += fmt.Sprintf("| %s | %s | %d |\n", k, label, n[k])
	}
	return s + fmt.Sprintf("| all | | %d |\n", len(items))
}
