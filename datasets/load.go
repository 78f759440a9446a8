package datasets

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memlab/memlab/activity"
	"github.com/memlab/memlab/text"
)

// Load reads the dataset at path and detects its format:
//
//   - a .json file holding an object with "context" and "questions" (or
//     "qa_items") is a CloneMem persona file;
//   - a directory with input/ and question/ subdirectories is a KnowMe-Bench
//     dataset;
//   - a directory of CloneMem persona files (searched recursively) is a
//     CloneMem dataset with one corpus per file.
//
// Anything else is an error naming the path and what was looked for. A
// missing path, malformed JSON (the message names file:line:column), a
// top-level shape that is not the format and an empty dataset (no traces or
// no questions) are errors; every other defect goes to Dataset.Report.
func Load(path string) (*Dataset, error) {
	return loadPath(path, "")
}

// LoadCloneMem reads a CloneMem persona file, or a directory of them, without
// format detection.
func LoadCloneMem(path string) (*Dataset, error) {
	return loadPath(path, FormatCloneMem)
}

// LoadKnowMe reads a KnowMe-Bench dataset directory (input/, question/,
// answer/) without format detection.
func LoadKnowMe(path string) (*Dataset, error) {
	return loadPath(path, FormatKnowMe)
}

// LoadLoCoMo reads a LoCoMo conversation file, locomo10.json's list of
// conversations, or a directory of conversation files, without format
// detection.
func LoadLoCoMo(path string) (*Dataset, error) {
	return loadPath(path, FormatLoCoMo)
}

// LoadFS reads the dataset at root inside fsys (a file or a directory; "."
// for the whole file system), detecting its format as Load does. source is
// recorded as Dataset.Source and names the files in error messages (e.g.
// "embedded:sample").
func LoadFS(fsys fs.FS, root, source string) (*Dataset, error) {
	return LoadFormatFS(fsys, root, source, "")
}

// LoadFormatFS is LoadFS with the format given: FormatCloneMem, FormatKnowMe,
// or "" to detect it.
func LoadFormatFS(fsys fs.FS, root, source, format string) (*Dataset, error) {
	l := &loader{fsys: fsys, root: path.Clean(root), source: source, op: opName(format)}
	if !fs.ValidPath(l.root) {
		return nil, l.errf("invalid root %q: want an unrooted slash-separated path", root)
	}
	fi, err := fs.Stat(fsys, l.root)
	if err != nil {
		return nil, l.errf("%w", err)
	}
	l.isFile = !fi.IsDir()
	if l.source == "" {
		l.source = l.root
	}
	defer activity.Begin("loading %s", l.source)()
	if format == "" {
		format, err = l.detect()
		if err != nil {
			return nil, err
		}
		l.op = opName(format)
	}
	var d *Dataset
	switch format {
	case FormatCloneMem:
		d, err = l.cloneMem()
	case FormatKnowMe:
		d, err = l.knowMe()
	case FormatLoCoMo:
		d, err = l.loCoMo()
	default:
		return nil, l.errf("unknown format %q: want %q, %q or %q", format, FormatCloneMem, FormatKnowMe, FormatLoCoMo)
	}
	if err != nil {
		return nil, err
	}
	d.Report.Defects = append(l.rep.Defects, d.Report.Defects...)
	d.Source = l.source
	if d.Name == "" {
		d.Name = datasetName(l.root, l.source)
	}
	d.Fingerprint = l.fingerprint()
	nt := 0
	for _, c := range d.Corpora {
		nt += len(c.Traces)
	}
	if nt == 0 || len(d.Questions) == 0 {
		return nil, l.errf("empty dataset: %d traces, %d questions", nt, len(d.Questions))
	}
	return d, nil
}

func opName(format string) string {
	if format == "" {
		return "load"
	}
	return "load " + format
}

// loadPath opens an OS path as an fs.FS rooted at the path (a directory) or at
// its parent (a file).
func loadPath(p, format string) (*Dataset, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("datasets: %s %q: %w", opName(format), p, err)
	}
	if fi.IsDir() {
		return LoadFormatFS(os.DirFS(p), ".", p, format)
	}
	return LoadFormatFS(os.DirFS(filepath.Dir(p)), filepath.Base(p), p, format)
}

// datasetName is the base name of the source without a .json extension.
func datasetName(root, source string) string {
	name := root
	if name == "." || name == "" {
		src := filepath.Clean(source)
		if abs, err := filepath.Abs(src); err == nil && (src == "." || src == "..") {
			src = abs
		}
		name = filepath.Base(src)
	} else {
		name = path.Base(name)
	}
	if strings.EqualFold(path.Ext(name), ".json") {
		name = name[:len(name)-len(".json")]
	}
	return name
}

