package notebook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// workDirMu serializes the runs that change the process's working
// directory (enterWorkDir to leave).
var workDirMu sync.Mutex

// enterWorkDir changes the process's working directory to dir, or to the
// notebook's directory when dir is "", and returns the function that
// changes it back. It changes nothing when the process is there already.
func enterWorkDir(nb *Notebook, dir string) (leave func(), err error) {
	if dir == "" {
		dir = filepath.Dir(nb.Path)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("working directory %s: %w", dir, err)
	}
	workDirMu.Lock()
	prev, err := os.Getwd()
	if err != nil {
		workDirMu.Unlock()
		return nil, fmt.Errorf("working directory: %w", err)
	}
	if prev == abs {
		return workDirMu.Unlock, nil
	}
	if err := os.Chdir(abs); err != nil {
		workDirMu.Unlock()
		return nil, fmt.Errorf("working directory of the cells: %w", err)
	}
	return func() {
		defer workDirMu.Unlock()
		if err := os.Chdir(prev); err != nil {
			// The directory the run started in is gone: nothing better to do
			// than to say so where the process will.
			fmt.Fprintf(os.Stderr, "notebook: run %s: back to the working directory %s: %v\n", nb.Path, prev, err)
		}
	}, nil
}

// outputBase is the base name of a run's outputs in outDir: the notebook's
// file name without ".go" or ".ipynb", and ".out" after it where the
// .ipynb written would be the notebook itself.
func outputBase(path, outDir string) string {
	name := filepath.Base(path)
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".go"), ".ipynb")
	if IsIpynb(name) {
		a, err1 := filepath.Abs(path)
		b, err2 := filepath.Abs(filepath.Join(outDir, base+".ipynb"))
		if err1 != nil || err2 != nil || a == b {
			base += ".out"
		}
	}
	return base
}
