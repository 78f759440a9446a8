package reports

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
)

func tidyCSV(t *testing.T, s *Set) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteTidyCSV(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWriteTidyCSVReadsBack(t *testing.T) {
	s := sampleSet(t)
	out := tidyCSV(t, s)
	if !bytes.HasSuffix(out, []byte("\r\n")) {
		t.Error("lines do not end in CRLF (RFC 4180)")
	}
	rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := rows[0]
	wantHeader := []string{"system", "k", "point", "run_id", "dataset", "corpus_id", "question_id", "task", "dimension", "level",
		"metric", "kind", "value", "status"}
	if !slices.Equal(header, wantHeader) {
		t.Fatalf("header %q", header)
	}
	col := func(name string) int { return slices.Index(header, name) }
	// questions x points x metrics: 7 retrieval metrics, 4 offline ones
	// and the judge stand-in's.
	ran := s.Results()
	metrics := len(retrievalMetrics) + 4 + 1
	if want := 1 + len(ran)*len(ran[0].Records)*metrics; len(rows) != want {
		t.Fatalf("%d rows, want 1 + %d points x %d questions x %d metrics = %d", len(rows), len(ran), len(ran[0].Records), metrics, want)
	}
	status := map[string]int{}
	kinds := map[string]string{}
	for _, row := range rows[1:] {
		status[row[col("status")]]++
		kinds[row[col("metric")]] = row[col("kind")]
		v := row[col("value")]
		if (v == "") != (row[col("status")] != StatusOK) {
			t.Fatalf("row %q: value %q with status %q", row, v, row[col("status")])
		}
		if v != "" {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				t.Fatalf("value %q is not a plain number", v)
			}
		}
	}
	// FailOn fails the sample's first question in both flat runs.
	if status[StatusRecordFailed] != 2*metrics {
		t.Errorf("%d record_failed rows, want %d", status[StatusRecordFailed], 2*metrics)
	}
	// The judge stand-in fails on ids ending in 3, in every run.
	failedQ := 0
	for _, r := range ran[0].Records {
		if strings.HasSuffix(r.QuestionID, "3") && r.Failure == "" {
			failedQ++
		}
	}
	for _, r := range ran[2].Records {
		if strings.HasSuffix(r.QuestionID, "3") {
			failedQ++
		}
	}
	failedQ *= 2 // k=5 and k=10 of each system
	if status[StatusFailed] != failedQ || failedQ == 0 {
		t.Errorf("%d failed rows, want the %d failed verdicts", status[StatusFailed], failedQ)
	}
	if kinds["Recall-Flat"] != KindRetrieval || kinds[judge.MetricChoiceAccuracy] != string(record.KindExact) ||
		kinds[judge.MetricRougeL] != string(record.KindProxy) || kinds[judge.MetricKnowMeScore] != string(record.KindLLMJudge) {
		t.Errorf("kinds %v", kinds)
	}
	// One value checked against the records: oracle k=10, MRR of its
	// first question.
	p := s.Points[3]
	for _, row := range rows[1:] {
		if row[col("point")] == p.Label && row[col("metric")] == "MRR" && row[col("question_id")] == p.Result.Records[0].QuestionID {
			if got, _ := strconv.ParseFloat(row[col("value")], 64); got != p.Result.Records[0].Retrieval.MRR ||
				row[col("run_id")] != p.Result.ID || row[col("k")] != "10" || row[col("system")] != "oracle" {
				t.Errorf("row %q, want MRR %v of run %s", row, p.Result.Records[0].Retrieval.MRR, p.Result.ID)
			}
		}
	}
}

func TestTidyAxisColumns(t *testing.T) {
	axes := []record.Axis{{Name: "dataset"}, {Name: "Top-K"}, {Name: "top_k"}, {Name: "2nd"}, {Name: "run id"}}
	want := []string{"dataset_axis", "top_k", "top_k_axis", "axis_2nd", "run_id_axis"}
	if got := tidyAxisColumns(axes); !slices.Equal(got, want) {
		t.Errorf("columns %q, want %q", got, want)
	}
}

