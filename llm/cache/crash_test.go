package cache

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memlab/memlab/internal/pgtest"
)

// crashEnv names the cache file the crash child writes to; the child test
// skips when it is unset.
const crashEnv = "MEMLAB_CACHE_CRASH_CHILD"

// crashEntry is entry number i of the crash test: its response is a few
// hundred bytes to a few KiB derived from i, so a torn or mixed-up row
// shows up as a wrong response.
func crashEntry(i int) Entry {
	seed := sha256.Sum256([]byte(strconv.Itoa(i)))
	resp := bytes.Repeat(seed[:], 8+i%96)
	return Entry{Key: fmt.Sprintf("crash-%06d", i), Kind: KindEmbed, Model: "m", Endpoint: "e",
		Request: []byte(strconv.Itoa(i)), Response: resp, PromptTokens: i}
}

// TestCrashChild is the child of TestCrash: it writes entries from 4
// goroutines until it is killed, printing "ack <number>" only after its Put
// returned.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("run by TestCrash only")
	}
	c, err := Open(path)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if err := c.Put(context.Background(), crashEntry(i)); err != nil {
					fmt.Println("error:", err)
					os.Exit(2)
				}
				fmt.Printf("ack %d\n", i) // one write(2): lines do not interleave
			}
		}()
	}
	wg.Wait()
}

func TestCrash(t *testing.T) { eachBackend(t, testCrash) }

func testCrash(t *testing.T, backend string) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("needs unix processes and SIGKILL")
	}
	const killAfter = 200
	path := filepath.Join(t.TempDir(), "crash.db")
	if backend == "postgres" {
		path = pgtest.URL(t)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	var acked []int
	killed := false
	var killAt time.Duration
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break // a last line without its newline is not an acknowledgement
		}
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(line, "ack ") && !strings.HasPrefix(line, "error:") {
			continue // the test framework's own lines
		}
		i, convErr := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "ack ")))
		if convErr != nil {
			if !killed {
				cmd.Process.Kill()
			}
			cmd.Wait()
			t.Fatalf("child: %s", line)
		}
		acked = append(acked, i)
		if len(acked) == killAfter && !killed {
			if err := cmd.Process.Kill(); err != nil { // SIGKILL on unix
				t.Fatal(err)
			}
			killed, killAt = true, time.Since(start)
		}
	}
	werr := cmd.Wait()
	if !killed {
		t.Fatalf("child ended after %d entries before it was killed: %v", len(acked), werr)
	}
	if ws, ok := cmd.ProcessState.Sys().(interface{ Signaled() bool }); ok && !ws.Signaled() {
		t.Fatalf("child was not killed by a signal: %v", werr)
	}
	walSize := int64(-1)
	if fi, err := os.Stat(path + "-wal"); err == nil {
		walSize = fi.Size()
	}
	if walSize <= 0 && backend == "sqlite" {
		t.Errorf("no write-ahead log after the kill (size %d): recovery was not exercised", walSize)
	}

	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	check := "ok (the server's)"
	if backend == "sqlite" {
		if err := c.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil {
			t.Fatal(err)
		}
		if check != "ok" {
			t.Errorf("integrity_check: %s", check)
		}
	}
	ctx := context.Background()
	for _, i := range acked {
		want := crashEntry(i)
		got, ok, err := c.lookup(ctx, want.Key)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("acknowledged entry %d is missing", i)
			continue
		}
		if !bytes.Equal(got.Response, want.Response) || got.PromptTokens != i {
			t.Errorf("acknowledged entry %d is corrupt", i)
		}
	}
	var rows int
	if err := c.db.QueryRow(c.sql(`SELECT count(*) FROM {entries}`)).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows < len(acked) {
		t.Errorf("%d rows, fewer than the %d acknowledged", rows, len(acked))
	}
	t.Logf("killed the writer after %v at %d acknowledged Puts; %d acknowledged in all, %d rows found, WAL %d bytes at the kill, integrity %s",
		killAt.Round(time.Millisecond), killAfter, len(acked), rows, walSize, check)
}
