package runstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// queueMigration (SQLite) and pgQueueMigration (PostgreSQL) add the work
// queue: jobs holds, per queued run, how a worker rebuilds it (Job as
// JSON); work holds its work items, each a question or a corpus's
// questions, with the claim of the worker doing it (owner, claims as the
// claim's fencing token, expires_at on the lease clock).
const queueMigration = `
CREATE TABLE jobs (
	run_id     TEXT PRIMARY KEY NOT NULL REFERENCES runs(id),
	job        TEXT NOT NULL,              -- Job as JSON
	created_at INTEGER NOT NULL,           -- unix milliseconds of the first enqueue
	largest    INTEGER NOT NULL DEFAULT 1  -- questions of the run's largest item
);
CREATE TABLE work (
	run_id     TEXT NOT NULL REFERENCES runs(id),
	item       TEXT NOT NULL,              -- Item.Key
	seq        INTEGER NOT NULL,           -- claim order within the run
	questions  TEXT NOT NULL,              -- Item.Questions as a JSON list, in asking order
	size       INTEGER NOT NULL,           -- how many
	state      TEXT NOT NULL DEFAULT 'todo', -- todo, claimed or done
	owner      TEXT NOT NULL DEFAULT '',   -- "host pid token" of the claiming worker
	claims     INTEGER NOT NULL DEFAULT 0, -- times claimed: the claim's fencing token
	expires_at INTEGER NOT NULL DEFAULT 0, -- unix milliseconds: the claim's lease
	PRIMARY KEY (run_id, item)
);
CREATE INDEX work_open ON work (run_id, seq) WHERE state <> 'done';
CREATE INDEX work_owner ON work (owner) WHERE state = 'claimed';
`

const pgQueueMigration = `
CREATE TABLE jobs (
	run_id     TEXT COLLATE "C" PRIMARY KEY NOT NULL REFERENCES runs(id) DEFERRABLE INITIALLY DEFERRED,
	job        TEXT NOT NULL,
	created_at BIGINT NOT NULL,
	largest    INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE work (
	run_id     TEXT COLLATE "C" NOT NULL REFERENCES runs(id) DEFERRABLE INITIALLY DEFERRED,
	item       TEXT COLLATE "C" NOT NULL,
	seq        INTEGER NOT NULL,
	questions  TEXT NOT NULL,
	size       INTEGER NOT NULL,
	state      TEXT NOT NULL DEFAULT 'todo',
	owner      TEXT NOT NULL DEFAULT '',
	claims     INTEGER NOT NULL DEFAULT 0,
	expires_at BIGINT NOT NULL DEFAULT 0,  -- unix milliseconds of the server's clock
	PRIMARY KEY (run_id, item)
);
CREATE INDEX work_open ON work (run_id, seq) WHERE state <> 'done';
CREATE INDEX work_owner ON work (owner) WHERE state = 'claimed';
`

// Job is how a worker rebuilds a queued run (Enqueue): the catalog's spec
// strings of its components, k, the parameters, and where the enqueuing
// process read the dataset. It holds no secret: the model endpoints come
// from each worker's own configuration, and a worker checks that what it
// builds has the run's id (a dataset, model or knob that differs gives
// another id, and the worker refuses the run).
type Job struct {
	// System, Reader and Judges are catalog spec strings
	// ("flat(bm25)", "reader", "judge(knowme)").
	System string   `json:"system"`
	Reader string   `json:"reader"`
	Judges []string `json:"judges,omitempty"`
	K      int      `json:"k"`
	// Params are the run's parameters (runs.Config.Params).
	Params map[string]string `json:"params,omitempty"`
	// Label names the run in listings.
	Label string `json:"label,omitempty"`
	// Data is the path the enqueuing process opened the dataset at
	// (datasets.Dataset.Source; "" or "embedded:..." for the bundled
	// sample), Errata the errata file it applied ("" = none) and Persona
	// the one corpus the run is restricted to ("" = every corpus). A
	// worker may be given the dataset at another path: it is recognized
	// by its fingerprint.
	Data    string `json:"data,omitempty"`
	Errata  string `json:"errata,omitempty"`
	Persona string `json:"persona,omitempty"`
}