// pandas.read_csv reads the file with no option, numbers as numbers and
// empty values as NaN. Skipped without a python3 that has pandas.
func TestWriteTidyCSVPandas(t *testing.T) {
	py := ""
	for _, c := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(c); err == nil && exec.Command(path, "-c", "import pandas").Run() == nil {
			py = path
			break
		}
	}
	if py == "" {
		t.Skip("no python3 with pandas on this machine")
	}
	s := sampleSet(t)
	file := filepath.Join(t.TempDir(), "tidy.csv")
	if err := os.WriteFile(file, tidyCSV(t, s), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, pandas as pd
df = pd.read_csv(sys.argv[1])
assert str(df["value"].dtype) == "float64", df["value"].dtype
assert str(df["k"].dtype) == "int64", df["k"].dtype
ok = df[df.status == "ok"]
assert ok["value"].notna().all() and df[df.status != "ok"]["value"].isna().all()
m = ok[(ok.point == "system=oracle k=10") & (ok.metric == "Recall-Flat")]["value"].mean()
print(len(df), len(df.columns), repr(m))
`
	out, err := exec.Command(py, "-c", script, file).CombinedOutput()
	if err != nil {
		t.Fatalf("pandas: %v\n%s", err, out)
	}
	f := strings.Fields(string(out))
	pt, perr := s.Pivot("point", "", "Recall-Flat")
	if perr != nil {
		t.Fatal(perr)
	}
	cell, _ := pt.Cell("system=oracle k=10", "all")
	mean, _ := strconv.ParseFloat(f[2], 64)
	if f[0] != strconv.Itoa(4*54*12) || f[1] != "14" || math.Abs(mean-cell.Mean.Estimate) > 1e-12 {
		t.Errorf("pandas read %s rows, %s columns, oracle k=10 Recall-Flat %v; want %d, 14, %v", f[0], f[1], mean, 4*54*12, cell.Mean.Estimate)
	}
}

// R's read.csv reads the file with no option: value numeric, empty as NA,
// the headers unchanged (no check.names renaming). Skipped without Rscript.
func TestWriteTidyCSVR(t *testing.T) {
	rscript, err := exec.LookPath("Rscript")
	if err != nil {
		t.Skip("no Rscript on this machine")
	}
	s := sampleSet(t)
	file := filepath.Join(t.TempDir(), "tidy.csv")
	if err := os.WriteFile(file, tidyCSV(t, s), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
args <- commandArgs(trailingOnly = TRUE)
df <- read.csv(args[1])
stopifnot(is.numeric(df$value), is.numeric(df$k))
stopifnot(all(is.na(df$value) == (df$status != "ok")))
m <- mean(df$value[df$point == "system=oracle k=10" & df$metric == "Recall-Flat" & df$status == "ok"])
cat(nrow(df), paste(names(df), collapse = ","), sprintf("%.17g", m), "\n")
`
	out, err := exec.Command(rscript, "-e", script, file).CombinedOutput()
	if err != nil {
		t.Fatalf("R: %v\n%s", err, out)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		t.Fatalf("R printed %q", out)
	}
	pt, err := s.Pivot(ByPoint, "", "Recall-Flat")
	if err != nil {
		t.Fatal(err)
	}
	cell, _ := pt.Cell("system=oracle k=10", "all")
	mean, _ := strconv.ParseFloat(f[2], 64)
	header := "system,k,point,run_id,dataset,corpus_id,question_id,task,dimension,level,metric,kind,value,status"
	if f[0] != strconv.Itoa(4*54*12) || f[1] != header || math.Abs(mean-cell.Mean.Estimate) > 1e-12 {
		t.Errorf("R read %s rows, columns %s, oracle k=10 Recall-Flat %v; want %d, %s, %v", f[0], f[1], mean, 4*54*12, header, cell.Mean.Estimate)
	}
}
