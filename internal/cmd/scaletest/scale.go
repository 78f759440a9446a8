package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/runstore"
)

// Config is one scale test.
type Config struct {
	// Memlab is the memlab binary every process runs; Repo the source tree
	// (for scripts/postgres-start.sh); Dir the working directory (a new
	// temporary one when ""; removed at the end unless Keep).
	Memlab, Repo, Dir string
	Keep              bool
	// The synthetic corpus: personas x traces x questions, from Seed.
	Personas, Traces, Questions int
	Seed                        uint64
	// Systems are the grid's systems; Reader and K the rest of each run.
	Systems []string
	Reader  string
	K       int
	// Workers are the worker counts measured, each worker a process in a
	// network namespace of its own; KillWorkers how many work the run in
	// which one is killed (SIGKILL) once KillAt of the questions have a
	// record.
	Workers     []int
	KillWorkers int
	KillAt      float64
	// Latency is the fake endpoint's per call; PerWorker the calls each
	// process may have in flight (its endpoint configuration's
	// max_concurrency); Endpoint the calls the endpoint answers at once
	// (0 = PerWorker times the most workers).
	Latency             time.Duration
	PerWorker, Endpoint int
	// Lease is the workers' claim lease.
	Lease time.Duration
	// Reference runs the grid in one process without the queue first (the
	// records every queued run must equal; without it, the first worker
	// count's).
	Reference bool
}

// Phase is one measured run of the grid.
type Phase struct {
	Name    string
	Workers int // 0: one process without the queue
	// Questions is how many records the grid makes.
	Questions int
	// Wall runs from starting the processes to the last one's exit (their
	// start-up, loading the dataset and building the memories, included);
	// Work from the first record written to the last (as seen every
	// 100 ms).
	Wall, Work time.Duration
	// Calls and Distinct are the model calls the endpoint received, and
	// those whose body no earlier call of the phase had; MaxAnswering the
	// most answered at once.
	Calls, Distinct, MaxAnswering int
	// Cached is the calls the records count as served by the call cache.
	Cached int
	// Lost is the questions without a record free of failure at the end;
	// Failed the records with a failure.
	Lost, Failed int
	// Same reports whether every record equals the reference's (latency
	// and cache hits aside); Diff names the first that does not.
	Same bool
	Diff string
	// The kill: records written when it came, the killed worker's calls
	// in flight then (the most of two readings, just before and just
	// after), and the items claimed more than once by the end.
	KilledAt       int
	InFlightAtKill int
	// AnsweredBeforeKill is the killed worker's calls the endpoint
	// answered in the 2 s before the kill: a call answered but not yet in
	// the worker's call cache when it died is sent again too.
	AnsweredBeforeKill int
	Retaken            int
	// KillRepeats is the calls the killed worker had sent that the others
	// sent again after the kill (the rest of Calls - Distinct: two
	// workers sending the same prompt at once, which the call cache
	// coalesces within a process only).
	KillRepeats int
	// CPU is the processor time the phase's memlab processes, the
	// PostgreSQL server and the fake endpoint (this process) used.
	CPU, PostgresCPU, EndpointCPU time.Duration
	// Load is the host's one-minute load average at the phase's end
	// (other work on the machine included).
	Load string
	// Logs is where the processes' output is.
	Logs []string
}

// Throughput is questions per second of Wall.
func (p Phase) Throughput() float64 { return float64(p.Questions) / p.Wall.Seconds() }

// WorkThroughput is questions per second of Work.
func (p Phase) WorkThroughput() float64 { return float64(p.Questions) / p.Work.Seconds() }

// Report is what a scale test measured.
type Report struct {
	Config Config
	Data   string
	Start  time.Time
	Host   string
	Phases []Phase
}

// net is the private network of the workers: a bridge on the host with
// the /24's .1, and a namespace per worker with .11, .12, ...
type network struct {
	prefix string // "10.231.N"
	bridge string
	ns     []string
}

func (n *network) host() string        { return n.prefix + ".1" }
func (n *network) addr(i int) string   { return fmt.Sprintf("%s.%d", n.prefix, 11+i) }
func (n *network) cidr() string        { return n.prefix + ".0/24" }
func (n *network) nsName(i int) string { return n.ns[i] }

