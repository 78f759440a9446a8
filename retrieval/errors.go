package retrieval

import "fmt"

// errorf formats an error prefixed with the package name.
func errorf(format string, args ...any) error {
	return fmt.Errorf("retrieval: "+format, args...)
}