// loader carries one load: the file system, where it is rooted, and the
// files read (for the fingerprint).
type loader struct {
	fsys   fs.FS
	root   string // a directory or a file inside fsys
	isFile bool
	source string // recorded as Dataset.Source; prefixes file names in errors
	op     string // "load", "load clonemem", "load knowme"
	files  map[string][]byte
	parsed map[string]any
	// rep holds the defects found while reading files (encoding), put
	// first in the dataset's report.
	rep Report
}

func (l *loader) errf(format string, args ...any) error {
	return fmt.Errorf("datasets: %s %q: "+format, append([]any{l.op, l.source}, args...)...)
}

// display names a file (relative to the root) for messages.
func (l *loader) display(rel string) string {
	if l.isFile {
		return l.source
	}
	return path.Join(l.source, rel)
}

// where prefixes a message about a file: "" for a single-file load (the
// source already names it), the file's name and ": " otherwise.
func (l *loader) where(rel string) string {
	if l.isFile {
		return ""
	}
	return l.display(rel) + ": "
}

// full is the name of a file (relative to the root) inside fsys.
func (l *loader) full(rel string) string {
	if l.isFile {
		return l.root
	}
	return path.Join(l.root, rel)
}

// read reads a file (relative to the root) and records it for the fingerprint.
func (l *loader) read(rel string) ([]byte, error) {
	data, err := fs.ReadFile(l.fsys, l.full(rel))
	if err != nil {
		return nil, l.errf("read %s: %w", l.display(rel), err)
	}
	if l.files == nil {
		l.files = map[string][]byte{}
	}
	l.files[rel] = data
	return data, nil
}

// fingerprint is the hex SHA-256 over the files read, in name order: for
// each, its name relative to the dataset root (slash-separated; the base name
// for a single file), a NUL byte, its length in decimal, a NUL byte, then its
// bytes.
func (l *loader) fingerprint() string {
	names := make([]string, 0, len(l.files))
	for n := range l.files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		data := l.files[n]
		io.WriteString(h, n)
		h.Write([]byte{0})
		io.WriteString(h, strconv.Itoa(len(data)))
		h.Write([]byte{0})
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// utf8BOM is the UTF-8 byte-order mark.
var utf8BOM = []byte("\ufeff")

// decode reads and parses one JSON file. Numbers are kept as json.Number.
// Malformed JSON is an error naming file:line:column. A leading UTF-8
// byte-order mark is skipped and reported, and so is every string holding
// bytes that are not UTF-8 (read with U+FFFD in their place), with its JSON
// path (DefectEncoding).
func (l *loader) decode(rel string) (any, error) {
	if v, ok := l.parsed[rel]; ok {
		return v, nil
	}
	data, err := l.read(rel)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(data, utf8BOM) {
		data = data[len(utf8BOM):]
		l.rep.Add(rel, "", DefectEncoding, "the file starts with a UTF-8 byte-order mark (skipped; JSON has none)")
	}
	v, err := decodeJSON(data)
	if err != nil {
		return nil, l.jsonError(rel, data, err)
	}
	if !utf8.Valid(data) {
		for _, b := range invalidUTF8(data) {
			line, col := lineCol(data, int64(b.off))
			l.rep.Add(rel, b.path, DefectEncoding, fmt.Sprintf("%s holds bytes that are not UTF-8 (the first at line %d, column %d); read with U+FFFD in their place", b.what, line, col))
		}
	}
	if l.parsed == nil {
		l.parsed = map[string]any{}
	}
	l.parsed[rel] = v
	return v, nil
}

// badBytes is a string of a JSON document holding bytes that are not UTF-8:
// its JSON path, "a key" or "a string", and the offset of the first bad
// byte.
type badBytes struct {
	path, what string
	off        int
}

// invalidUTF8 finds the strings (keys and values) of a well-formed JSON
// document that hold bytes that are not UTF-8; invalid bytes can only be
// inside strings, anything else is a syntax error.
func invalidUTF8(data []byte) []badBytes {
	type frame struct {
		path         string
		obj, wantKey bool
		key          string
		idx          int
	}
	var st []frame
	valuePath := func() string {
		if len(st) == 0 {
			return "$"
		}
		f := st[len(st)-1]
		if f.obj {
			return jsonPath(f.path, f.key)
		}
		return index(f.path, f.idx)
	}
	advance := func() {
		if len(st) == 0 {
			return
		}
		if f := &st[len(st)-1]; f.obj {
			f.wantKey = true
		} else {
			f.idx++
		}
	}
	firstBad := func(b []byte, base int) int {
		for i := 0; i < len(b); {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				return base + i
			}
			i += n
		}
		return base
	}
	var out []badBytes
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		after := int(dec.InputOffset())
		bad := !utf8.Valid(data[before:after])
		if n := len(st); n > 0 && st[n-1].obj && st[n-1].wantKey {
			key, isKey := tok.(string)
			if !isKey { // the closing brace
				st = st[:n-1]
				advance()
				continue
			}
			st[n-1].key, st[n-1].wantKey = key, false
			if bad {
				out = append(out, badBytes{jsonPath(st[n-1].path, key), "the key", firstBad(data[before:after], before)})
			}
			continue
		}
		switch d, _ := tok.(json.Delim); d {
		case '{':
			st = append(st, frame{path: valuePath(), obj: true, wantKey: true})
		case '[':
			st = append(st, frame{path: valuePath()})
		case '}', ']':
			st = st[:len(st)-1]
			advance()
		default:
			if bad {
				out = append(out, badBytes{valuePath(), "the string", firstBad(data[before:after], before)})
			}
			advance()
		}
	}
}