// Item is one work item of a queued run: the questions one worker does in
// one claim, in the order it asks them. A system that retrieves for any
// question in any order (retrieval.Concurrent) has an item per question;
// an incremental memory an item per corpus (persona), its questions in
// asked-at order, never split.
type Item struct {
	// Key names the item within its run: a question id, or "corpus " and a
	// corpus id.
	Key       string
	Questions []string
}

// Work item states.
const (
	stateTodo    = "todo"
	stateClaimed = "claimed"
	stateDone    = "done"
)

// ErrClaimLost is returned (wrapped) by a Claim's Put, Done and Abandon
// when the claim is no longer the worker's: its lease ran out and another
// worker claimed the item (or the item was done by another). Nothing is
// written then; the worker holding the item now writes its records.
var ErrClaimLost = errors.New("the claim on this work item was lost to another worker")

// Enqueue queues run spec.ID() for workers: the run is recorded as Begin
// records it (a stored run of that id must have the same spec), job says
// how a worker rebuilds it, and items are its work items, each claimed by
// one worker at a time (Claimer). Enqueueing a queued run again queues its
// done items again (a worker finds their records complete and asks
// nothing, or does again the steps that failed, as a rerun does); items
// being worked are left to their workers. A run held by a live process
// through Begin is ErrRunBusy.
func (s *Store) Enqueue(ctx context.Context, spec record.Spec, job Job, items []Item) error {
	id := spec.ID()
	if s.readOnly {
		return s.errReadOnly("enqueue run " + id)
	}
	if len(items) == 0 {
		return fmt.Errorf("runstore: enqueue run %s in %s: no work items", id, s.path)
	}
	jobJSON, err := json.Marshal(job)
	if err != nil {
		return fmt.Errorf("runstore: enqueue run %s in %s: %w", id, s.path, err)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	fail := func(err error) error {
		return fmt.Errorf("runstore: enqueue run %s in %s: %w", id, s.path, explainStore(s.path, err))
	}
	tx, err := s.db.BeginTx(ctx, s.txOptions())
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	if err := s.lockRun(ctx, tx, id); err != nil {
		return fail(fmt.Errorf("lock: %w", err))
	}
	now, err := s.now(ctx, tx)
	if err != nil {
		return fail(fmt.Errorf("read the clock: %w", err))
	}
	stored, holder, hb, err := s.runRow(ctx, tx, id, spec)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO runs (id, label, dataset, fingerprint, system, reader, k, spec, code_version,
			questions, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`),
			id, s.text(job.Label), spec.Dataset, spec.Fingerprint, spec.System, spec.Reader, spec.K, spec.JSON(), record.CodeVersion(),
			spec.Questions, now.UnixMilli(), now.UnixMilli())
	case err != nil:
	default:
		if stored != spec.JSON() {
			return fmt.Errorf("runstore: run %s in %s has another spec (%s) than this config (%s): the store is inconsistent; delete the run",
				id, s.path, stored, spec.JSON())
		}
		if holderAlive(holder, time.UnixMilli(hb), now) {
			return fmt.Errorf("runstore: enqueue run %s (%s) in %s: %w: %s, lease renewed %s ago; wait for it to finish or stop it",
				id, job.Label, s.path, ErrRunBusy, describeOwner(holder), now.Sub(time.UnixMilli(hb)).Round(time.Second))
		}
		_, err = tx.ExecContext(ctx, s.q(`UPDATE runs SET label = ?, updated_at = ? WHERE id = ?`), s.text(job.Label), now.UnixMilli(), id)
	}
	if err != nil {
		return fail(err)
	}
	largest := 0
	for _, it := range items {
		largest = max(largest, len(it.Questions))
	}
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO jobs (run_id, job, created_at, largest) VALUES (?,?,?,?)
		ON CONFLICT(run_id) DO UPDATE SET job = excluded.job, largest = excluded.largest`), id, string(jobJSON), now.UnixMilli(), largest); err != nil {
		return fail(err)
	}
	const batch = 500
	for start := 0; start < len(items); start += batch {
		part := items[start:min(start+batch, len(items))]
		var b strings.Builder
		b.WriteString(`INSERT INTO work (run_id, item, seq, questions, size) VALUES `)
		args := make([]any, 0, 5*len(part))
		for i, it := range part {
			if it.Key == "" || len(it.Questions) == 0 {
				return fail(fmt.Errorf("work item %d (%q) has no key or no questions", start+i, it.Key))
			}
			qs, err := json.Marshal(it.Questions)
			if err != nil {
				return fail(err)
			}
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("(?,?,?,?,?)")
			args = append(args, id, s.text(it.Key), start+i, string(qs), len(it.Questions))
		}
		b.WriteString(` ON CONFLICT(run_id, item) DO UPDATE SET seq = excluded.seq, questions = excluded.questions, size = excluded.size,
			state = CASE WHEN work.state = 'done' THEN 'todo' ELSE work.state END`)
		if _, err := tx.ExecContext(ctx, s.q(b.String()), args...); err != nil {
			return fail(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return nil
}

// QueueInfo is the state of a queued run's work items.
type QueueInfo struct {
	RunID string
	Job   Job
	// Items is the number of work items; Todo are waiting (never claimed,
	// or given back), Claimed being worked (Expired of them with a lease
	// that ran out: a worker may take them over), Done finished.
	Items, Todo, Claimed, Expired, Done int
	// Retaken is the items claimed more than once: given back, taken over
	// from a worker whose lease ran out, or enqueued again once done.
	Retaken int
	// Workers are the owners ("host pid token") of the live claims,
	// sorted.
	Workers []string
	// Enqueued is when the run was first enqueued.
	Enqueued time.Time
}

// Finished reports whether every work item is done.
func (q QueueInfo) Finished() bool { return q.Done == q.Items }

// Queue returns the state of run id's work queue (an exact id); ok is
// false when the run was never enqueued.
func (s *Store) Queue(ctx context.Context, id string) (q QueueInfo, ok bool, err error) {
	qs, err := s.queues(ctx, id)
	if err != nil || len(qs) == 0 {
		return QueueInfo{}, false, err
	}
	return qs[0], true, nil
}

// Queues returns the state of every queued run's work queue, in the order
// workers take them (first enqueued first).
func (s *Store) Queues(ctx context.Context) ([]QueueInfo, error) { return s.queues(ctx, "") }

func (s *Store) queues(ctx context.Context, id string) ([]QueueInfo, error) {
	where := ""
	args := []any{}
	if id != "" {
		where = ` WHERE j.run_id = ?`
		args = append(args, id)
	}
	now, err := s.now(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("runstore: work queues in %s: read the clock: %w", s.path, err)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT j.run_id, j.job, j.created_at, w.state, w.owner, w.expires_at, w.claims > 1, count(*)
		FROM jobs j JOIN work w ON w.run_id = j.run_id`+where+`
		GROUP BY j.run_id, j.job, j.created_at, w.state, w.owner, w.expires_at, w.claims > 1 ORDER BY j.created_at, j.run_id`), args...)
	if err != nil {
		return nil, fmt.Errorf("runstore: work queues in %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []QueueInfo
	workers := map[string]map[string]bool{}
	for rows.Next() {
		var runID, job, state, owner string
		var created, expires int64
		var n int
		var retaken bool
		if err := rows.Scan(&runID, &job, &created, &state, &owner, &expires, &retaken, &n); err != nil {
			return nil, fmt.Errorf("runstore: work queues in %s: %w", s.path, err)
		}
		if len(out) == 0 || out[len(out)-1].RunID != runID {
			q := QueueInfo{RunID: runID, Enqueued: time.UnixMilli(created)}
			if err := json.Unmarshal([]byte(job), &q.Job); err != nil {
				return nil, fmt.Errorf("runstore: work queue of run %s in %s: bad job %q: %w", runID, s.path, job, err)
			}
			out = append(out, q)
			workers[runID] = map[string]bool{}
		}
		q := &out[len(out)-1]
		q.Items += n
		if retaken {
			q.Retaken += n
		}
		switch state {
		case stateTodo:
			q.Todo += n
		case stateDone:
			q.Done += n
		case stateClaimed:
			q.Claimed += n
			if expires < now.UnixMilli() {
				q.Expired += n
			} else {
				workers[runID][owner] = true
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("runstore: work queues in %s: %w", s.path, err)
	}
	for i := range out {
		for w := range workers[out[i].RunID] {
			out[i].Workers = append(out[i].Workers, w)
		}
		slices.Sort(out[i].Workers)
	}
	return out, nil
}

// liveClaims counts, inside tx, the claims on run id's work items whose
// lease has not run out at now.
func (s *Store) liveClaims(ctx context.Context, tx *sql.Tx, id string, now time.Time) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, s.q(`SELECT count(*) FROM work WHERE run_id = ? AND state = 'claimed' AND expires_at >= ?`),
		id, now.UnixMilli()).Scan(&n)
	return n, err
}

// Claimer is one worker's side of the work queue: it claims work items
// (Claim), renews the lease of every claim it holds in one statement every
// lease/3 until Close, and each Claim writes its records only while it is
// still the worker's. A worker that dies stops renewing: its claims run
// out after the lease and other workers take them over.
type Claimer struct {
	s     *Store
	owner string
	lease time.Duration
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// NewClaimer returns a claimer whose claims last lease without a renewal
// (0 = LeaseTimeout), renewing them in the background until Close.
func (s *Store) NewClaimer(lease time.Duration) (*Claimer, error) {
	if s.readOnly {
		return nil, s.errReadOnly("claim work")
	}
	if lease <= 0 {
		lease = LeaseTimeout
	}
	if lease < 100*time.Millisecond {
		return nil, fmt.Errorf("runstore: claim work in %s: lease %s is shorter than 100ms", s.path, lease)
	}
	c := &Claimer{s: s, owner: newOwner(), lease: lease, stop: make(chan struct{}), done: make(chan struct{})}
	go c.renew()
	return c, nil
}

// Owner is the claimer's name in the queue, "host pid token".
func (c *Claimer) Owner() string { return c.owner }

// Lease is how long a claim lasts without a renewal.
func (c *Claimer) Lease() time.Duration { return c.lease }

// Close stops renewing the claimer's claims. Claims still held run out
// after the lease (Abandon gives one back at once).
func (c *Claimer) Close() {
	c.once.Do(func() { close(c.stop) })
	<-c.done
}

func (c *Claimer) renew() {
	defer close(c.done)
	t := time.NewTicker(c.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			_ = c.Renew(context.Background())
		}
	}
}

// Renew extends the lease of every claim the claimer still holds (the
// background renewal calls it every lease/3).
func (c *Claimer) Renew(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.lease/3)
	defer cancel()
	s := c.s
	s.wmu.Lock()
	defer s.wmu.Unlock()
	now, err := s.now(ctx, s.db)
	if err == nil {
		_, err = s.db.ExecContext(ctx, s.q(`UPDATE work SET expires_at = ? WHERE owner = ? AND state = 'claimed'`),
			now.Add(c.lease).UnixMilli(), c.owner)
	}
	if err != nil {
		return fmt.Errorf("runstore: renew the claims of %s in %s: %w", describeOwner(c.owner), s.path, err)
	}
	return nil
}

// Claim claims up to maxItems work items of the runs named (every queued
// run when none is), holding up to maxQuestions questions in all (0 = no
// bound; the first item is claimed whatever its size): items never
// claimed or given back, and items whose claim's lease ran out (their
// worker died or lost the store). The runs whose items are the largest
// (a persona's questions) come first, then the first enqueued, and in
// each run the items in order: the long items start early and the short
// ones fill in at the end, so that no worker is left alone with a long
// item while the others are idle. It returns none when there is nothing
// to claim. Runs held by a live process through Begin are left alone. On
// PostgreSQL, concurrent claimers skip each other's rows (FOR UPDATE
// SKIP LOCKED) in short read-committed transactions, so no item is
// claimed twice and no claimer waits for another.
func (c *Claimer) Claim(ctx context.Context, runIDs []string, maxItems, maxQuestions int) ([]*Claim, error) {
	if maxItems <= 0 {
		return nil, nil
	}
	if maxQuestions <= 0 {
		maxQuestions = int(^uint(0) >> 1)
	}
	s := c.s
	fail := func(err error) ([]*Claim, error) {
		return nil, fmt.Errorf("runstore: claim work in %s: %w", s.path, explainStore(s.path, err))
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.db.BeginTx(ctx, s.txOptions())
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	now, err := s.now(ctx, tx)
	if err != nil {
		return fail(fmt.Errorf("read the clock: %w", err))
	}
	// The runs with open items, first enqueued first.
	args := []any{}
	filter := ""
	if len(runIDs) > 0 {
		filter = ` AND j.run_id IN (?` + strings.Repeat(",?", len(runIDs)-1) + `)`
		for _, id := range runIDs {
			args = append(args, id)
		}
	}
	rows, err := tx.QueryContext(ctx, s.q(`SELECT j.run_id FROM jobs j
		WHERE EXISTS (SELECT 1 FROM work w WHERE w.run_id = j.run_id AND w.state <> 'done')`+filter+`
		ORDER BY j.largest DESC, j.created_at, j.run_id`), args...)
	if err != nil {
		return fail(err)
	}
	var open []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fail(err)
		}
		open = append(open, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	lock := ""
	if s.pg {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	var got []*Claim
	questions := 0
	full := func() bool { return len(got) == maxItems || len(got) > 0 && questions >= maxQuestions }
	for _, id := range open {
		if full() {
			break
		}
		// A process starting the run through Begin holds its advisory lock
		// while it checks for live claims: a claimer waits for it here
		// (shared with other claimers), then sees the lease it took.
		if s.pg {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock_shared(hashtextextended('memlab run ' || $1, 0))`, id); err != nil {
				return fail(fmt.Errorf("lock run %s: %w", id, err))
			}
		}
		var holder string
		var hb int64
		if err := tx.QueryRowContext(ctx, s.q(`SELECT owner, heartbeat FROM runs WHERE id = ?`), id).Scan(&holder, &hb); err != nil {
			return fail(fmt.Errorf("run %s: %w", id, err))
		}
		if holderAlive(holder, time.UnixMilli(hb), now) {
			continue
		}
		rows, err := tx.QueryContext(ctx, s.q(`SELECT item, questions, claims FROM work
			WHERE run_id = ? AND state <> 'done' AND (state = 'todo' OR expires_at < ?) ORDER BY seq LIMIT ?`+lock),
			id, now.UnixMilli(), maxItems-len(got))
		if err != nil {
			return fail(err)
		}
		first := len(got)
		for rows.Next() {
			if full() {
				break // the rows left are unlocked at commit
			}
			cl := &Claim{c: c, RunID: id}
			var qs string
			if err := rows.Scan(&cl.Key, &qs, &cl.token); err != nil {
				rows.Close()
				return fail(err)
			}
			if err := json.Unmarshal([]byte(qs), &cl.Questions); err != nil {
				rows.Close()
				return fail(fmt.Errorf("work item %q of run %s: bad question list %q: %w", cl.Key, id, qs, err))
			}
			cl.token++
			got = append(got, cl)
			questions += len(cl.Questions)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fail(err)
		}
		for _, cl := range got[first:] {
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE work SET state = 'claimed', owner = ?, claims = ?, expires_at = ?
				WHERE run_id = ? AND item = ?`), c.owner, cl.token, now.Add(c.lease).UnixMilli(), id, cl.Key); err != nil {
				return fail(err)
			}
		}
	}
	if len(got) == 0 {
		return nil, nil
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return got, nil
}

// Claim is a worker's hold on one work item: its questions are the
// worker's to ask until Done (or Abandon), and Put writes their records
// only while the claim holds. The claim is fenced by its token (the
// item's claim count): a worker whose lease ran out and whose item was
// claimed again, even by the same process, can write nothing more.
type Claim struct {
	c *Claimer
	// RunID is the run and Key the item; Questions are the item's
	// question ids in the order they are asked.
	RunID, Key string
	Questions  []string
	token      int
}

// Token is the claim's fencing token: how many times the item has been
// claimed, this claim included (more than 1: another worker had it
// before, or gave it back).
func (cl *Claim) Token() int { return cl.token }

// hold checks, inside tx, that the claim still holds, and locks the item
// against another claim until tx ends.
func (cl *Claim) hold(ctx context.Context, tx *sql.Tx) error {
	s := cl.c.s
	var owner, state string
	var token int
	err := tx.QueryRowContext(ctx, s.q(`SELECT owner, claims, state FROM work WHERE run_id = ? AND item = ?`+s.forUpdate()),
		cl.RunID, cl.Key).Scan(&owner, &token, &state)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("work item %q of run %s is no longer queued: %w", cl.Key, cl.RunID, ErrClaimLost)
	}
	if err != nil {
		return err
	}
	if owner != cl.c.owner || token != cl.token || state != stateClaimed {
		now := "nobody"
		switch {
		case state == stateDone:
			now = "nobody: it is done"
		case owner != "":
			now = describeOwner(owner) + fmt.Sprintf(" (claim %d)", token)
		}
		return fmt.Errorf("work item %q of run %s (claim %d of %s) is now held by %s: %w",
			cl.Key, cl.RunID, cl.token, describeOwner(cl.c.owner), now, ErrClaimLost)
	}
	return nil
}

// Put writes rec as the attempt-th attempt at its question (ord = the
// question's place in the dataset), as Store.Put does, in the transaction
// that checks the claim still holds: a claim lost to another worker
// writes nothing and returns ErrClaimLost.
func (cl *Claim) Put(ctx context.Context, ord, attempt int, rec record.Record) error {
	s := cl.c.s
	return s.put(ctx, cl.RunID, ord, attempt, rec, cl.hold)
}

// Done marks the item finished (its records are written) and ends the
// claim; ErrClaimLost when the claim no longer holds.
func (cl *Claim) Done(ctx context.Context) error {
	return cl.end(ctx, stateDone, "finish")
}

// Abandon gives the item back to the queue at once (a worker that stops
// before finishing it): another worker may claim it without waiting for
// the lease to run out. ErrClaimLost when the claim no longer holds.
func (cl *Claim) Abandon(ctx context.Context) error {
	return cl.end(ctx, stateTodo, "give back")
}

func (cl *Claim) end(ctx context.Context, state, what string) error {
	s := cl.c.s
	s.wmu.Lock()
	defer s.wmu.Unlock()
	fail := func(err error) error {
		return fmt.Errorf("runstore: %s work item %q of run %s in %s: %w", what, cl.Key, cl.RunID, s.path, explainStore(s.path, err))
	}
	tx, err := s.db.BeginTx(ctx, s.txOptions())
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	if err := cl.hold(ctx, tx); err != nil {
		return fail(err)
	}
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE work SET state = ?, owner = '', expires_at = 0 WHERE run_id = ? AND item = ?`),
		state, cl.RunID, cl.Key); err != nil {
		return fail(err)
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return nil
}

// AddSpend adds a session's spending to run id: m, the system's meter, and
// its wall time, counting one session more. A worker adds what it spent on
// a queued run when it stops working it (a run begun with Begin adds its
// own at Release).
func (s *Store) AddSpend(ctx context.Context, id string, m retrieval.Meter, elapsed time.Duration) error {
	if s.readOnly {
		return s.errReadOnly("add the spending of run " + id)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.db.BeginTx(ctx, s.txOptions())
	if err != nil {
		return fmt.Errorf("runstore: add the spending of run %s in %s: %w", id, s.path, err)
	}
	defer tx.Rollback()
	if err := s.addSpend(ctx, tx, id, m, elapsed, 1); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("runstore: add the spending of run %s in %s: %w", id, s.path, err)
	}
	return nil
}

// addSpend adds m, elapsed and sessions to run id inside tx.
func (s *Store) addSpend(ctx context.Context, tx *sql.Tx, id string, m retrieval.Meter, elapsed time.Duration, sessions int) error {
	var old string
	if err := tx.QueryRowContext(ctx, s.q(`SELECT meter FROM runs WHERE id = ?`+s.forUpdate()), id).Scan(&old); err != nil {
		return fmt.Errorf("runstore: add the spending of run %s in %s: %w", id, s.path, err)
	}
	var sum retrieval.Meter
	if err := json.Unmarshal([]byte(old), &sum); err != nil {
		return fmt.Errorf("runstore: add the spending of run %s in %s: bad meter %q: %w", id, s.path, old, err)
	}
	b, _ := json.Marshal(sum.Add(m))
	_, err := tx.ExecContext(ctx, s.q(`UPDATE runs SET meter = ?, run_seconds = run_seconds + ?, sessions = sessions + ?, updated_at = ?
		WHERE id = ?`), string(b), elapsed.Seconds(), sessions, time.Now().UnixMilli(), id)
	if err != nil {
		return fmt.Errorf("runstore: add the spending of run %s in %s: %w", id, s.path, err)
	}
	return nil
}

// LoadQuestions returns what run id (an exact id) has in the store for the
// questions qids only (Load's reading of a work item).
func (s *Store) LoadQuestions(ctx context.Context, id string, qids []string) (Stored, error) {
	st := Stored{Records: map[string]record.Record{}, Attempts: map[string]int{}}
	if len(qids) == 0 {
		return st, nil
	}
	const batch = 500
	var got []string
	var datas [][]byte
	for start := 0; start < len(qids); start += batch {
		part := qids[start:min(start+batch, len(qids))]
		args := []any{id}
		for _, q := range part {
			args = append(args, q)
		}
		rows, err := s.db.QueryContext(ctx, s.q(`SELECT question_id, attempts, data FROM records WHERE run_id = ? AND question_id IN (?`+
			strings.Repeat(",?", len(part)-1)+`)`), args...)
		if err != nil {
			return st, fmt.Errorf("runstore: load questions of run %s from %s: %w", id, s.path, err)
		}
		for rows.Next() {
			var qid string
			var attempts int
			var data []byte
			if err := rows.Scan(&qid, &attempts, &data); err != nil {
				rows.Close()
				return st, fmt.Errorf("runstore: load questions of run %s from %s: %w", id, s.path, err)
			}
			st.Attempts[qid] = attempts
			got, datas = append(got, qid), append(datas, data)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return st, fmt.Errorf("runstore: load questions of run %s from %s: %w", id, s.path, err)
		}
	}
	recs, i, err := decodeRecords(datas)
	if err != nil {
		return st, fmt.Errorf("runstore: load questions of run %s from %s: record %q: %w", id, s.path, got[i], err)
	}
	for j, r := range recs {
		st.Records[got[j]] = r
	}
	return st, nil
}

// Load returns what the run has in the store for the claim's questions
// (LoadQuestions).
func (cl *Claim) Load(ctx context.Context) (Stored, error) {
	return cl.c.s.LoadQuestions(ctx, cl.RunID, cl.Questions)
}
