package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The fuzz targets of the loaders write the fuzzed bytes into a temporary
// directory layout and load it as a user would (Load, LoadCloneMem,
// LoadKnowMe on an OS path). Their seeds are the committed testdata and, when
// present, the real releases under ../../shared/datasets (read here at run
// time, never committed). Run one with e.g.
//
//	go test -run='^$' -fuzz='^FuzzLoadKnowMe$' -fuzztime=30s ./datasets

// realDatasets is the shared checkout of the real releases, relative to this
// package's directory.
const realDatasets = "../../shared/datasets"

// readSeed reads a seed file, failing the test when a committed one is
// missing and returning nil for an absent real file.
func readSeed(f *testing.F, name string, required bool) []byte {
	f.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		if required {
			f.Fatalf("seed %s: %v", name, err)
		}
		return nil
	}
	return b
}

// globSeeds returns the files matching pattern, in name order.
func globSeeds(f *testing.F, pattern string) []string {
	f.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		f.Fatal(err)
	}
	return m
}

// writeTree writes files (slash-separated names relative to dir) under dir.
func writeTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fileName turns a fuzzed string into a usable base name (no separators, no
// NUL, not hidden, at most 60 bytes), or "" when nothing is left.
func fileName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	s = strings.TrimLeft(s, ". ")
	for len(s) > 60 {
		s = s[:len(s)-1]
	}
	return strings.ToValidUTF8(s, "")
}

var (
	hex64       = regexp.MustCompile(`^[0-9a-f]{64}$`)
	malformedAt = regexp.MustCompile(`:(\d+):(\d+): malformed JSON`)
)

// checkLoad checks the properties every load has, whatever its input:
//
//   - exactly one of the dataset and the error is nil;
//   - an error starts with "datasets: load", quotes the path loaded, a
//     malformed-JSON error names a file that is indeed not JSON, with a
//     line and column inside it, and an error at a JSON path names the
//     file;
//   - a dataset has traces and questions, unique corpus and question ids,
//     every question in a corpus, a SHA-256 fingerprint, every defect in a
//     file read (or a directory of the dataset) at a JSON path, every
//     unknown evidence reference of the statistics in the report (which
//     also checks ids that are not used as evidence, such as CloneMem's
//     question-level digital_trace_ids beside an evidence list), every
//     question without an answer in the report, and its validation and
//     statistics print.
//
// files are the files of the layout, relative to root.
func checkLoad(t *testing.T, root string, files map[string][]byte, d *Dataset, err error) {
	t.Helper()
	if (d == nil) == (err == nil) {
		t.Fatalf("dataset %v and error %v: want exactly one", d != nil, err)
	}
	if err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, "datasets: load") {
			t.Errorf("error %q does not start with \"datasets: load\"", msg)
		}
		if !strings.Contains(msg, strconv.Quote(root)) {
			t.Errorf("error %q does not name the path %q", msg, root)
		}
		if m := malformedAt.FindStringSubmatchIndex(msg); m != nil {
			checkMalformed(t, root, files, msg, m)
		}
		if i := strings.Index(msg, ": $"); i >= 0 && !namesFile(msg[:i], root, files) {
			t.Errorf("error %q about a JSON path names no file of the dataset", msg)
		}
		return
	}
	nt := 0
	corpora := map[string]bool{}
	for _, c := range d.Corpora {
		if corpora[c.ID] {
			t.Errorf("corpus id %q twice", c.ID)
		}
		corpora[c.ID] = true
		nt += len(c.Traces)
	}
	if nt == 0 || len(d.Questions) == 0 {
		t.Errorf("loaded an empty dataset: %d traces, %d questions", nt, len(d.Questions))
	}
	qids := map[string]bool{}
	for _, q := range d.Questions {
		if qids[q.ID] {
			t.Errorf("question id %q twice", q.ID)
		}
		qids[q.ID] = true
		if !corpora[q.CorpusID] {
			t.Errorf("question %q is asked of corpus %q, which is not loaded", q.ID, q.CorpusID)
		}
	}
	if !hex64.MatchString(d.Fingerprint) {
		t.Errorf("fingerprint %q is not a hex SHA-256", d.Fingerprint)
	}
	if d.Source != root {
		t.Errorf("source %q, want %q", d.Source, root)
	}
	for _, df := range d.Report.Defects {
		if _, ok := files[df.File]; !ok && df.File != "" && !isDirOf(df.File, files) {
			t.Errorf("defect %+v names file %q, which is not in the dataset", df, df.File)
		}
		if df.Path != "" && !strings.HasPrefix(df.Path, "$") {
			t.Errorf("defect %+v: path %q is not a JSON path", df, df.Path)
		}
	}
	noAnswer := 0
	for _, q := range d.Questions {
		// LoCoMo's adversarial questions have no answer by design.
		if strings.TrimSpace(q.Answer) == "" && !(d.Format == FormatLoCoMo && q.Task == LoCoMoCategories[5]) {
			noAnswer++
		}
	}
	if n := d.Report.Counts()[DefectNoAnswer]; noAnswer > n {
		t.Errorf("%d questions have no answer, the report says %d", noAnswer, n)
	}
	if s, n := ComputeStats(d), d.Report.Counts()[DefectUnknownEvidence]; s.UnknownRefs > n {
		t.Errorf("statistics count %d unknown evidence references, the report only %d", s.UnknownRefs, n)
	}
	var b bytes.Buffer
	if err := WriteValidation(&b, d, 3); err != nil {
		t.Errorf("WriteValidation: %v", err)
	}
	if err := WriteStats(&b, d); err != nil {
		t.Errorf("WriteStats: %v", err)
	}
}

