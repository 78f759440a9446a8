package llm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/memlab/memlab/llm/cache"
)

// CheckTimeout bounds the endpoint check Default runs (Client.Check) over
// all endpoints; a timeout message names the limit that stopped it.
const CheckTimeout = 30 * time.Second

var (
	defaultMu     sync.Mutex
	defaultClient *Client
	defaultCache  *cache.Cache
)

// CachePath is the default cache file: $MEMLAB_CACHE if set (a file, or
// a postgres:// URL: cache.Open), else the run store's PostgreSQL database
// when $MEMLAB_RUNS is a postgres:// or postgresql:// URL (the cache's
// tables beside the runs), else memlab/calls.db under the user's cache
// directory (~/.cache on Linux).
func CachePath() (string, error) {
	if p := os.Getenv("MEMLAB_CACHE"); p != "" {
		return p, nil
	}
	if p := os.Getenv("MEMLAB_RUNS"); cache.IsURL(p) {
		return p, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("llm: no cache directory (set MEMLAB_CACHE): %w", err)
	}
	return filepath.Join(dir, "memlab", "calls.db"), nil
}

// Configured reports whether an endpoint is configured (MEMLAB_CONFIG, or
// OPENAI_BASE_URL / OPENAI_API_KEY). When it is not, notebooks use the
// offline components.
func Configured() bool {
	c, err := DefaultConfig()
	return err == nil && c != nil
}

// DefaultIfConfigured is Default when an endpoint is configured and nil
// (no error) when none is: the notebooks' "model if there is one, else
// offline" switch,
//
//	chat, err = llm.DefaultIfConfigured() // nil offline
//
// A config that cannot be read (MEMLAB_CONFIG naming a missing or bad
// file) is an error, not a silent fall back to offline.
func DefaultIfConfigured() (*Client, error) {
	cfg, err := DefaultConfig()
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		return nil, nil
	}
	return Default()
}

// Default returns the process-wide client of DefaultConfig with the cache at
// CachePath, creating it on first use. It returns an error when no endpoint
// is configured or the config or cache cannot be opened. Notebook cells call
// it; `memlab run` prints its usage at the end of a run.
func Default() (*Client, error) {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if defaultClient != nil {
		return defaultClient, nil
	}
	cfg, err := DefaultConfig()
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		return nil, fmt.Errorf("llm: no endpoint configured: set OPENAI_BASE_URL / OPENAI_API_KEY or MEMLAB_CONFIG, or use the offline components")
	}
	path, err := CachePath()
	if err != nil {
		return nil, err
	}
	ch, err := cache.Open(path)
	if err != nil {
		return nil, err
	}
	cl, err := New(cfg, Options{Cache: ch})
	if err != nil {
		ch.Close()
		return nil, err
	}
	// A dry run sends nothing, not even the check.
	if !DryRun() {
		ctx, cancel := context.WithTimeout(context.Background(), CheckTimeout)
		defer cancel()
		if err := cl.Check(ctx); err != nil {
			ch.Close()
			return nil, err
		}
	}
	defaultClient, defaultCache = cl, ch
	return cl, nil
}

// DefaultUsage returns the usage of the Default client, and false when it was
// never created.
func DefaultUsage() (UsageReport, bool) {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if defaultClient == nil {
		return UsageReport{}, false
	}
	return defaultClient.Usage(), true
}

// CloseDefault closes the Default client's cache and forgets the client, so
// that the next Default call starts afresh (a new run, a kernel restart). It
// is safe to call when there is no default client.
func CloseDefault() error {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if defaultClient == nil {
		return nil
	}
	err := defaultCache.Close()
	defaultClient, defaultCache = nil, nil
	return err
}
