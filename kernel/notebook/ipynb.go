package notebook

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/memlab/memlab/kernel"
)

// The .ipynb structures (nbformat 4.5). Fields are ordered as Jupyter
// writes them.

type nbFile struct {
	Cells         []nbCell   `json:"cells"`
	Metadata      nbMetadata `json:"metadata"`
	NBFormat      int        `json:"nbformat"`
	NBFormatMinor int        `json:"nbformat_minor"`
}

type nbMetadata struct {
	Kernelspec   nbKernelspec   `json:"kernelspec"`
	LanguageInfo nbLanguageInfo `json:"language_info"`
	Memlab       nbMemlab       `json:"memlab"`
}

type nbKernelspec struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	Language    string `json:"language"`
}

type nbLanguageInfo struct {
	Name          string `json:"name"`
	FileExtension string `json:"file_extension"`
	Mimetype      string `json:"mimetype"`
}

// nbMemlab is the metadata.memlab block of a run.
type nbMemlab struct {
	Notebook        string            `json:"notebook"`
	Parameters      map[string]string `json:"parameters"`
	RanAt           string            `json:"ran_at"`
	DurationSeconds float64           `json:"duration_seconds"`
	Status          string            `json:"status"`
	Error           string            `json:"error,omitempty"`
	// Percent is the layout of the .go file (see Notebook.Percent).
	Percent *nbLayout `json:"percent,omitempty"`
}

type nbCell struct {
	ID             string         `json:"id"`
	CellType       string         `json:"cell_type"`
	Metadata       map[string]any `json:"metadata"`
	Source         []string       `json:"source"`
	ExecutionCount *int           `json:"execution_count,omitempty"`
	Outputs        *[]nbOutput    `json:"outputs,omitempty"`
}