// posError is a JSON error at a 0-based byte offset.
type posError struct {
	off int64
	err error
}

func (e *posError) Error() string { return e.err.Error() }
func (e *posError) Unwrap() error { return e.err }

// decodeJSON parses one JSON value and rejects trailing data.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return nil, &posError{off: int64(len(data)), err: errors.New("empty file")}
		}
		return nil, err
	}
	off := dec.InputOffset()
	rest := data[off:]
	trimmed := bytes.TrimLeft(rest, " \t\r\n")
	if len(trimmed) > 0 {
		return nil, &posError{off: off + int64(len(rest)-len(trimmed)), err: errors.New("unexpected data after the top-level value")}
	}
	return v, nil
}

// jsonError turns a decoding error into one that names file:line:column.
func (l *loader) jsonError(rel string, data []byte, err error) error {
	off := int64(len(data))
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var pe *posError
	switch {
	case errors.As(err, &pe):
		off = pe.off
	case errors.As(err, &se):
		off = se.Offset - 1 // Offset counts the bytes read, the bad one included
	case errors.As(err, &te):
		off = te.Offset - 1
	}
	line, col := lineCol(data, off)
	return l.errf("%s:%d:%d: malformed JSON: %w", l.display(rel), line, col, err)
}

// lineCol gives the 1-based line and column (in characters) of byte offset
// off in data.
func lineCol(data []byte, off int64) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	prefix := data[:off]
	line = 1 + bytes.Count(prefix, []byte{'\n'})
	start := bytes.LastIndexByte(prefix, '\n') + 1
	col = 1 + utf8.RuneCount(prefix[start:])
	return line, col
}

// detect finds the format of the root.
func (l *loader) detect() (string, error) {
	const lookedFor = "looked for a CloneMem persona file (a .json object with \"context\" and \"questions\" or \"qa_items\"), " +
		"a directory of such files, a KnowMe-Bench directory (with input/ and question/ subdirectories), " +
		"or a LoCoMo conversation (a .json object with \"speaker_a\", \"session_N\" and \"qa\"; locomo10.json's list of them; a directory of them)"
	if l.isFile {
		if !strings.EqualFold(path.Ext(l.root), ".json") {
			return "", l.errf("unknown format: %s", lookedFor)
		}
		v, err := l.decode(path.Base(l.root))
		if err != nil {
			return "", err
		}
		if isPersona(v) {
			return FormatCloneMem, nil
		}
		if isLoCoMo(v) {
			return FormatLoCoMo, nil
		}
		return "", l.errf("unknown format: %s; got a JSON %s", lookedFor, describeShape(v))
	}
	entries, err := fs.ReadDir(l.fsys, l.root)
	if err != nil {
		return "", l.errf("%w", err)
	}
	if findDir(entries, "input") != "" && findDir(entries, "question") != "" {
		return FormatKnowMe, nil
	}
	files, err := l.jsonFiles(l.root)
	if err != nil {
		return "", err
	}
	if len(files) > 0 {
		v, err := l.decode(files[0])
		if err != nil {
			return "", err
		}
		if isPersona(v) {
			return FormatCloneMem, nil
		}
		if isLoCoMo(v) {
			return FormatLoCoMo, nil
		}
		return "", l.errf("unknown format: %s; %s is a JSON %s", lookedFor, l.display(files[0]), describeShape(v))
	}
	return "", l.errf("unknown format: %s; found no .json file", lookedFor)
}

