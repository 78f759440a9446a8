package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/signal"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
)

// cmdRejudge is `memlab rejudge [-store FILE] -data PATH -name NAME
// [-kind knowme|clonemem|locomo] [-model M] [-rubric FILE] RUN`: it scores the
// stored answers of RUN with another judge (the judge role of the
// configured endpoint, or -model on it), adding its verdicts beside the
// old ones without answering again, then prints how the judges agree.
func cmdRejudge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rejudge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	storePath := storeFlag(fs)
	data := fs.String("data", "", "the run's dataset: a CloneMem, KnowMe-Bench or LoCoMo path, or sample (required)")
	name := fs.String("name", "", "name of the new judge's verdicts, e.g. judge-gpt4o (required; must differ from the run's judges)")
	kind := fs.String("kind", "", "knowme, clonemem or locomo (LoCoMo's J) (default: from the dataset's format)")
	model := fs.String("model", "", "judge model (default: the judge role's)")
	rubric := fs.String("rubric", "", "KnowMe rubric file (default: memlab's rubrics)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *data == "" || *name == "" {
		return usagef("rejudge takes -data PATH, -name NAME and one RUN")
	}
	d, err := loadDataset([]string{*data})
	if err != nil {
		return err
	}
	client, err := llm.Default()
	if err != nil {
		return err
	}
	defer llm.CloseDefault()
	k := *kind
	if k == "" {
		k = d.Format
	}
	j, metric, err := judgeOfKind("rejudge", client, k, *model, *rubric)
	if err != nil {
		return err
	}
	st, err := openRunStore(*storePath, storeWrite)
	if err != nil {
		return err
	}
	defer st.Close()
	ctx, stop := signal.NotifyContext(context.Background(), interruptSignals...)
	defer stop()
	res, err := runs.Rejudge(ctx, st, pos[0], d, []runs.Judge{runs.RenameJudge(j, *name)}, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rejudged %s (%s): %d records\n\n%s", res.ID, res.Label, len(res.Records), reports.JudgeAgreementTable(res.Records, metric).Markdown())
	printUsage(stderr)
	return nil
}