type nbOutput struct {
	OutputType     string         `json:"output_type"`
	Name           string         `json:"name,omitempty"`
	Text           []string       `json:"text,omitempty"`
	ExecutionCount *int           `json:"execution_count,omitempty"`
	Data           map[string]any `json:"data,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	Ename          string         `json:"ename,omitempty"`
	Evalue         string         `json:"evalue,omitempty"`
	Traceback      []string       `json:"traceback,omitempty"`
}

// MarshalJSON writes execution_count as null for code cells that did not run
// (omitempty would drop the required key).
func (c nbCell) MarshalJSON() ([]byte, error) {
	type plain nbCell
	if c.CellType != KindCode {
		return marshal(plain(c))
	}
	return marshal(struct {
		ID             string         `json:"id"`
		CellType       string         `json:"cell_type"`
		Metadata       map[string]any `json:"metadata"`
		Source         []string       `json:"source"`
		ExecutionCount *int           `json:"execution_count"`
		Outputs        []nbOutput     `json:"outputs"`
	}{c.ID, c.CellType, c.Metadata, c.Source, c.ExecutionCount, *c.Outputs})
}

// MarshalJSON keeps the keys each output type requires (execute_result and
// display_data need "metadata" even when empty).
func (o nbOutput) MarshalJSON() ([]byte, error) {
	type plain nbOutput
	if (o.OutputType == "display_data" || o.OutputType == "execute_result") && o.Metadata == nil {
		o.Metadata = map[string]any{}
	}
	b, err := marshal(plain(o))
	if err != nil || o.Metadata == nil || len(o.Metadata) > 0 {
		return b, err
	}
	// An empty map is dropped by omitempty: put it back.
	return []byte(strings.TrimSuffix(string(b), "}") + `,"metadata":{}}`), nil
}

// marshal is json.Marshal without HTML escaping (source code keeps its & < >).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// nbLines splits text into Jupyter's list of lines, each ending with "\n"
// except the last.
func nbLines(s string) []string {
	if s == "" {
		return []string{}
	}
	parts := strings.SplitAfter(s, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// ipynb renders a run as a Jupyter notebook.
func ipynb(res *RunResult) ([]byte, error) {
	nb := res.Notebook
	f := nbFile{
		NBFormat:      4,
		NBFormatMinor: 5,
		Metadata: nbMetadata{
			Kernelspec:   nbKernelspec{Name: "memlab", DisplayName: "Go (memlab)", Language: "go"},
			LanguageInfo: nbLanguageInfo{Name: "go", FileExtension: ".go", Mimetype: "text/x-go"},
			Memlab: nbMemlab{
				Notebook:        nb.Path,
				Parameters:      map[string]string{},
				RanAt:           res.Started.UTC().Format(time.RFC3339),
				DurationSeconds: res.Duration.Seconds(),
				Status:          "ok",
			},
		},
		Cells: []nbCell{},
	}
	for k, v := range nb.Params {
		f.Metadata.Memlab.Parameters[k] = v
	}
	if !nb.layout.isZero() {
		l := nb.layout
		f.Metadata.Memlab.Percent = &l
	}
	if res.Err != nil {
		f.Metadata.Memlab.Status = "error"
		f.Metadata.Memlab.Error = res.Err.Error()
	}
	for i, c := range nb.Cells {
		// Tags, title, other metadata and the layout, as Ipynb writes them:
		// the run's .ipynb converts back to the .go file.
		cell := nbCell{ID: fmt.Sprintf("cell-%d", i+1), CellType: c.Kind, Metadata: c.ipynbMetadata(i == len(nb.Cells)-1), Source: nbLines(c.Source)}
		if v := res.view(&c); c.Kind == KindCode && (v.input != inputShown || !v.outputs) {
			hide(cell.Metadata, c.layout, v.input != inputShown, !v.outputs)
		}
		if c.Kind == KindCode {
			outs := []nbOutput{}
			if r := res.Results[i]; r != nil {
				n := r.Count
				cell.ExecutionCount = &n
				outs = cellOutputs(r)
			}
			cell.Outputs = &outs
		}
		f.Cells = append(f.Cells, cell)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// hide marks a cell of a run's .ipynb as JupyterLab marks a collapsed
// one (metadata.jupyter.source_hidden, outputs_hidden), and records in
// its layout that the run did it (cellLayout.Hidden).
func hide(meta map[string]any, l cellLayout, source, outputs bool) {
	j := map[string]any{}
	if old, ok := meta[metaJupyter].(map[string]any); ok {
		for k, v := range old {
			j[k] = v
		}
	}
	if source {
		j["source_hidden"] = true
	}
	if outputs {
		j["outputs_hidden"] = true
	}
	meta[metaJupyter] = j
	if l, ok := meta[metaMemlab].(cellLayout); ok {
		l.Hidden = true
		meta[metaMemlab] = l
		return
	}
	meta[metaMemlab] = cellLayout{Hidden: true}
}

// cellOutputs are the outputs of one executed cell, in the order produced,
// then its value and its error.
func cellOutputs(r *kernel.CellResult) []nbOutput {
	var outs []nbOutput
	for _, o := range r.Outputs {
		switch o.Kind {
		case kernel.OutStdout, kernel.OutStderr:
			outs = append(outs, nbOutput{OutputType: "stream", Name: string(o.Kind), Text: nbLines(o.Text)})
		case kernel.OutDisplay:
			d := o.Display
			data := map[string]any{"text/plain": nbLines(d.Text)}
			if d.Markdown != "" {
				data["text/markdown"] = nbLines(d.Markdown)
			}
			if d.HTML != "" {
				data["text/html"] = nbLines(d.HTML)
			}
			if d.PNG != nil {
				data["image/png"] = base64.StdEncoding.EncodeToString(d.PNG)
			}
			if d.SVG != nil {
				data["image/svg+xml"] = nbLines(string(d.SVG))
			}
			outs = append(outs, nbOutput{OutputType: "display_data", Data: data})
		}
	}
	if r.Value != "" {
		n := r.Count
		outs = append(outs, nbOutput{OutputType: "execute_result", ExecutionCount: &n, Data: map[string]any{"text/plain": nbLines(r.Value)}})
	}
	if r.Err != nil {
		ename, evalue, tb := kernel.ErrorParts(r.Err)
		outs = append(outs, nbOutput{OutputType: "error", Ename: ename, Evalue: evalue, Traceback: tb})
	}
	if outs == nil {
		outs = []nbOutput{}
	}
	return outs
}
