package viewer

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runstore"
)

//go:embed assets
var assets embed.FS

// Options configure a viewer.
type Options struct {
	// PageSize is the number of questions on a page of a run (0 = 100).
	PageSize int
	// Now is the clock that says whether a run's holder is alive (nil =
	// time.Now).
	Now func() time.Time
	// Refresh is how long the viewer reuses what it read of the store's
	// runs (their list, progress and status) before reading it again
	// (0 = 2 s; negative = read it on every request). Counting a large
	// run's records is most of the cost of a page.
	Refresh time.Duration
	// Datasets are the datasets of the runs, if loaded: a run whose
	// dataset fingerprint is one of theirs shows each question's text,
	// reference answer, options and gold evidence, and marks the retrieved
	// units holding gold traces (the records keep no gold ids).
	Datasets []*datasets.Dataset
	// MeansBudget is how long the runs page may spend reading the records
	// of runs it has not read yet to show their means (0 = 2 s; negative =
	// no limit): past it, the other runs show theirs on a later reload.
	MeansBudget time.Duration
	// MaxRecords bounds the records the viewer keeps in memory, over all
	// the runs it has read (0 = DefaultMaxRecords; negative = no bound):
	// past it, the runs used least recently are dropped (their means stay
	// for the runs page) and read again from the store when a page needs
	// them. A run larger than the bound is kept, alone.
	MaxRecords int
}

// DefaultMaxRecords is Options.MaxRecords' default: 20,000 records, about
// 500 MB for records of 50 retrieved passages (24 KB each).
const DefaultMaxRecords = 20000

// viewer is the http.Handler New returns.
type viewer struct {
	st   *runstore.Store
	opts Options
	tmpl *template.Template
	mux  *http.ServeMux
	ds   *datasetsIndex

	mu sync.Mutex
	// runs are the records of the runs read last, within
	// Options.MaxRecords.
	runs *runCache
	// means are the summaries of every run read, by id, kept when its
	// records are dropped: what the runs page shows.
	means map[string]runMeans
	// compares are the comparisons made, by compareKey (at most 64).
	compares map[string]*comparison
	// infos are the runs as last read (Store.Run by the id asked, and
	// Store.Runs under ""), with when they were read.
	infos map[string]infoRead
}

// runMeans is a run's summary as of the run's state info.
type runMeans struct {
	info runstore.RunInfo
	sum  reports.Summary
}

type infoRead struct {
	at    time.Time
	infos []runstore.RunInfo
}

// runData is a run's records as the viewer last read them, valid while the
// run's Updated, Done and Failed are unchanged (sameState).
type runData struct {
	info runstore.RunInfo
	recs []record.Record
	// hay is each record's search text, lower-cased.
	hay []string
	sum reports.Summary
	// data is the run's dataset when loaded (Options.Datasets), else nil.
	data *datasets.Dataset
	// stats are the run page's tables with their intervals, made once.
	statsOnce sync.Once
	stats     *runStats
	// figures are the run page's figures, each rendered once.
	figMu sync.Mutex
	figs  map[string]*figure
}

// sameState reports whether a and b are the same state of a run: nothing
// was written to it between the two reads.
func sameState(a, b runstore.RunInfo) bool {
	return a.ID == b.ID && a.Updated.Equal(b.Updated) && a.Done == b.Done && a.Failed == b.Failed
}

// New returns the viewer of st: an http.Handler serving the pages /
// (runs), /run/{id} (a run), /run/{id}/fig/{name} (its figures, PNG),
// /run/{id}/q?c=CORPUS&qid=ID (a question),
// /compare?run=ID&run=ID...&m=METRIC&flip=ID (runs compared against the
// first, and the flips between it and another; a=ID&b=ID still names two
// runs), /compare/q?a=&b=&c=&qid= (a question in two runs) and /static/
// (the embedded stylesheet and script). It only reads st.
func New(st *runstore.Store, opts Options) http.Handler {
	if opts.PageSize <= 0 {
		opts.PageSize = 100
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MeansBudget == 0 {
		opts.MeansBudget = 2 * time.Second
	}
	if opts.Refresh == 0 {
		opts.Refresh = 2 * time.Second
	}
	if opts.MaxRecords == 0 {
		opts.MaxRecords = DefaultMaxRecords
	}
	v := &viewer{st: st, opts: opts, runs: newRunCache(opts.MaxRecords), means: map[string]runMeans{}, compares: map[string]*comparison{},
		infos: map[string]infoRead{},
		ds:    &datasetsIndex{list: opts.Datasets}}
	v.tmpl = template.Must(template.New("").Funcs(funcs).ParseFS(assets, "assets/*.html"))
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		panic("viewer: embedded assets: " + err.Error())
	}
	v.mux = http.NewServeMux()
	v.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	v.mux.HandleFunc("GET /{$}", v.runsPage)
	v.mux.HandleFunc("GET /run/{id}", v.runPage)
	v.mux.HandleFunc("GET /run/{id}/q", v.questionPage)
	v.mux.HandleFunc("GET /run/{id}/fig/{name}", v.figurePage)
	v.mux.HandleFunc("GET /compare", v.comparePage)
	v.mux.HandleFunc("GET /compare/q", v.compareQuestionPage)
	return v
}