func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// newNetwork makes the bridge and n namespaces on a /24 of 10.231.0.0/16
// that no interface of the host uses.
func newNetwork(n int) (*network, error) {
	out, err := exec.Command("ip", "-4", "-o", "addr").Output()
	if err != nil {
		return nil, fmt.Errorf("ip -4 -o addr: %w", err)
	}
	var b [1]byte
	var net *network
	for range 50 {
		rand.Read(b[:])
		third := 1 + int(b[0])%250
		prefix := fmt.Sprintf("10.231.%d", third)
		if !bytes.Contains(out, []byte(" "+prefix+".")) {
			net = &network{prefix: prefix, bridge: fmt.Sprintf("mlsc%dbr", third)}
			for i := range n {
				net.ns = append(net.ns, fmt.Sprintf("mlsc%dw%d", third, i+1))
			}
			break
		}
	}
	if net == nil {
		return nil, errors.New("no free /24 in 10.231.0.0/16")
	}
	if err := ip("link", "add", net.bridge, "type", "bridge"); err != nil {
		return nil, err
	}
	steps := [][]string{{"addr", "add", net.host() + "/24", "dev", net.bridge}, {"link", "set", net.bridge, "up"}}
	for i, ns := range net.ns {
		veth := fmt.Sprintf("%sv%d", strings.TrimSuffix(net.bridge, "br"), i+1)
		steps = append(steps,
			[]string{"netns", "add", ns},
			[]string{"link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns},
			[]string{"link", "set", veth, "master", net.bridge, "up"},
			[]string{"-n", ns, "addr", "add", net.addr(i) + "/24", "dev", "eth0"},
			[]string{"-n", ns, "link", "set", "eth0", "up"},
			[]string{"-n", ns, "link", "set", "lo", "up"})
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			net.close()
			return nil, err
		}
	}
	return net, nil
}

// close removes the namespaces (and their veths) and the bridge.
func (n *network) close() {
	for _, ns := range n.ns {
		_ = ip("netns", "del", ns)
	}
	_ = ip("link", "del", n.bridge)
}

// postgres is a throwaway PostgreSQL cluster (scripts/postgres-start.sh).
type postgres struct {
	url string // on 127.0.0.1
	pid int
	dir string
}

func startPostgres(repo string, net *network) (*postgres, error) {
	cmd := exec.Command(filepath.Join(repo, "scripts", "postgres-start.sh"))
	cmd.Env = append(os.Environ(), "PG_LISTEN=127.0.0.1,"+net.host(), "PG_HBA="+net.cidr())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("scripts/postgres-start.sh: %w: %s", err, stderr.Bytes())
	}
	pg := &postgres{}
	for _, f := range strings.Fields(strings.TrimPrefix(strings.TrimSpace(string(out)), "export ")) {
		k, v, _ := strings.Cut(f, "=")
		v = strings.Trim(v, "'")
		switch k {
		case "MEMLAB_TEST_POSTGRES":
			pg.url = v
		case "PG_PID":
			pg.pid, _ = strconv.Atoi(v)
		case "PG_DIR":
			pg.dir = v
		}
	}
	if pg.url == "" || pg.pid == 0 || pg.dir == "" {
		return nil, fmt.Errorf("scripts/postgres-start.sh printed %q", out)
	}
	return pg, nil
}

