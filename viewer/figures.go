package viewer

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/memlab/memlab/analysis"
)

// figure is one rendered figure of a run's state, made once.
type figure struct {
	once sync.Once
	png  []byte
	err  error
}

// figureRef is a figure as the run page embeds it.
type figureRef struct {
	URL, Alt string
	// Width and Height are its size on the page in CSS pixels.
	Width, Height int
}

// The figures' size: 16 x 9 cm at figureDPI, shown at 96 pixels an inch
// (sharp on a screen of device scale 1.5).
const (
	figureWidth, figureHeight = 16.0, 9.0
	figureDPI                 = 144
)

// figureNames are the figures a run page may show, in order.
var figureNames = []string{"retrieval.png", "answer.png"}

// figures are the run's figures: the retrieval one when a question has
// gold, the answer one when the run has an LLM judge, choice accuracy or
// the token F1 proxy (in that order of preference).
// Each URL carries the run's state, so a page of a run in progress asks for
// the figure of the records it shows.
func (d *runData) figures() []figureRef {
	s := d.statsOf()
	state := url.Values{"v": {fmt.Sprintf("%d-%d-%d", d.info.Updated.UnixNano(), d.info.Done, d.info.Failed)}}.Encode()
	w, h := int(math.Round(figureWidth/2.54*96)), int(math.Round(figureHeight/2.54*96))
	var out []figureRef
	for _, name := range figureNames {
		alt := s.figureAlt(name)
		if alt == "" {
			continue
		}
		out = append(out, figureRef{URL: runURL(d.info.ID) + "/fig/" + name + "?" + state, Alt: alt, Width: w, Height: h})
	}
	return out
}

// figureAlt describes figure name, "" when the run has nothing to draw
// in it.
func (s *runStats) figureAlt(name string) string {
	switch name {
	case "retrieval.png":
		if s.d.sum.WithGold == 0 {
			return ""
		}
		return fmt.Sprintf("Recall-Flat and All-Any at k = %d by task, with 95%% bootstrap intervals", s.d.sum.K)
	case "answer.png":
		if s.answer == "" {
			return ""
		}
		return s.answer + " by task, with 95% bootstrap intervals"
	}
	return ""
}

// plot is figure name's bar chart: one group per task, the means with
// their intervals as error bars.
func (s *runStats) plot(name string) (analysis.BarPlot, error) {
	bp := analysis.BarPlot{XLabel: "task", Groups: make([]string, len(s.tasks)), Width: figureWidth, Height: figureHeight, DPI: figureDPI}
	for i, t := range s.tasks {
		bp.Groups[i] = t
		if t == "" {
			bp.Groups[i] = "(none)"
		}
	}
	var metrics []string
	switch name {
	case "retrieval.png":
		metrics = []string{"Recall-Flat", "All-Any"}
		bp.Title, bp.YLabel, bp.YMin, bp.YMax = fmt.Sprintf("Retrieval at k = %d by task", s.d.sum.K), "mean", 0, 1
	case "answer.png":
		metrics = []string{s.answer}
		bp.Title, bp.YLabel, bp.YMin, bp.YMax = s.answer+" by task", "mean", s.answerMin, s.answerMax
	}
	if s.figureAlt(name) == "" {
		return bp, fmt.Errorf("run %s has nothing to draw in figure %q (%w)", shortID(s.d.info.ID), name, errNotFound)
	}
	var rs resampling
	for _, m := range metrics {
		ser := analysis.BarSeries{Name: m}
		for _, idx := range s.taskIdx {
			iv, cl := s.interval(m, idx)
			if iv.N > 0 {
				rs.add(cl)
			}
			ser.Values, ser.Lo, ser.Hi = append(ser.Values, iv.Estimate), append(ser.Lo, iv.Lo), append(ser.Hi, iv.Hi)
		}
		bp.Series = append(bp.Series, ser)
	}
	bp.Interval = "95% bootstrap CI"
	if rs.clustered > 0 {
		bp.Interval += ", personas resampled"
	}
	return bp, nil
}

// figure returns figure name of the run as PNG, rendered once per state
// of the run.
func (d *runData) figure(name string) ([]byte, error) {
	if !slices.Contains(figureNames, name) {
		return nil, fmt.Errorf("no figure %q: the figures are %s (%w)", name, strings.Join(figureNames, ", "), errNotFound)
	}
	d.figMu.Lock()
	if d.figs == nil {
		d.figs = map[string]*figure{}
	}
	f := d.figs[name]
	if f == nil {
		f = &figure{}
		d.figs[name] = f
	}
	d.figMu.Unlock()
	f.once.Do(func() {
		bp, err := d.statsOf().plot(name)
		if err != nil {
			f.err = err
			return
		}
		f.png, f.err = bp.PNG()
	})
	return f.png, f.err
}

// figurePage serves a run's figure (/run/{id}/fig/{name}) as PNG.
func (v *viewer) figurePage(w http.ResponseWriter, r *http.Request) {
	d, err := v.load(r.PathValue("id"))
	if err != nil {
		v.fail(w, err)
		return
	}
	png, err := d.figure(r.PathValue("name"))
	if err != nil {
		v.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(png)))
	w.Header().Set("Cache-Control", "private, max-age=3600")
	w.Write(png)
}
