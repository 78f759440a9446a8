package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/memlab/memlab/construct"
	"github.com/memlab/memlab/construct/standin"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/runstore"
)

// buildFlags are the flags of memlab build knowme and clonemem.
type buildFlags struct {
	dry, noStore, useStandin *bool
	store, out, price        *string
	seed                     *int
	latency                  *time.Duration
	params, models           paramFlag
}

func addBuildFlags(fs *flag.FlagSet) *buildFlags {
	f := &buildFlags{params: paramFlag{}, models: paramFlag{}}
	f.dry = fs.Bool("dry-run", false, "call no model: print each step's calls, tokens, cost and floor, planned from the steps' stubs")
	f.store = storeFlag(fs)
	f.noStore = fs.Bool("no-store", false, "keep the build in memory only: nothing is resumed or saved")
	f.out = fs.String("o", "", "directory the benchmark is written to (default: ./NAME, the dataset's or persona's name)")
	f.seed = fs.Int("seed", 1, "the build's seed")
	f.price = fs.String("price", "", "price every role as MODEL=PROMPT,COMPLETION (USD per million tokens) when the config prices none, e.g. gpt-4o-mini=0.15,0.60")
	f.useStandin = fs.Bool("standin", false, "build with memlab's scripted stand-in on an in-process fake server (to try the pipeline; its data are not a model's)")
	f.latency = fs.Duration("standin-latency", 0, "with -standin, the fake server's latency per call")
	fs.Var(f.params, "p", "a pipeline parameter: name=value (repeatable)")
	fs.Var(f.models, "model", "the model of one step instead of its role's: STEP=MODEL, or STEP.check=MODEL for its checker (repeatable), e.g. clonemem.choices.check=gpt-4o-mini")
	return f
}

// pricing is the config's prices, or -price's for every role.
func (f *buildFlags) pricing(chat *llm.Client) (construct.Pricing, error) {
	p := construct.Pricing{Models: map[string]string{}, Prices: map[string]llm.Price{}}
	if chat != nil {
		p = construct.PricingOf(chat.Config())
	}
	if *f.price != "" {
		model, v, ok := strings.Cut(*f.price, "=")
		a, b, ok2 := strings.Cut(v, ",")
		pp, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
		pc, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
		if !ok || !ok2 || model == "" || err1 != nil || err2 != nil || pp < 0 || pc < 0 {
			return p, usagef("-price %q: want MODEL=PROMPT,COMPLETION (USD per million tokens)", *f.price)
		}
		p.Prices[model] = llm.Price{Prompt: pp, Completion: pc}
		if chat == nil {
			for _, r := range llm.Roles() {
				p.Models[r] = model
			}
		}
	}
	return p, nil
}

// client is the build's model: the configured endpoint (with the call
// cache), the stand-in with -standin, nil in a dry run without endpoint.
// It returns a function that releases what it opened.
func (f *buildFlags) client(stderr io.Writer) (*llm.Client, func(), error) {
	done := func() {}
	if *f.useStandin {
		srv, err := standin.Start(standin.Options{Latency: *f.latency})
		if err != nil {
			return nil, done, err
		}
		c, err := standin.Client(srv.URL(), 8, llm.Options{})
		fmt.Fprintln(stderr, "memlab build: building with the scripted stand-in (construct/standin): the data show the pipeline, they are not a model's")
		return c, srv.Close, err
	}
	cfg, err := llm.DefaultConfig()
	if err != nil || cfg == nil {
		return nil, done, err
	}
	path, err := llm.CachePath()
	if err != nil {
		return nil, done, err
	}
	ch, err := cache.Open(path)
	if err != nil {
		return nil, done, err
	}
	c, err := llm.New(cfg, llm.Options{Cache: ch})
	if err != nil {
		ch.Close()
		return nil, done, err
	}
	return c, func() { ch.Close() }, nil
}