// isPersona reports whether v is a CloneMem persona object.
func isPersona(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, c := m["context"]
	_, q := m["questions"]
	_, qa := m["qa_items"]
	return c && (q || qa)
}

// describeShape names the JSON type of v for messages, e.g. "list" or
// "object with keys a, b".
func describeShape(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) > 8 {
			keys = append(keys[:8], "...")
		}
		return "object with keys " + strings.Join(keys, ", ")
	default:
		return jsonType(v)
	}
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "list"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return fmt.Sprintf("%T", v)
}

// findDir returns the name of the subdirectory called name (ignoring case),
// or "".
func findDir(entries []fs.DirEntry, name string) string {
	for _, e := range entries {
		if e.IsDir() && strings.EqualFold(e.Name(), name) {
			return e.Name()
		}
	}
	return ""
}

// jsonFiles lists the .json files under dir (recursively, skipping hidden
// entries), relative to the root, in name order.
func (l *loader) jsonFiles(dir string) ([]string, error) {
	var out []string
	err := fs.WalkDir(l.fsys, dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(e.Name(), ".") {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !e.IsDir() && strings.EqualFold(path.Ext(p), ".json") {
			rel := p
			if l.root != "." {
				rel = strings.TrimPrefix(p, l.root+"/")
			}
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		return nil, l.errf("list %s: %w", l.display(strings.TrimPrefix(dir, l.root)), err)
	}
	sort.Strings(out)
	return out, nil
}

// datasetFiles lists the files of a format whose dataset is one .json
// file or a directory of them: the root itself when it is a file, else the
// .json files under it (an error naming what, e.g. "CloneMem persona
// files", when there is none).
func (l *loader) datasetFiles(what string) ([]string, error) {
	if l.isFile {
		return []string{path.Base(l.root)}, nil
	}
	files, err := l.jsonFiles(l.root)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, l.errf("no %s: found no .json file", what)
	}
	return files, nil
}

// --- value helpers shared by the loaders ---

// idString renders an id: strings as written, integers in decimal, other
// numbers in their shortest form. ok is false for other types.
func idString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return strconv.FormatInt(i, 10), true
		}
		if f, err := x.Float64(); err == nil {
			return strconv.FormatFloat(f, 'f', -1, 64), true
		}
		return x.String(), true
	}
	return "", false
}

// normalize converts decoded JSON into plain Go values for Extra and Fields:
// integers become int, other numbers float64, recursively.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil && int64(int(i)) == i {
			return int(i)
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	}
	return v
}

// text is textOf(v) for a field that should hold text, reporting a value
// that is not a string or null (DefectNotText) at file and path; name is
// the field's name in the message.
func (r *Report) text(file, path, name string, v any) string {
	switch v.(type) {
	case nil, string:
	default:
		r.Add(file, path, DefectNotText, fmt.Sprintf("%s is a JSON %s; want a string (read as %q)", name, jsonType(v), text.Clip(textOf(v), 60)))
	}
	return textOf(v)
}

// textOf renders a value as text: strings as they are, numbers and booleans
// in their JSON form, lists of strings one per line, anything else as JSON.
func textOf(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case []any:
		lines := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				b, _ := json.Marshal(x)
				return string(b)
			}
			lines = append(lines, s)
		}
		return strings.Join(lines, "\n")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// jsonPath appends an object key to a JSON path: ".key" when key is a plain
// identifier, `["key"]` otherwise.
func jsonPath(p, key string) string {
	plain := key != ""
	for i, r := range key {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			plain = false
			break
		}
	}
	if plain {
		return p + "." + key
	}
	return p + "[" + strconv.Quote(key) + "]"
}

// index appends a list index to a JSON path.
func index(p string, i int) string { return p + "[" + strconv.Itoa(i) + "]" }

// isCJK reports whether r is a Chinese, Japanese or Korean character.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// detectLanguage guesses "zh" when at least a fifth of the letters in texts
// are CJK characters, "en" when there are letters, "" otherwise.
func detectLanguage(texts []string) string {
	cjk, letters := 0, 0
	for _, s := range texts {
		for _, r := range s {
			if isCJK(r) {
				cjk++
				letters++
			} else if unicode.IsLetter(r) {
				letters++
			}
		}
	}
	switch {
	case letters == 0:
		return ""
	case cjk*5 >= letters:
		return "zh"
	}
	return "en"
}