// checkMalformed checks a malformed-JSON error: the file it names is one of
// the layout's, is not valid JSON, and holds the line and column given.
func checkMalformed(t *testing.T, root string, files map[string][]byte, msg string, m []int) {
	t.Helper()
	prefix := msg[:m[0]]
	var name string
	var data []byte
	for rel, b := range files {
		full := root
		if len(files) > 1 || !strings.HasSuffix(root, rel) {
			full = filepath.Join(root, filepath.FromSlash(rel))
		}
		if strings.HasSuffix(prefix, full) && len(full) > len(name) {
			name, data = full, b
		}
	}
	if name == "" {
		t.Errorf("malformed-JSON error %q names no file of the dataset", msg)
		return
	}
	if json.Valid(data) {
		t.Errorf("error %q calls %s malformed, but it is valid JSON", msg, name)
	}
	line, _ := strconv.Atoi(msg[m[2]:m[3]])
	col, _ := strconv.Atoi(msg[m[4]:m[5]])
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		t.Errorf("error %q: line %d outside %s's %d lines", msg, line, name, len(lines))
		return
	}
	if n := len([]rune(lines[line-1])); col < 1 || col > n+1 {
		t.Errorf("error %q: column %d outside line %d (%d characters)", msg, col, line, n)
	}
}

// namesFile reports whether text ends with the name of a file of the
// layout: a file under root, or root itself quoted when it is the file.
func namesFile(text, root string, files map[string][]byte) bool {
	if _, isFile := files[filepath.Base(root)]; isFile && len(files) == 1 && strings.HasSuffix(text, strconv.Quote(root)) {
		return true
	}
	for rel := range files {
		if strings.HasSuffix(text, filepath.Join(root, filepath.FromSlash(rel))) {
			return true
		}
	}
	return false
}

// isDirOf reports whether dir is a directory holding one of files.
func isDirOf(dir string, files map[string][]byte) bool {
	for f := range files {
		if strings.HasPrefix(f, dir+"/") {
			return true
		}
	}
	return false
}

// sameLoad checks that two loads of the same layout agree: both fail, or
// both give the same dataset.
func sameLoad(t *testing.T, what string, d1 *Dataset, err1 error, d2 *Dataset, err2 error) {
	t.Helper()
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("%s: errors differ: %v vs %v", what, err1, err2)
	}
	if err1 == nil && !reflect.DeepEqual(d1, d2) {
		t.Fatalf("%s: datasets differ:\n%+v\n%+v", what, d1, d2)
	}
}

// FuzzLoadCloneMem loads a fuzzed CloneMem persona file twice: Load (which
// detects the format) and LoadCloneMem agree on a .json file (so a load is
// also deterministic), and Load detects no format in a file of another
// name.
func FuzzLoadCloneMem(f *testing.F) {
	var seeds []string
	for _, pat := range []string{"testdata/clonemem*/*.json", "testdata/bad/*.json", "testdata/bad/*/*", "sampledata/*.json"} {
		seeds = append(seeds, globSeeds(f, pat)...)
	}
	for _, p := range seeds {
		f.Add(readSeed(f, p, true), path.Base(p))
	}
	f.Add([]byte(persona), "p_benchmark_zh.json")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		if name = fileName(name); name == "" {
			name = "p.json"
		}
		dir := t.TempDir()
		p := filepath.Join(dir, name)
		writeTree(t, dir, map[string][]byte{name: data})
		files := map[string][]byte{name: data}
		d, err := Load(p)
		checkLoad(t, p, files, d, err)
		d2, err2 := LoadCloneMem(p)
		checkLoad(t, p, files, d2, err2)
		if !strings.EqualFold(filepath.Ext(name), ".json") {
			// Only a .json file is detected as CloneMem; LoadCloneMem
			// reads any file.
			if err == nil || !strings.Contains(err.Error(), "unknown format") {
				t.Fatalf("Load(%q) = %v: want an unknown-format error for a file that is not .json", name, err)
			}
			return
		}
		sameLoad(t, "Load and LoadCloneMem", d, err, d2, err2)
		if d != nil && (d.Format != FormatCloneMem || len(d.Corpora) != 1) {
			t.Errorf("a persona file loaded as %s with %d corpora", d.Format, len(d.Corpora))
		}
	})
}

