package runs

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/sqlitedb"
	"github.com/memlab/memlab/retrieval"
)

// countingReader counts answers and fails the first attempt of the
// questions in failOnce.
type countingReader struct {
	generate.Reader
	n        atomic.Int64
	failOnce map[string]*atomic.Bool
}

func (c *countingReader) Answer(ctx context.Context, q datasets.Question, p []generate.Passage) (generate.Answer, error) {
	c.n.Add(1)
	if f := c.failOnce[q.ID]; f != nil && f.CompareAndSwap(false, true) {
		return generate.Answer{}, errors.New("endpoint said 503")
	}
	return c.Reader.Answer(ctx, q, p)
}

func openStore(t *testing.T) *Store {
	t.Helper()
	s, err := OpenStore(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func sampleFlat(t *testing.T) (*datasets.Dataset, retrieval.System) {
	t.Helper()
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	return d, flat
}

// sameRecords compares records ignoring latency and how many calls the
// cache served (a resumed run finds in the cache the calls it made before
// a kill).
func sameRecords(t *testing.T, a, b []Record) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d records, want %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Latency, y.Latency = 0, 0
		for _, u := range []*Usage{&x.Usage, &y.Usage} {
			u.Retrieve.Cached, u.Read.Cached, u.Judge.Cached = 0, 0, 0
		}
		xj, _ := MarshalRecord(x)
		yj, _ := MarshalRecord(y)
		if !bytes.Equal(xj, yj) {
			t.Fatalf("record %d differs:\n%s\n%s", i, xj, yj)
		}
	}
}