func (f *buildFlags) openStore() (*construct.Store, error) {
	if *f.noStore || *f.dry {
		return nil, nil
	}
	path := *f.store
	if path == "" {
		p, err := runstore.DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	return construct.OpenStore(path)
}

// intParam reads an integer parameter.
func intParam(p paramFlag, name string, dst *int) error {
	v, ok := p[name]
	if !ok {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return usagef("-p %s=%s: want an integer", name, v)
	}
	*dst = n
	delete(p, name)
	return nil
}

func strParam(p paramFlag, name string, dst *string) {
	if v, ok := p[name]; ok {
		*dst = v
		delete(p, name)
	}
}

func unknownParams(p paramFlag, known string) error {
	for name := range p {
		return usagef("unknown parameter %q (known: %s)", name, known)
	}
	return nil
}

// cmdBuild is `memlab build knowme|clonemem [flags]`.
func cmdBuild(kind string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("build "+kind, flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := addBuildFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments %q: parameters are -p name=value", pos)
	}
	ctx := context.Background()
	chat, release, err := f.client(stderr)
	if err != nil {
		return err
	}
	defer release()
	dry := *f.dry || llm.DryRun()
	if chat == nil && !dry {
		return errors.New("building needs a model: no endpoint is configured (set OPENAI_BASE_URL / OPENAI_API_KEY or MEMLAB_CONFIG); -dry-run says what the build would cost, -standin builds with the scripted stand-in")
	}
	pricing, err := f.pricing(chat)
	if err != nil {
		return err
	}
	store, err := f.openStore()
	if err != nil {
		return err
	}
	if store != nil {
		defer store.Close()
	}
	opts := construct.Options{Store: store, Seed: *f.seed, DryRun: dry, Models: f.models}
	if chat != nil {
		opts.Chat = chat
	}
	var b *construct.Build
	var write func(dir string) error
	var name string
	var buildErr error
	switch kind {
	case "knowme":
		p := construct.KnowMeParams{}
		file := ""
		strParam(f.params, "narrative", &file)
		strParam(f.params, "name", &p.Name)
		strParam(f.params, "start", &p.Start)
		if err := errors.Join(intParam(f.params, "per_task", &p.QuestionsPerTask), intParam(f.params, "window_chars", &p.WindowChars)); err != nil {
			return err
		}
		if v, ok := f.params["tasks"]; ok {
			p.Tasks = strings.Split(v, ",")
			delete(f.params, "tasks")
		}
		if err := unknownParams(f.params, "narrative, name, start, per_task, window_chars, tasks"); err != nil {
			return err
		}
		if file == "" {
			return usagef("-p narrative=FILE is required: the raw narrative to build from")
		}
		text, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		p.Narrative = string(text)
		if p.Name == "" {
			p.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		}
		name = p.Name
		r, err := construct.BuildKnowMe(ctx, p, opts)
		if r != nil {
			b, write = r.Build, r.Write
		}
		buildErr = err
	case "clonemem":
		scale := "small"
		strParam(f.params, "scale", &scale)
		p, err := construct.CloneMemScale(scale)
		if err != nil {
			return usagef("%v", err)
		}
		strParam(f.params, "person", &p.PersonID)
		strParam(f.params, "start", &p.Start)
		strParam(f.params, "language", &p.Language)
		if err := errors.Join(intParam(f.params, "months", &p.Months), intParam(f.params, "events", &p.MajorEvents),
			intParam(f.params, "phases", &p.PhasesPerEvent), intParam(f.params, "details", &p.DetailsPerPhase),
			intParam(f.params, "traces", &p.TracesPerDetail), intParam(f.params, "window_days", &p.WindowDays),
			intParam(f.params, "step_days", &p.StepDays)); err != nil {
			return err
		}
		if v, ok := f.params["types"]; ok {
			p.Types = strings.Split(v, ",")
			delete(f.params, "types")
		}
		if err := unknownParams(f.params, "scale, person, start, language, months, events, phases, details, traces, window_days, step_days, types"); err != nil {
			return err
		}
		r, err := construct.BuildCloneMem(ctx, p, opts)
		if r != nil {
			b, write = r.Build, r.Write
			name = "clonemem_" + r.Params.PersonID
			if dry {
				tokens := 0
				for _, t := range r.Traces {
					tokens += llm.EstimateTokens(t.Content)
				}
				fmt.Fprintf(stdout, "planned: %d traces (%d tokens of content), %d questions\n\n", len(r.Traces), tokens, len(r.Questions))
			}
		}
		buildErr = err
	default:
		return usagef("unknown benchmark %q: want knowme or clonemem", kind)
	}
	if b == nil {
		return buildErr
	}
	if dry {
		fmt.Fprintf(stdout, "dry run of build %s (no call; concurrency %d):\n\n%s\n", b.ID, b.Concurrency(),
			construct.EstimateTable(b.Stats(), b.Total(), pricing, time.Second).Markdown())
		return buildErr
	}
	fmt.Fprintf(stdout, "build %s (concurrency %d) in %s:\n\n%s\n", b.ID, b.Concurrency(), b.Elapsed().Round(time.Millisecond),
		construct.StatsTable(b.Stats(), b.Total()).Markdown())
	if buildErr != nil {
		return fmt.Errorf("%w (run the same command again to resume)", buildErr)
	}
	dir := *f.out
	if dir == "" {
		dir = name
	}
	if err := write(dir); err != nil {
		return err
	}
	d, err := datasets.Load(dir)
	if err != nil {
		return err
	}
	if err := datasets.WriteValidation(stdout, d, 10); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %s (with %s and %s)\n", dir, construct.ProvenanceFile, construct.ReviewFile)
	if n := len(d.Report.Defects); n > 0 {
		return fmt.Errorf("%s: %d defects in the built benchmark", dir, n)
	}
	return nil
}
