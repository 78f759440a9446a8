package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/memlab/memlab/runstore"
)

// pathEnvVars are the environment variables that name files memlab opens,
// possibly while a notebook's cells run in the notebook's directory.
var pathEnvVars = []string{"MEMLAB_RUNS", "MEMLAB_CACHE", "MEMLAB_CONFIG"}

// absPaths makes the run store path *store (nil: none) and the file paths
// of the environment (pathEnvVars) absolute, so that they name the same files
// once notebook.Run has moved the process into the notebook's directory
// (and in the worker process, which starts there). A PostgreSQL URL
// (runstore.IsURL) is left as it is.
func absPaths(store *string) error {
	if store != nil && *store != "" && !filepath.IsAbs(*store) && !runstore.IsURL(*store) {
		abs, err := filepath.Abs(*store)
		if err != nil {
			return fmt.Errorf("-store %s: %w", *store, err)
		}
		*store = abs
	}
	for _, k := range pathEnvVars {
		if p := os.Getenv(k); p != "" && !filepath.IsAbs(p) && !runstore.IsURL(p) {
			abs, err := filepath.Abs(p)
			if err != nil {
				return fmt.Errorf("$%s=%s: %w", k, p, err)
			}
			os.Setenv(k, abs)
		}
	}
	return nil
}