func (pg *postgres) stop() {
	_ = syscall.Kill(pg.pid, syscall.SIGINT)
	for range 100 {
		if syscall.Kill(pg.pid, 0) != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	os.RemoveAll(pg.dir)
}

// schema makes a new schema and returns its URL on host.
func (pg *postgres) schema(name, host string) (string, error) {
	db, err := sql.Open("pgx", pg.url)
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE SCHEMA ` + name); err != nil {
		return "", fmt.Errorf("create schema %s: %w", name, err)
	}
	return pg.at(name, host)
}

// at is the URL of schema on host.
func (pg *postgres) at(schema, host string) (string, error) {
	u, err := url.Parse(pg.url)
	if err != nil {
		return "", err
	}
	u.Host = host + ":" + u.Port()
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// scale is a scale test under way.
type scale struct {
	cfg  Config
	log  io.Writer
	net  *network
	pg   *postgres
	fake *llmtest.Server
	data string
	env  []string
	mu   sync.Mutex
	live map[*exec.Cmd]bool
	cpu  time.Duration // of the memlab processes waited for
}

// cpuMark is the processor time used so far by the memlab processes,
// PostgreSQL (its postmaster and the backends that ended) and this
// process.
type cpuMark struct{ memlab, pg, self time.Duration }

func (s *scale) mark() cpuMark {
	s.mu.Lock()
	m := cpuMark{memlab: s.cpu}
	s.mu.Unlock()
	m.pg = procCPU(s.pg.pid)
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		m.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return m
}

// since fills p's processor times from m to now.
func (s *scale) since(p *Phase, m cpuMark) {
	now := s.mark()
	p.CPU, p.PostgresCPU, p.EndpointCPU = now.memlab-m.memlab, now.pg-m.pg, now.self-m.self
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			p.Load = f[0]
		}
	}
}

// procCPU is the processor time of process pid and of its children that
// ended (/proc/PID/stat: utime, stime, cutime, cstime).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	var ticks int64
	for _, i := range []int{11, 12, 13, 14} { // fields 14-17 of the file
		if i < len(f) {
			n, _ := strconv.ParseInt(f[i], 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// Run runs the scale test cfg, writing what it does to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("scale test: needs root (network namespaces: ip netns)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return nil, fmt.Errorf("scale test: no ip command (apt-get install iproute2): %w", err)
	}
	if cfg.Endpoint == 0 {
		most := cfg.KillWorkers
		for _, n := range cfg.Workers {
			most = max(most, n)
		}
		cfg.Endpoint = most * cfg.PerWorker
	}
	rep := &Report{Config: cfg, Start: time.Now(), Host: hostInfo()}
	if cfg.Dir == "" {
		dir, err := os.MkdirTemp("", "memlab-scale-")
		if err != nil {
			return nil, err
		}
		cfg.Dir = dir
		rep.Config.Dir = dir
		if !cfg.Keep {
			defer os.RemoveAll(dir)
		}
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	most := cfg.KillWorkers
	for _, n := range cfg.Workers {
		most = max(most, n)
	}
	s := &scale{cfg: cfg, log: log, live: map[*exec.Cmd]bool{}}
	defer s.killAll()
	var err error
	if s.net, err = newNetwork(most); err != nil {
		return nil, err
	}
	defer s.net.close()
	s.logf("network %s: bridge %s, workers' namespaces %s", s.net.cidr(), s.net.bridge, strings.Join(s.net.ns, " "))
	if s.pg, err = startPostgres(cfg.Repo, s.net); err != nil {
		return nil, err
	}
	defer s.pg.stop()
	s.logf("PostgreSQL on %s and 127.0.0.1", s.net.host())
	if s.fake, err = llmtest.Start(llmtest.Options{Addr: s.net.host() + ":0", Latency: cfg.Latency, Concurrency: cfg.Endpoint, Forget: true}); err != nil {
		return nil, err
	}
	defer s.fake.Close()
	s.logf("fake endpoint %s: %s per call, %d calls at once", s.fake.URL(), cfg.Latency, cfg.Endpoint)
	conf := filepath.Join(cfg.Dir, "endpoints.toml")
	toml := fmt.Sprintf("[endpoints.fake]\nbase_url = %q\nmax_concurrency = %d\ntimeout = \"300s\"\n", s.fake.URL(), cfg.PerWorker)
	for _, r := range []string{"backbone", "judge", "extractor", "embedder"} {
		toml += fmt.Sprintf("\n[roles.%s]\nendpoint = \"fake\"\nmodel = \"scale-%s\"\n", r, r)
	}
	if err := os.WriteFile(conf, []byte(toml), 0o644); err != nil {
		return nil, err
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "MEMLAB_") {
			continue
		}
		s.env = append(s.env, kv)
	}
	s.env = append(s.env, "MEMLAB_CONFIG="+conf)

	s.data = filepath.Join(cfg.Dir, fmt.Sprintf("synthetic-clonemem-p%d-t%d-q%d-s%d", cfg.Personas, cfg.Traces, cfg.Questions, cfg.Seed))
	if _, err := os.Stat(s.data); err != nil {
		if err := s.memlabOnce(ctx, "synth", "datasets", "synth", "-o", s.data, "-personas", fmt.Sprint(cfg.Personas),
			"-traces", fmt.Sprint(cfg.Traces), "-questions", fmt.Sprint(cfg.Questions), "-seed", fmt.Sprint(cfg.Seed)); err != nil {
			return nil, err
		}
	}
	rep.Data = s.data
	total := len(cfg.Systems) * cfg.Personas * cfg.Questions

	var ref map[string][]record.Record
	if cfg.Reference {
		p, recs, err := s.reference(ctx, total)
		if err != nil {
			return rep, err
		}
		ref = recs
		rep.Phases = append(rep.Phases, p)
	}
	for _, n := range cfg.Workers {
		p, recs, err := s.queued(ctx, fmt.Sprintf("w%d", n), n, total, false, ref)
		if err != nil {
			return rep, err
		}
		if ref == nil {
			ref = recs
		}
		rep.Phases = append(rep.Phases, p)
	}
	if cfg.KillWorkers > 0 {
		p, _, err := s.queued(ctx, "kill", cfg.KillWorkers, total, true, ref)
		if err != nil {
			return rep, err
		}
		rep.Phases = append(rep.Phases, p)
	}
	return rep, nil
}

func (s *scale) logf(format string, a ...any) {
	fmt.Fprintf(s.log, "scale test: "+format+"\n", a...)
}

// start starts memlab with args in namespace ns ("" = the host's), its
// output to a log file named name.
func (s *scale) start(ctx context.Context, name, ns string, args ...string) (*exec.Cmd, string, error) {
	logPath := filepath.Join(s.cfg.Dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, "", err
	}
	var cmd *exec.Cmd
	if ns == "" {
		cmd = exec.CommandContext(ctx, s.cfg.Memlab, args...)
	} else {
		// ip netns exec execs memlab: the process is memlab itself.
		cmd = exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns, s.cfg.Memlab}, args...)...)
	}
	cmd.Env, cmd.Stdout, cmd.Stderr, cmd.Dir = s.env, f, f, s.cfg.Dir
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, "", fmt.Errorf("start %s: %w", name, err)
	}
	f.Close()
	s.mu.Lock()
	s.live[cmd] = true
	s.mu.Unlock()
	return cmd, logPath, nil
}

// wait waits for cmd; an error names its log.
func (s *scale) wait(cmd *exec.Cmd, logPath string) error {
	err := cmd.Wait()
	s.mu.Lock()
	delete(s.live, cmd)
	if ps := cmd.ProcessState; ps != nil {
		s.cpu += ps.UserTime() + ps.SystemTime()
	}
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %w (log %s:\n%s)", strings.Join(cmd.Args, " "), err, logPath, tail(logPath, 20))
	}
	return nil
}

// memlabOnce runs memlab on the host and waits for it.
func (s *scale) memlabOnce(ctx context.Context, name string, args ...string) error {
	cmd, logPath, err := s.start(ctx, name, "", args...)
	if err != nil {
		return err
	}
	return s.wait(cmd, logPath)
}

func (s *scale) killAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for cmd := range s.live {
		_ = cmd.Process.Kill()
	}
}

// gridArgs are the grid's arguments.
func (s *scale) gridArgs(store string, extra ...string) []string {
	args := []string{"grid", "-data", s.data, "-p", "system=" + strings.Join(s.cfg.Systems, ","), "-reader", s.cfg.Reader,
		"-k", fmt.Sprint(s.cfg.K), "-store", store, "-quiet"}
	return append(args, extra...)
}

// reference runs the grid in one process without the queue.
func (s *scale) reference(ctx context.Context, total int) (Phase, map[string][]record.Record, error) {
	p := Phase{Name: "one process, no queue", Questions: total}
	store, err := s.pg.schema("scale_ref", "127.0.0.1")
	if err != nil {
		return p, nil, err
	}
	s.logf("%s: %d questions", p.Name, total)
	s.fake.Reset()
	mark := s.mark()
	start := time.Now()
	cmd, logPath, err := s.start(ctx, "reference", "", s.gridArgs(store)...)
	if err != nil {
		return p, nil, err
	}
	p.Logs = []string{logPath}
	var exited sync.WaitGroup
	exited.Add(1)
	var werr error
	var over bool
	var mu sync.Mutex
	go func() {
		defer exited.Done()
		e := s.wait(cmd, logPath)
		mu.Lock()
		werr, over = e, true
		mu.Unlock()
	}()
	first, last, err := s.watch(ctx, store, total, func() bool { mu.Lock(); defer mu.Unlock(); return over }, nil)
	exited.Wait()
	if err == nil {
		err = werr
	}
	if err != nil {
		return p, nil, err
	}
	p.Wall, p.Work = time.Since(start), last.Sub(first)
	s.since(&p, mark)
	recs, err := s.collect(&p, store, total, nil)
	return p, recs, err
}

// queued enqueues the grid and works it with n workers, killing the
// first once KillAt of the questions have a record when kill is set.
func (s *scale) queued(ctx context.Context, name string, n, total int, kill bool, ref map[string][]record.Record) (Phase, map[string][]record.Record, error) {
	p := Phase{Name: fmt.Sprintf("%d workers", n), Workers: n, Questions: total}
	if kill {
		p.Name = fmt.Sprintf("%d workers, one killed (SIGKILL) at %.0f%%", n, 100*s.cfg.KillAt)
	}
	schema := "scale_" + name
	host, err := s.pg.schema(schema, "127.0.0.1")
	if err != nil {
		return p, nil, err
	}
	s.logf("%s: enqueueing %d questions", p.Name, total)
	if err := s.memlabOnce(ctx, name+"-enqueue", s.gridArgs(host, "-queue", "enqueue")...); err != nil {
		return p, nil, err
	}
	wurl, err := s.pg.at(schema, s.net.host())
	if err != nil {
		return p, nil, err
	}
	s.fake.Reset()
	mark := s.mark()
	start := time.Now()
	cmds := make([]*exec.Cmd, n)
	logs := make([]string, n)
	for i := range n {
		if cmds[i], logs[i], err = s.start(ctx, fmt.Sprintf("%s-worker%d", name, i+1), s.net.nsName(i),
			"worker", "-store", wurl, "-all", "-data", s.data, "-lease", s.cfg.Lease.String()); err != nil {
			return p, nil, err
		}
	}
	p.Logs = logs
	errs := make([]error, n)
	var wg sync.WaitGroup
	var exited sync.Map
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.wait(cmds[i], logs[i])
			if kill && i == 0 {
				err = nil // killed
			}
			errs[i] = err
			exited.Store(i, true)
		}()
	}
	allExited := func() bool {
		c := 0
		exited.Range(func(any, any) bool { c++; return true })
		return c == n
	}
	var onProgress func(done int)
	repeatsBefore := 0
	if kill {
		killed := false
		type answered struct {
			at time.Time
			n  int
		}
		var history []answered
		onProgress = func(done int) {
			victim := s.net.addr(0)
			if killed {
				return
			}
			now := time.Now()
			history = append(history, answered{now, s.fake.Stats().AnsweredByClient[victim]})
			if float64(done) < s.cfg.KillAt*float64(total) {
				return
			}
			killed = true
			before := s.fake.Stats().InFlightByClient[victim]
			_ = cmds[0].Process.Signal(syscall.SIGKILL)
			st := s.fake.Stats()
			repeatsBefore = st.RepeatedFrom[victim]
			p.KilledAt, p.InFlightAtKill = done, max(before, st.InFlightByClient[victim])
			for _, h := range history {
				if now.Sub(h.at) <= 2*time.Second {
					p.AnsweredBeforeKill = st.AnsweredByClient[victim] - h.n
					break
				}
			}
			s.logf("killed worker 1 (pid %d, %s) at %d of %d records, %d of its calls in flight, %d answered in the 2 s before",
				cmds[0].Process.Pid, victim, done, total, p.InFlightAtKill, p.AnsweredBeforeKill)
		}
	}
	first, last, werr := s.watch(ctx, host, total, allExited, onProgress)
	wg.Wait()
	if werr != nil {
		return p, nil, werr
	}
	if err := errors.Join(errs...); err != nil {
		return p, nil, err
	}
	p.Wall, p.Work = time.Since(start), last.Sub(first)
	// The workers' PostgreSQL sessions end with them: their backends'
	// time is the postmaster's once they have exited.
	time.Sleep(500 * time.Millisecond)
	s.since(&p, mark)
	if kill && p.KilledAt == 0 {
		return p, nil, fmt.Errorf("%s: the grid finished before a worker could be killed", p.Name)
	}
	if kill {
		p.KillRepeats = s.fake.Stats().RepeatedFrom[s.net.addr(0)] - repeatsBefore
	}
	recs, err := s.collect(&p, host, total, ref)
	if err != nil {
		return p, nil, err
	}
	ro, err := runstore.OpenReadOnly(host)
	if err != nil {
		return p, nil, err
	}
	defer ro.Close()
	qs, err := ro.Queues(ctx)
	if err != nil {
		return p, nil, err
	}
	for _, q := range qs {
		p.Retaken += q.Retaken
		if !q.Finished() {
			return p, nil, fmt.Errorf("%s: the queue of run %s is not finished: %+v", p.Name, q.RunID, q)
		}
	}
	return p, recs, nil
}

// watch polls the store every 100 ms until total records are written
// and done() holds, calling progress with the count; it returns when the
// first and the last record were seen.
func (s *scale) watch(ctx context.Context, store string, total int, done func() bool, progress func(int)) (first, last time.Time, err error) {
	var ro *runstore.Store
	defer func() {
		if ro != nil {
			ro.Close()
		}
	}()
	prev := 0
	lastLog := time.Now()
	for {
		if ro == nil {
			ro, _ = runstore.OpenReadOnly(store) // the tables may not exist yet
		}
		n := 0
		if ro != nil {
			infos, err := ro.Runs()
			if err != nil {
				return first, last, err
			}
			for _, ri := range infos {
				n += ri.Done + ri.Failed
			}
		}
		now := time.Now()
		if n > 0 && first.IsZero() {
			first = now
		}
		if n > prev {
			last, prev = now, n
		}
		if progress != nil {
			progress(n)
		}
		if time.Since(lastLog) >= 10*time.Second {
			lastLog = now
			s.logf("  %d of %d records", n, total)
		}
		if done() {
			return first, last, nil
		}
		select {
		case <-ctx.Done():
			return first, last, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// collect reads the phase's records, counts what was lost, failed and
// served by the cache, compares them with ref (when not nil) and reads
// the endpoint's counts.
func (s *scale) collect(p *Phase, store string, total int, ref map[string][]record.Record) (map[string][]record.Record, error) {
	st := s.fake.Stats()
	p.Calls, p.Distinct, p.MaxAnswering = st.ModelCalls, st.Distinct, st.MaxAnswering
	ro, err := runstore.OpenReadOnly(store)
	if err != nil {
		return nil, err
	}
	defer ro.Close()
	infos, err := ro.Runs()
	if err != nil {
		return nil, err
	}
	recs := map[string][]record.Record{}
	good := 0
	for _, ri := range infos {
		rs, err := ro.Records(ri.ID)
		if err != nil {
			return nil, err
		}
		recs[ri.ID] = rs
		for _, r := range rs {
			if r.Failure != "" {
				p.Failed++
			} else {
				good++
			}
			u := r.Usage
			p.Cached += u.Retrieve.Cached + u.Read.Cached + u.Judge.Cached
		}
	}
	p.Lost = total - good
	p.Same = true // the reference
	if ref != nil {
		p.Same, p.Diff = sameRecords(ref, recs)
	}
	s.logf("%s: %d questions in %s (%.1f/s; %.1f/s from the first record to the last), %d calls (%d sent again), %d lost, same records: %v",
		p.Name, p.Questions, p.Wall.Round(time.Millisecond), p.Throughput(), p.WorkThroughput(), p.Calls, p.Calls-p.Distinct, p.Lost, p.Same)
	return recs, nil
}

// sameRecords compares two phases' records run by run, wall times (in all
// and by stage) and cache hits aside.
func sameRecords(want, got map[string][]record.Record) (bool, string) {
	if len(want) != len(got) {
		return false, fmt.Sprintf("%d runs, want %d", len(got), len(want))
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok {
			return false, "no run " + id
		}
		if len(g) != len(w) {
			return false, fmt.Sprintf("run %s: %d records, want %d", id, len(g), len(w))
		}
		for i := range w {
			a, b := normalized(w[i]), normalized(g[i])
			if !bytes.Equal(a, b) {
				return false, fmt.Sprintf("run %s: record %s differs:\n%s\n%s", id, w[i].QuestionID, a, b)
			}
		}
	}
	return true, ""
}

func normalized(r record.Record) []byte {
	r.Latency, r.Stages = 0, record.StageLatency{}
	r.Usage.Retrieve.Cached, r.Usage.Read.Cached, r.Usage.Judge.Cached = 0, 0, 0
	b, err := record.Marshal(r)
	if err != nil {
		return []byte(err.Error())
	}
	return b
}

// hostInfo names the machine the test ran on.
func hostInfo() string {
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	model := ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	return fmt.Sprintf("%d CPUs (%s), Linux %s, %s", runtime.NumCPU(), model, strings.TrimSpace(string(kernel)), runtime.Version())
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Markdown is the report as markdown: the setup and a table of phases.
func (r *Report) Markdown() string {
	c := r.Config
	var b strings.Builder
	fmt.Fprintf(&b, "Synthetic CloneMem-schema corpus (not benchmark data) of %d personas x %d traces x %d questions (seed %d); systems %s, reader %s, k = %d: %d questions per grid. "+
		"Fake endpoint: %s per call, %d calls answered at once; each process may have %d calls in flight (max_concurrency). Workers: one process each, in a network namespace of its own "+
		"(a veth on a bridge, %s per call to PostgreSQL and the endpoint on the host side), claim lease %s. %s; started %s.\n\n",
		c.Personas, c.Traces, c.Questions, c.Seed, strings.Join(c.Systems, " and "), c.Reader, c.K, len(c.Systems)*c.Personas*c.Questions,
		c.Latency, c.Endpoint, c.PerWorker, "TCP", c.Lease, r.Host, r.Start.Format("2006-01-02 15:04"))
	var base float64
	for _, p := range r.Phases {
		if p.Workers == 1 && !strings.Contains(p.Name, "killed") {
			base = p.WorkThroughput()
		}
	}
	fmt.Fprintln(&b, "| run | wall | questions/s (wall) | first to last record | questions/s (records) | x one worker's, per worker | CPU s: memlab + PostgreSQL + endpoint | load | model calls | sent again | served by the cache | lost | failed | records equal the one-process run's |")
	fmt.Fprintln(&b, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, p := range r.Phases {
		eff := ""
		if p.Workers > 0 && base > 0 && !strings.Contains(p.Name, "killed") {
			eff = fmt.Sprintf("%.2f", p.WorkThroughput()/(float64(p.Workers)*base))
		}
		same := "yes"
		if !p.Same {
			same = "NO"
		}
		cpu := fmt.Sprintf("%.0f + %.0f + %.0f", p.CPU.Seconds(), p.PostgresCPU.Seconds(), p.EndpointCPU.Seconds())
		fmt.Fprintf(&b, "| %s | %s | %.1f | %s | %.1f | %s | %s | %s | %d | %d | %d | %d | %d | %s |\n", p.Name, p.Wall.Round(100*time.Millisecond), p.Throughput(),
			p.Work.Round(100*time.Millisecond), p.WorkThroughput(), eff, cpu, p.Load, p.Calls, p.Calls-p.Distinct, p.Cached, p.Lost, p.Failed, same)
	}
	for _, p := range r.Phases {
		if p.KilledAt > 0 {
			fmt.Fprintf(&b, "\nThe kill: worker 1 got SIGKILL when %d of %d records were written, with %d of its model calls in flight at the endpoint "+
				"and %d answered to it in the 2 s before; %d work items were claimed again (taken over once its claims' lease ran out); %d of its calls "+
				"reached the endpoint again from the workers that took its items over (of the %d calls sent again in that run; the others: two workers "+
				"sending the same prompt at once), and the records count %d calls served by the call cache.\n",
				p.KilledAt, p.Questions, p.InFlightAtKill, p.AnsweredBeforeKill, p.Retaken, p.KillRepeats, p.Calls-p.Distinct, p.Cached)
		}
	}
	return b.String()
}

// Check fails when a run lost a question, has a failed record or records
// that differ from the reference's, or when the kill did not happen.
func (r *Report) Check() error {
	var errs []error
	for _, p := range r.Phases {
		if p.Lost > 0 || p.Failed > 0 {
			errs = append(errs, fmt.Errorf("%s: %d questions lost, %d failed records", p.Name, p.Lost, p.Failed))
		}
		if !p.Same {
			errs = append(errs, fmt.Errorf("%s: the records differ from the reference's: %s", p.Name, p.Diff))
		}
	}
	return errors.Join(errs...)
}
