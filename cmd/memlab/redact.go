package main

import (
	"bytes"
	"io"

	"github.com/memlab/memlab/llm"
)

// redactingWriter passes what is written to w line by line with the
// credentials of every URL left out (llm.RedactURLs). The commands that
// print a run store's contents write through it, so a store written before
// specs were redacted (one holding "http://user:secret@host") never shows
// them either. Close writes a last line without a newline.
type redactingWriter struct {
	w   io.Writer
	buf []byte
}

func newRedactingWriter(w io.Writer) *redactingWriter { return &redactingWriter{w: w} }

func (r *redactingWriter) Write(p []byte) (int, error) {
	r.buf = append(r.buf, p...)
	i := bytes.LastIndexByte(r.buf, '\n')
	if i < 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(r.w, llm.RedactURLs(string(r.buf[:i+1]))); err != nil {
		return 0, err
	}
	r.buf = append(r.buf[:0], r.buf[i+1:]...)
	return len(p), nil
}

// Close writes what is left (a last line without a newline).
func (r *redactingWriter) Close() error {
	if len(r.buf) == 0 {
		return nil
	}
	_, err := io.WriteString(r.w, llm.RedactURLs(string(r.buf)))
	r.buf = r.buf[:0]
	return err
}