func TestRunStoreResumesAndSkipsCompleted(t *testing.T) {
	st := openStore(t)
	d, flat := sampleFlat(t)
	r := &countingReader{Reader: generate.NewExtractive()}
	cfg := Config{System: flat, Reader: r, K: 5}
	first, err := Run(context.Background(), d, cfg, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if first.Resumed != 0 || len(first.Records) != len(d.Questions) {
		t.Fatalf("first run: resumed %d, %d records of %d", first.Resumed, len(first.Records), len(d.Questions))
	}
	calls := r.n.Load()
	if calls == 0 {
		t.Fatal("the reader was not called")
	}
	for _, rec := range first.Records {
		if rec.Latency <= 0 {
			t.Fatalf("record %s has latency %v", rec.QuestionID, rec.Latency)
		}
	}
	again, err := Run(context.Background(), d, cfg, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.n.Load() - calls; got != 0 {
		t.Errorf("a rerun of a finished config called the reader %d times, want 0", got)
	}
	if again.Resumed != len(d.Questions) || again.ID != first.ID {
		t.Errorf("rerun: resumed %d of %d, id %s vs %s", again.Resumed, len(d.Questions), again.ID, first.ID)
	}
	sameRecords(t, again.Records, first.Records)
	if a, b := again.Summary(), first.Summary(); a.Retrieval != b.Retrieval {
		t.Errorf("summaries differ: %+v vs %+v", a.Retrieval, b.Retrieval)
	}
	info, err := st.Run(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Complete() || info.Sessions != 2 || info.Owner != "" || info.Spec.JSON() != first.Spec.JSON() {
		t.Errorf("run info: %+v", info)
	}
	if info.CodeVersion == "" {
		t.Error("no code version recorded")
	}
}

func TestRunStoreRetriesFailedAndKeepsHistory(t *testing.T) {
	st := openStore(t)
	d, flat := sampleFlat(t)
	bad := d.Questions[3].ID
	r := &countingReader{Reader: generate.NewExtractive(), failOnce: map[string]*atomic.Bool{bad: {}}}
	cfg := Config{System: flat, Reader: r, K: 5}
	first, err := Run(context.Background(), d, cfg, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if s := first.Summary(); s.Failed != 1 {
		t.Fatalf("first run: %d failed, want 1", s.Failed)
	}
	info, _ := st.Run(first.ID)
	if info.Failed != 1 || info.Done != len(d.Questions)-1 {
		t.Fatalf("store after the first run: done %d failed %d", info.Done, info.Failed)
	}
	calls := r.n.Load()
	second, err := Run(context.Background(), d, cfg, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if second.Resumed != len(d.Questions)-1 {
		t.Errorf("second run resumed %d, want %d", second.Resumed, len(d.Questions)-1)
	}
	// Only the failed question is asked again (once or twice: free text,
	// plus multiple choice when it has options).
	want := int64(1)
	if d.Questions[3].IsMultipleChoice() {
		want = 2
	}
	if got := r.n.Load() - calls; got != want {
		t.Errorf("retry made %d reader calls, want %d", got, want)
	}
	if s := second.Summary(); s.Failed != 0 {
		t.Errorf("after the retry %d failed", s.Failed)
	}
	hist, err := st.Failures(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 1 || hist[0].QuestionID != bad || hist[0].Attempt != 1 || !strings.Contains(hist[0].Failure, "503") {
		t.Errorf("failure history %+v", hist)
	}
	var attempts int
	if err := st.db.QueryRow(`SELECT attempts FROM records WHERE run_id = ? AND question_id = ?`, first.ID, bad).Scan(&attempts); err != nil || attempts != 2 {
		t.Errorf("attempts %d (%v), want 2", attempts, err)
	}
}

func TestRunIDFollowsTheConfig(t *testing.T) {
	st := openStore(t)
	d, flat := sampleFlat(t)
	base := Config{System: flat, Reader: generate.NewExtractive(), K: 5}
	ids := map[string]string{}
	add := func(name string, d *datasets.Dataset, cfg Config) {
		res, err := Run(context.Background(), d, cfg, Options{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		if res.Resumed != 0 {
			t.Errorf("%s: resumed %d records of another config", name, res.Resumed)
		}
		for n, id := range ids {
			if id == res.ID {
				t.Errorf("%s has the run id of %s", name, n)
			}
		}
		ids[name] = res.ID
	}
	add("base", d, base)
	k10 := base
	k10.K = 10
	add("k=10", d, k10)
	seeded := base
	seeded.Params = map[string]string{"seed": "2"}
	add("seed=2", d, seeded)
	sub := *d
	sub.Questions = d.Questions[:10]
	add("10 questions", &sub, base)
	other := *d
	other.Fingerprint = "changed"
	add("other fingerprint", &other, base)
	// Label and options are not part of the id.
	labelled := base
	labelled.Label = "my label"
	res, err := Run(context.Background(), d, labelled, Options{Store: st, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != ids["base"] || res.Resumed != len(d.Questions) {
		t.Errorf("a label changed the run: id %s (base %s), resumed %d", res.ID, ids["base"], res.Resumed)
	}
	runs, err := st.Runs()
	if err != nil || len(runs) != 5 {
		t.Fatalf("%d runs (%v), want 5", len(runs), err)
	}
}

func TestRunStoreRefusesOrWaitsForABusyRun(t *testing.T) {
	st := openStore(t)
	d, flat := sampleFlat(t)
	cfg := Config{System: flat, Reader: generate.NewExtractive(), K: 5}
	spec := SpecOf(d, cfg)
	l, err := st.begin(context.Background(), spec, "holder", false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), d, cfg, Options{Store: st})
	if !errors.Is(err, ErrRunBusy) || !strings.Contains(err.Error(), fmt.Sprintf("process %d", os.Getpid())) {
		t.Fatalf("second runner: %v, want ErrRunBusy naming process %d", err, os.Getpid())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, err = Run(ctx, d, cfg, Options{Store: st, Wait: true})
	cancel()
	if !errors.Is(err, ErrRunBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting runner: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), d, cfg, Options{Store: st, Wait: true})
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := l.release(retrieval.Meter{}, 0); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the waiting runner failed after the release: %v", err)
	}
}

func TestRunStoreTakesOverADeadProcess(t *testing.T) {
	st := openStore(t)
	d, flat := sampleFlat(t)
	cfg := Config{System: flat, Reader: generate.NewExtractive(), K: 5}
	spec := SpecOf(d, cfg)
	l, err := st.begin(context.Background(), spec, "dead", false)
	if err != nil {
		t.Fatal(err)
	}
	close(l.stop)
	<-l.done
	// A process that no longer exists (pid above the kernel's pid_max).
	if _, err := st.db.Exec(`UPDATE runs SET owner = ? WHERE id = ?`, hostname+" 99999999 dead", spec.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), d, cfg, Options{Store: st}); err != nil {
		t.Fatalf("a run held by a dead process was not taken over: %v", err)
	}
	// Another host's fresh lease is respected, a stale one is not.
	if _, err := st.db.Exec(`UPDATE runs SET owner = 'elsewhere 1 x', heartbeat = ? WHERE id = ?`, time.Now().UnixMilli(), spec.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), d, cfg, Options{Store: st}); !errors.Is(err, ErrRunBusy) {
		t.Fatalf("fresh lease of another host: %v", err)
	}
	if _, err := st.db.Exec(`UPDATE runs SET heartbeat = ? WHERE id = ?`, time.Now().Add(-2*LeaseTimeout).UnixMilli(), spec.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), d, cfg, Options{Store: st}); err != nil {
		t.Fatalf("stale lease of another host: %v", err)
	}
}

func TestStoreMigratesFromSchemaVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, _, err := sqlitedb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqlitedb.Migrate(context.Background(), db, "run store", storeMigrations[:1]); err != nil {
		t.Fatal(err)
	}
	// A version 1 store as the first memlab wrote it: one run, two records.
	d, flat := sampleFlat(t)
	cfg := Config{System: flat, Reader: generate.NewExtractive(), K: 5}
	ref, err := Run(context.Background(), d, cfg, Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	spec := ref.Spec
	_, err = db.Exec(`INSERT INTO runs (id, label, dataset, fingerprint, system, reader, k, spec, code_version, questions, created_at, updated_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`, spec.ID(), "old", spec.Dataset, spec.Fingerprint, spec.System, spec.Reader, spec.K,
		spec.JSON(), "v0", spec.Questions, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		data, _ := MarshalRecord(ref.Records[i])
		if _, err := db.Exec(`INSERT INTO records (run_id, question_id, ord, failure, latency_us, data, written_at) VALUES (?,?,?,?,?,?,?)`,
			spec.ID(), ref.Records[i].QuestionID, i, "", 0, string(data), 1); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	st, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v string
	if err := st.db.QueryRow(`SELECT value FROM meta WHERE name = 'schema_version'`).Scan(&v); err != nil || v != fmt.Sprint(StoreSchemaVersion) {
		t.Fatalf("schema version %q (%v), want %d", v, err, StoreSchemaVersion)
	}
	info, err := st.Run(spec.ID()[:6])
	if err != nil {
		t.Fatal(err)
	}
	if info.Done != 2 || info.Meter != (retrieval.Meter{}) || info.Sessions != 0 {
		t.Errorf("migrated run: %+v", info)
	}
	res, err := Run(context.Background(), d, cfg, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 2 {
		t.Errorf("resumed %d records of the old store, want 2", res.Resumed)
	}
	sameRecords(t, res.Records, ref.Records)
}

func TestStoreRefusesANewerSchemaAndForeignFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new.db")
	st, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	st.db.Exec(`UPDATE meta SET value = '99' WHERE name = 'schema_version'`)
	st.Close()
	if _, err := OpenStore(path); err == nil || !strings.Contains(err.Error(), "newer") || !strings.Contains(err.Error(), path) {
		t.Errorf("newer schema: %v", err)
	}
	foreign := filepath.Join(dir, "foreign.db")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	db.Exec(`CREATE TABLE x (y)`)
	db.Close()
	if _, err := OpenStore(foreign); err == nil || !strings.Contains(err.Error(), "not a memlab run store") {
		t.Errorf("foreign file: %v", err)
	}
}

func TestRunStopsCleanlyWhenTheStoreIsFull(t *testing.T) {
	st := openStore(t)
	st.db.SetMaxOpenConns(1) // max_page_count is per connection
	var pages int
	if err := st.db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages+12)); err != nil {
		t.Fatal(err)
	}
	d, flat := sampleFlat(t)
	cfg := Config{System: flat, Reader: generate.NewExtractive(), K: 10}
	res, err := Run(context.Background(), d, cfg, Options{Store: st, Workers: 2})
	if err == nil {
		t.Fatal("a full store did not stop the run")
	}
	if !strings.Contains(err.Error(), "full") || !strings.Contains(err.Error(), "completed records are kept") {
		t.Errorf("error does not say the store is full and records are kept: %v", err)
	}
	kept, err2 := st.Records(res.ID)
	if err2 != nil {
		t.Fatal(err2)
	}
	if len(kept) == 0 || len(kept) >= len(d.Questions) || len(kept) != len(res.Records) {
		t.Fatalf("kept %d records, result has %d, of %d questions", len(kept), len(res.Records), len(d.Questions))
	}
	// Space again: the run resumes with what was kept.
	if _, err := st.db.Exec(`PRAGMA max_page_count = 1073741823`); err != nil {
		t.Fatal(err)
	}
	again, err := Run(context.Background(), d, cfg, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if again.Resumed != len(kept) || len(again.Records) != len(d.Questions) {
		t.Errorf("resumed %d of %d kept, %d records", again.Resumed, len(kept), len(again.Records))
	}
	ref, _ := Run(context.Background(), d, cfg, Options{NoStore: true})
	sameRecords(t, again.Records, ref.Records)
}

func TestRecordJSONRoundTrip(t *testing.T) {
	d, flat := sampleFlat(t)
	res, err := Run(context.Background(), d, Config{System: flat, Reader: generate.NewExtractive(), K: 5}, Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Records[0]
	r.Judges["undefined"] = math.NaN()
	r.Judges["inf"] = math.Inf(-1)
	r.Latency = 1234567 * time.Nanosecond
	b, err := MarshalRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(back.Judges["undefined"]) || !math.IsInf(back.Judges["inf"], -1) || back.Latency != r.Latency {
		t.Errorf("round trip lost values: %v %v %v", back.Judges["undefined"], back.Judges["inf"], back.Latency)
	}
	delete(back.Judges, "undefined")
	delete(r.Judges, "undefined")
	if !reflect.DeepEqual(back, r) {
		t.Errorf("round trip changed the record:\n%+v\n%+v", back, r)
	}
	if _, err := UnmarshalRecord([]byte(`{"judges":{"x":"NaN?"}}`)); err == nil {
		t.Error("a bad number was accepted")
	}
}

// TestDecodeRecordsNamesTheFirstBadOne: records decode on several
// goroutines, in order, and a bad one is reported by its place.
func TestDecodeRecordsNamesTheFirstBadOne(t *testing.T) {
	var datas [][]byte
	for i := 0; i < 300; i++ {
		b, err := MarshalRecord(Record{QuestionID: fmt.Sprint("q", i)})
		if err != nil {
			t.Fatal(err)
		}
		datas = append(datas, b)
	}
	recs, _, err := decodeRecords(datas)
	if err != nil || len(recs) != 300 || recs[0].QuestionID != "q0" || recs[299].QuestionID != "q299" {
		t.Fatalf("decode: %d records, %v", len(recs), err)
	}
	datas[200], datas[250] = []byte("{"), []byte("[")
	if _, i, err := decodeRecords(datas); err == nil || i != 200 {
		t.Errorf("bad records at 200 and 250: got index %d, %v", i, err)
	}
}