// FuzzLoadCloneMemDir loads a directory of two fuzzed persona files, the
// second one in a subdirectory or beside the first, with Load and
// LoadCloneMem. A dataset has one corpus per file; the two agree when Load
// detects CloneMem.
func FuzzLoadCloneMemDir(f *testing.F) {
	en := readSeed(f, "testdata/clonemem/alice_p001_benchmark_en.json", true)
	zh := readSeed(f, "testdata/clonemem/alice_p001_benchmark_zh.json", true)
	f.Add(en, zh, false)
	f.Add(en, en, true)
	f.Add(readSeed(f, "testdata/clonemem_lang/wei.json", true), []byte(persona), true)
	f.Add(readSeed(f, "sampledata/ines_halloran_p01_benchmark_en.json", true),
		readSeed(f, "sampledata/lin_xiaowen_p02_benchmark_zh.json", true), false)
	f.Add([]byte(persona), readSeed(f, "testdata/bad/list.json", true), false)
	f.Fuzz(func(t *testing.T, a, b []byte, sub bool) {
		second := "b_p2_benchmark_zh.json"
		if sub {
			second = "more/" + second
		}
		files := map[string][]byte{"a_p1_benchmark_en.json": a, second: b}
		dir := t.TempDir()
		writeTree(t, dir, files)
		d, err := Load(dir)
		checkLoad(t, dir, files, d, err)
		d2, err2 := LoadCloneMem(dir)
		checkLoad(t, dir, files, d2, err2)
		if d != nil {
			sameLoad(t, "Load and LoadCloneMem", d, err, d2, err2)
			if d.Format != FormatCloneMem || len(d.Corpora) != 2 {
				t.Errorf("two persona files loaded as %s with %d corpora", d.Format, len(d.Corpora))
			}
		}
	})
}

// knowMeSeed is one task of a KnowMe-Bench layout.
type knowMeSeed struct {
	stream, questions, answers []byte
	task                       string
}

// knowMeSeeds reads the tasks of the KnowMe-Bench directory dir (question
// and answer files paired by task). With maxEntries > 0 each task keeps its
// first maxItems questions and answers, and its stream is cut to at most
// maxEntries entries, those its answers cite first, so that a seed stays
// quick to load and its evidence still resolves.
func knowMeSeeds(f *testing.F, dir string, required bool, maxEntries int) []knowMeSeed {
	f.Helper()
	inputs := globSeeds(f, filepath.Join(dir, "input", "*.json"))
	if len(inputs) == 0 {
		if required {
			f.Fatalf("no stream file in %s/input", dir)
		}
		return nil
	}
	stream := readSeed(f, inputs[0], required)
	answers := map[string]string{}
	for _, a := range globSeeds(f, filepath.Join(dir, "answer", "*.json")) {
		answers[strings.ToLower(taskName(a))] = a
	}
	var out []knowMeSeed
	for _, q := range globSeeds(f, filepath.Join(dir, "question", "*.json")) {
		s := knowMeSeed{stream: stream, questions: readSeed(f, q, required), task: taskName(q)}
		if a := answers[strings.ToLower(s.task)]; a != "" {
			s.answers = readSeed(f, a, required)
		}
		if maxEntries > 0 {
			s.questions, s.answers = firstItems(s.questions, maxItems), firstItems(s.answers, maxItems)
			s.stream = citedEntries(f, inputs[0], stream, s.answers, maxEntries)
		}
		out = append(out, s)
	}
	return out
}

// maxItems is the number of questions and answers a cut seed keeps.
const maxItems = 25

// firstItems returns the first n items of a JSON list as written, or b
// itself when it is not a list.
func firstItems(b []byte, n int) []byte {
	var items []json.RawMessage
	if json.Unmarshal(b, &items) != nil || len(items) <= n {
		return b
	}
	return append(append([]byte("[\n"), bytes.Join(rawBytes(items[:n]), []byte(",\n"))...), "\n]\n"...)
}