func (v *viewer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'")
	v.mux.ServeHTTP(w, r)
}

// errNotFound marks an error shown with status 404.
var errNotFound = errors.New("not found")

// load returns the records of run id (an id, a unique prefix or a label),
// read again only when the run changed since the last read.
func (v *viewer) load(id string) (*runData, error) {
	infos, err := v.read(id)
	if err != nil {
		if errors.Is(err, runstore.ErrNoRun) {
			return nil, fmt.Errorf("no run %q in the run store %s (%w)", id, v.st.Path(), errNotFound)
		}
		return nil, err
	}
	return v.loadInfo(infos[0])
}

// read returns the run id ("" = every run, Store.Runs), as read less than
// Options.Refresh ago or read now.
func (v *viewer) read(id string) ([]runstore.RunInfo, error) {
	now := time.Now()
	v.mu.Lock()
	r, ok := v.infos[id]
	v.mu.Unlock()
	if ok && v.opts.Refresh > 0 && now.Sub(r.at) < v.opts.Refresh {
		return r.infos, nil
	}
	var infos []runstore.RunInfo
	if id == "" {
		var err error
		if infos, err = v.st.Runs(); err != nil {
			return nil, err
		}
	} else {
		info, err := v.st.Run(id)
		if err != nil {
			return nil, err
		}
		infos = []runstore.RunInfo{info}
	}
	v.mu.Lock()
	if len(v.infos) > 1000 {
		clear(v.infos)
	}
	v.infos[id] = infoRead{now, infos}
	v.mu.Unlock()
	return infos, nil
}

// summary returns the run's summary as last read, false when its records
// were not read or the run changed since.
func (v *viewer) summary(info runstore.RunInfo) (reports.Summary, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	m, ok := v.means[info.ID]
	if !ok || !sameState(m.info, info) {
		return reports.Summary{}, false
	}
	return m.sum, true
}

// loadInfo returns the run's records, read from the store unless the
// cache has them in this state of the run.
func (v *viewer) loadInfo(info runstore.RunInfo) (*runData, error) {
	v.mu.Lock()
	cached := v.runs.get(info)
	v.mu.Unlock()
	if cached != nil {
		return cached, nil
	}
	recs, err := v.st.Records(info.ID)
	if err != nil {
		return nil, err
	}
	d := &runData{info: info, recs: recs, hay: make([]string, len(recs))}
	ix := v.ds.of(info.Spec.Fingerprint)
	if ix != nil {
		d.data = ix.data
	}
	for i, r := range recs {
		d.hay[i] = searchText(r)
		if ix != nil {
			if q := ix.questions[key(r.CorpusID, r.QuestionID)]; q != nil {
				d.hay[i] += "\n" + strings.ToLower(q.Text)
			}
		}
	}
	d.sum = reports.Summarize("", recs)
	v.mu.Lock()
	v.runs.put(d)
	if len(v.means) > 10000 {
		clear(v.means)
	}
	v.means[info.ID] = runMeans{info, d.sum}
	v.mu.Unlock()
	return d, nil
}

// searchText is what q= searches in a record: the question id, the
// answer, the choice and the hits' texts, lower-cased.
func searchText(r record.Record) string {
	var b strings.Builder
	b.WriteString(r.QuestionID)
	b.WriteByte('\n')
	b.WriteString(r.Answer)
	b.WriteByte('\n')
	b.WriteString(r.Choice)
	for _, h := range r.Hits {
		b.WriteByte('\n')
		b.WriteString(h.Text)
	}
	return strings.ToLower(b.String())
}

// render executes the page template name with data and writes it with
// every URL credential left out.
func (v *viewer) render(w http.ResponseWriter, status int, name string, data any) {
	var buf bytes.Buffer
	if err := v.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "viewer: render "+name+": "+llm.RedactURLs(err.Error()), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write([]byte(llm.RedactURLs(buf.String())))
}

// fail shows err as a page: 404 for an unknown run or question, 400 for a
// bad parameter, else 500.
func (v *viewer) fail(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, errNotFound):
		status = http.StatusNotFound
	case errors.Is(err, errBadParam):
		status = http.StatusBadRequest
	}
	v.render(w, status, "error", struct {
		Title, Message string
		Status         int
	}{http.StatusText(status), err.Error(), status})
}

// errBadParam marks an error shown with status 400.
var errBadParam = errors.New("bad parameter")
