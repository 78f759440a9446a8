package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Canonical returns the canonical JSON of parts: parts is marshalled with
// encoding/json, then re-encoded with the keys of every object sorted, no
// insignificant whitespace and no HTML escaping. Numbers keep their exact
// text (a 64-bit seed is not rounded through float64). Because objects are
// re-sorted, a struct and a map with the same field names and values give
// the same bytes, and reordering a struct's fields does not change them;
// renaming a field, changing a value or adding a non-empty field does.
//
// Callers pass a struct or map holding only output-affecting fields (see the
// package documentation); API keys, timeouts, retry counts and concurrency
// settings must be left out. Values encoding/json cannot marshal (channels,
// functions, NaN or infinite floats) are an error.
func Canonical(parts any) ([]byte, error) {
	raw, err := json.Marshal(parts)
	if err != nil {
		return nil, fmt.Errorf("cache: canonical json of %T: %w", parts, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("cache: canonical json of %T: re-decode: %w", parts, err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// encoding/json writes map keys in sorted order at every depth.
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("cache: canonical json of %T: re-encode: %w", parts, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Key returns the cache key of parts: the lowercase hex SHA-256 of
// [Canonical](parts), 64 characters. The same output-affecting parts always
// give the same key, across processes and map iteration orders; see
// [Canonical] for what callers must leave out.
func Key(parts any) (string, error) {
	b, err := Canonical(parts)
	if err != nil {
		return "", err
	}
	return KeyOf(b), nil
}

// KeyOf returns the key of canonical bytes already computed with
// [Canonical]: Key(p) == KeyOf(Canonical(p)). Callers that also store the
// canonical request as [Entry.Request] use it to encode only once.
func KeyOf(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}