func rawBytes(items []json.RawMessage) [][]byte {
	out := make([][]byte, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}

// citedEntries returns the stream with at most n entries: those whose id
// the answers cite as evidence, then the first ones, in stream order.
func citedEntries(f *testing.F, name string, stream, answers []byte, n int) []byte {
	f.Helper()
	var entries []json.RawMessage // each entry as written
	if err := json.Unmarshal(stream, &entries); err != nil {
		f.Fatalf("%s: %v", name, err)
	}
	var recs []struct {
		Evidence []json.RawMessage `json:"evidence"`
	}
	_ = json.Unmarshal(answers, &recs) // a task without a usable answer file keeps the first entries
	cited := map[string]bool{}
	for _, r := range recs {
		for _, id := range r.Evidence {
			cited[strings.Trim(string(id), `"`)] = true
		}
	}
	keep := make([]bool, len(entries))
	left := n
	for pass := 0; pass < 2; pass++ {
		for i, e := range entries {
			var id struct{ ID json.RawMessage }
			_ = json.Unmarshal(e, &id) // an entry that is not an object has no id
			if left > 0 && !keep[i] && (pass == 1 || cited[strings.Trim(string(id.ID), `"`)]) {
				keep[i] = true
				left--
			}
		}
	}
	var cut [][]byte
	for i, e := range entries {
		if keep[i] {
			cut = append(cut, e)
		}
	}
	return append(append([]byte("[\n"), bytes.Join(cut, []byte(",\n"))...), "\n]\n"...)
}

// FuzzLoadKnowMe loads a KnowMe-Bench directory (input/stream.json,
// question/TASK_questions.json, answer/TASK_answers.json) of fuzzed files
// with LoadKnowMe (FuzzDetect checks that Load agrees). Every question
// belongs to the task named by its file and to the stream's corpus, and
// the report counts exactly the unknown evidence references of the
// statistics.
func FuzzLoadKnowMe(f *testing.F) {
	var seeds []knowMeSeed
	seeds = append(seeds, knowMeSeeds(f, "testdata/knowme", true, 0)...)
	seeds = append(seeds, knowMeSeeds(f, "testdata/knowme_variant", true, 0)...)
	real := filepath.Join(realDatasets, "knowmebench", "dataset1")
	// The real stream (6,644 entries, 3.5 MB) takes half a second to load
	// under the fuzzer's instrumentation, so each task's seed holds its
	// first questions and answers and the 100 entries they cite first;
	// TestRealKnowMeDataset1 loads the release whole.
	seeds = append(seeds, knowMeSeeds(f, real, false, 100)...)
	for _, s := range seeds {
		f.Add(s.stream, s.questions, s.answers, s.task)
	}
	f.Fuzz(func(t *testing.T, stream, questions, answers []byte, task string) {
		task = fileName(task)
		if task == "" {
			task = "T"
		}
		files := map[string][]byte{
			"input/stream.json":                    stream,
			"question/" + task + "_questions.json": questions,
			"answer/" + task + "_answers.json":     answers,
		}
		dir := t.TempDir()
		writeTree(t, dir, files)
		d, err := LoadKnowMe(dir)
		checkLoad(t, dir, files, d, err)
		if d == nil {
			return
		}
		want := taskName(task + "_questions.json")
		for _, q := range d.Questions {
			if q.Task != want || !strings.HasPrefix(q.ID, want+"/") || q.CorpusID != "stream" {
				t.Errorf("question %q of task %q in corpus %q, want task %q in corpus stream", q.ID, q.Task, q.CorpusID, want)
			}
		}
		if s, n := ComputeStats(d), d.Report.Counts()[DefectUnknownEvidence]; s.UnknownRefs != n {
			t.Errorf("statistics count %d unknown evidence references, the report %d", s.UnknownRefs, n)
		}
		for _, tr := range d.Corpora[0].Traces {
			if tr.Medium != MediumStream {
				t.Errorf("trace %q has medium %q", tr.ID, tr.Medium)
			}
		}
	})
}

// layoutFiles decodes a fuzzed directory layout: entries separated by NUL,
// each "relative/name\nbytes". Names are cleaned to stay inside the layout.
func layoutFiles(raw []byte) map[string][]byte {
	files := map[string][]byte{}
	for _, e := range bytes.Split(raw, []byte{0}) {
		name, data, _ := bytes.Cut(e, []byte{'\n'})
		var parts []string
		for _, p := range strings.Split(string(name), "/") {
			if p = fileName(p); p != "" {
				parts = append(parts, p)
			}
		}
		if len(parts) == 0 || len(parts) > 4 {
			continue
		}
		rel := strings.Join(parts, "/")
		if isDirOf(rel, files) {
			continue // already a directory
		}
		clash := false
		for f := range files {
			if strings.HasPrefix(rel, f+"/") {
				clash = true // a file where a directory is wanted
			}
		}
		if !clash {
			files[rel] = data
		}
	}
	return files
}

// encodeLayout is the inverse of layoutFiles, for seeds.
func encodeLayout(files map[string][]byte) []byte {
	var b bytes.Buffer
	names := sortedNames(files)
	for i, n := range names {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(n)
		b.WriteByte('\n')
		b.Write(files[n])
	}
	return b.Bytes()
}

func sortedNames(files map[string][]byte) []string {
	return slices.Sorted(maps.Keys(files))
}

// readLayout reads the files of a committed directory, relative to it.
func readLayout(f *testing.F, dir string) map[string][]byte {
	f.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	return files
}

// FuzzDetect loads a fuzzed directory layout with Load, which detects its
// format. Whatever it detects, the loader of that format gives the same
// dataset; a KnowMe dataset comes from a directory with input/ and
// question/; an unknown format names the path and what was looked for.
func FuzzDetect(f *testing.F) {
	for _, dir := range []string{"testdata/clonemem", "testdata/clonemem_lang", "testdata/knowme", "testdata/knowme_variant",
		"testdata/bad/notformat", "testdata/bad/otherjson", "testdata/bad", "sampledata"} {
		f.Add(encodeLayout(readLayout(f, dir)))
	}
	f.Add(encodeLayout(map[string][]byte{"input/s.json": []byte(`[{"id": 1}]`), "question/x.json": []byte(persona)}))
	f.Add(encodeLayout(map[string][]byte{".hidden/a.json": []byte(persona), "b/c.JSON": []byte(persona)}))
	f.Fuzz(func(t *testing.T, raw []byte) {
		files := layoutFiles(raw)
		dir := t.TempDir()
		writeTree(t, dir, files)
		d, err := Load(dir)
		checkLoad(t, dir, files, d, err)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "unknown format") && !strings.Contains(msg, "looked for") {
				t.Errorf("unknown-format error %q does not say what was looked for", msg)
			}
			return
		}
		var d2 *Dataset
		var err2 error
		switch d.Format {
		case FormatCloneMem:
			d2, err2 = LoadCloneMem(dir)
		case FormatKnowMe:
			d2, err2 = LoadKnowMe(dir)
			hasIn, hasQ := false, false
			for rel := range files {
				top, _, _ := strings.Cut(rel, "/")
				hasIn = hasIn || (strings.EqualFold(top, "input") && isDirOf(top, files))
				hasQ = hasQ || (strings.EqualFold(top, "question") && isDirOf(top, files))
			}
			if !hasIn || !hasQ {
				t.Errorf("KnowMe detected without input/ and question/: %v", sortedNames(files))
			}
		default:
			t.Fatalf("format %q", d.Format)
		}
		sameLoad(t, fmt.Sprintf("Load and the %s loader", d.Format), d, err, d2, err2)
	})
}

