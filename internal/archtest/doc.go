// Package archtest holds the architecture test: which of memlab's packages
// may import which (arch_test.go). It has no code of its own.
package archtest