// FuzzLoadLoCoMo: any bytes as a LoCoMo conversation file load to a
// dataset or fail with an error naming the file, never a panic; a
// dataset's evidence names only turns of its conversation.
func FuzzLoadLoCoMo(f *testing.F) {
	f.Add([]byte(`{"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:56 pm on 8 May, 2023",
"session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}],
"qa": [{"question": "q", "answer": "a", "evidence": ["D1:1", "D1:9; D", "D:1:1"], "category": 4},
{"question": "q5", "adversarial_answer": "x", "evidence": [], "category": 5}]}`))
	f.Add([]byte(`[{"sample_id": "s", "qa": [{"question": "q", "answer": 1, "evidence": ["D1:1"], "category": 1}],
"conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "c.json")
		writeTree(t, dir, map[string][]byte{"c.json": data})
		d, err := LoadLoCoMo(p)
		checkLoad(t, p, map[string][]byte{"c.json": data}, d, err)
		if d == nil {
			return
		}
		for _, q := range d.Questions {
			turns := map[string]bool{}
			for _, tr := range d.Corpus(q.CorpusID).Traces {
				turns[tr.ID] = true
			}
			for _, id := range q.GoldTraceIDs() {
				if !turns[id] {
					t.Fatalf("question %s cites %q, not a turn of its conversation", q.ID, id)
				}
			}
		}
	})
}
