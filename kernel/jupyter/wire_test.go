package jupyter

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func testFrames(t *testing.T, s *Signer, header string) [][]byte {
	t.Helper()
	h, p, m, c := []byte(header), []byte(`{}`), []byte(`{}`), []byte(`{"code":"1"}`)
	return [][]byte{[]byte("peer-1"), []byte("peer-2"), []byte(delimiter), s.Sign(h, p, m, c), h, p, m, c, []byte("buf0")}
}

const testHeader = `{"msg_id":"a1","session":"s1","username":"u","date":"2024-01-02T03:04:05.678+01:00","msg_type":"execute_request","version":"5.3","subshell_id":null}`

func TestSignatureIsHMACSHA256OfTheFourFrames(t *testing.T) {
	s, err := NewSigner("0123-key", "hmac-sha256")
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, []byte("0123-key")) // the key as is, not hex-decoded
	for _, f := range []string{"h", "p", "m", "c"} {
		m.Write([]byte(f))
	}
	want := hex.EncodeToString(m.Sum(nil))
	if got := string(s.Sign([]byte("h"), []byte("p"), []byte("m"), []byte("c"))); got != want {
		t.Errorf("signature = %s, want %s", got, want)
	}
	empty, _ := NewSigner("", "")
	if got := empty.Sign([]byte("h")); len(got) != 0 {
		t.Errorf("empty key signs %q, want \"\"", got)
	}
	if _, err := NewSigner("k", "hmac-md5"); err == nil || !strings.Contains(err.Error(), "hmac-md5") {
		t.Errorf("unsupported scheme: err = %v", err)
	}
}

func TestParseRoundTrip(t *testing.T) {
	s, _ := NewSigner("secret", "hmac-sha256")
	m, err := s.Parse(testFrames(t, s, testHeader))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Identities) != 2 || string(m.Identities[1]) != "peer-2" {
		t.Errorf("identities = %q", m.Identities)
	}
	if m.Header.MsgType != "execute_request" || m.Header.MsgID != "a1" {
		t.Errorf("header = %+v", m.Header)
	}
	if string(m.RawHeader) != testHeader {
		t.Errorf("raw header = %s, want the bytes as received", m.RawHeader)
	}
	if len(m.Buffers) != 1 || string(m.Buffers[0]) != "buf0" {
		t.Errorf("buffers = %q", m.Buffers)
	}
	// A reply echoes the raw header as parent_header: unknown fields and the
	// date's exact form survive.
	out, err := s.Frames(&Message{Identities: m.Identities, Header: newHeader("k", "execute_reply"), ParentHeader: m.RawHeader})
	if err != nil {
		t.Fatal(err)
	}
	back, err := s.Parse(out)
	if err != nil {
		t.Fatalf("our own message does not parse: %v", err)
	}
	if string(back.ParentHeader) != testHeader {
		t.Errorf("parent_header = %s", back.ParentHeader)
	}
}

func TestEmptyDictsAreNeverNull(t *testing.T) {
	s, _ := NewSigner("k", "")
	frames, err := s.Frames(&Message{Header: newHeader("x", "status")})
	if err != nil {
		t.Fatal(err)
	}
	// delimiter, signature, header, then parent, metadata, content
	for i, name := range []string{"parent_header", "metadata", "content"} {
		if got := string(frames[3+i]); got != "{}" {
			t.Errorf("%s = %q, want {}", name, got)
		}
	}
	h, _ := NewSigner("k", "")
	in := [][]byte{[]byte(delimiter), nil, []byte(`{"msg_type":"kernel_info_request","msg_id":"1"}`), []byte("null"), []byte(""), []byte("null")}
	in[1] = h.Sign(in[2], in[3], in[4], in[5])
	m, err := h.Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(m.ParentHeader) != "{}" || string(m.Metadata) != "{}" || string(m.Content) != "{}" {
		t.Errorf("null/empty frames parsed as %s %s %s, want {}", m.ParentHeader, m.Metadata, m.Content)
	}
	// The content values the handlers build use non-nil maps and slices.
	c, _ := marshalContent(map[string]any{"matches": []string{}, "metadata": map[string]any{}})
	if strings.Contains(string(c), "null") {
		t.Errorf("content %s has null", c)
	}
}

func TestParseRejectsMalformedAndBadlySigned(t *testing.T) {
	s, _ := NewSigner("secret", "hmac-sha256")
	good := testFrames(t, s, testHeader)
	// Every truncation is rejected without a panic.
	for n := 0; n < 8; n++ {
		if _, err := s.Parse(good[:n]); !errors.Is(err, ErrMalformed) {
			t.Errorf("%d frames: err = %v, want ErrMalformed", n, err)
		}
	}
	bad := func(f func([][]byte) [][]byte) [][]byte {
		c := make([][]byte, len(good))
		for i := range good {
			c[i] = bytes.Clone(good[i])
		}
		return f(c)
	}
	cases := []struct {
		desc   string
		frames [][]byte
		want   error
	}{
		{"no delimiter", bad(func(f [][]byte) [][]byte { f[2] = []byte("<IDS|MSG"); return f }), ErrMalformed},
		{"wrong signature", bad(func(f [][]byte) [][]byte { f[3][0] ^= 1; return f }), ErrSignature},
		{"empty signature", bad(func(f [][]byte) [][]byte { f[3] = nil; return f }), ErrSignature},
		{"tampered content", bad(func(f [][]byte) [][]byte { f[7] = []byte(`{"code":"2"}`); return f }), ErrSignature},
		{"other key", testFrames(t, &Signer{key: []byte("other"), hash: sha256.New}, testHeader), ErrSignature},
	}
	for _, c := range cases {
		if _, err := s.Parse(c.frames); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.desc, err, c.want)
		}
	}
	for _, h := range []string{`not json`, `{"msg_id":"1"}`} {
		if _, err := s.Parse(testFrames(t, s, h)); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "header") {
			t.Errorf("header %s: err = %v, want a malformed header error", h, err)
		}
	}
	// The signature is checked on the bytes as received: re-encoding the
	// same JSON differently must not verify.
	var v map[string]any
	json.Unmarshal([]byte(testHeader), &v)
	re, _ := json.Marshal(v)
	f := testFrames(t, s, testHeader)
	f[4] = re
	if _, err := s.Parse(f); !errors.Is(err, ErrSignature) {
		t.Errorf("re-encoded header: err = %v, want ErrSignature", err)
	}
}

func TestIsComplete(t *testing.T) {
	cases := []struct{ code, status, indent string }{
		{"x := 1", "complete", ""},
		{"fmt.Println(1)\n", "complete", ""},
		{"", "complete", ""},
		{"func f() {", "incomplete", "\t"},
		{"if x {\n\tfor {", "incomplete", "\t\t"},
		{"xs := []int{\n1,", "incomplete", "\t"},
		{"s := `raw", "incomplete", ""},
		{"/* open", "incomplete", ""},
		{"x := 1 +", "incomplete", ""},
		{"y :=", "incomplete", ""},
		{"a.", "incomplete", ""},
		{"x++", "complete", ""},
		{"}", "invalid", ""},
		{"f())", "invalid", ""},
		{`s := "open`, "invalid", ""},
	}
	for _, c := range cases {
		status, indent := IsComplete(c.code)
		if status != c.status || indent != c.indent {
			t.Errorf("IsComplete(%q) = %q, %q; want %q, %q", c.code, status, indent, c.status, c.indent)
		}
	}
}

func TestRuneOffsets(t *testing.T) {
	code := "é := 1; ab"
	if got := runeToByte(code, 1); got != 2 {
		t.Errorf("runeToByte(1) = %d, want 2", got)
	}
	if got := runeToByte(code, 100); got != len(code) {
		t.Errorf("runeToByte past the end = %d, want %d (clamped)", got, len(code))
	}
	if got := runeToByte(code, -3); got != 0 {
		t.Errorf("runeToByte(-3) = %d, want 0", got)
	}
}

// TestParseDropsReplayedMessages: with a key, a signed message is accepted
// once; the same frames again (also with the signature in upper case) are
// a replay, as jupyter_client's Session rejects a digest it has seen. A
// badly signed message does not enter the history, and the history is
// bounded. Without a key nothing is signed, so nothing can be told apart.
func TestParseDropsReplayedMessages(t *testing.T) {
	s, _ := NewSigner("secret", "hmac-sha256")
	frames := testFrames(t, s, testHeader)
	if _, err := s.Parse(frames); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Parse(frames); !errors.Is(err, ErrReplay) {
		t.Errorf("the same frames again: err = %v, want ErrReplay", err)
	}
	upper := append([][]byte(nil), frames...)
	upper[3] = bytes.ToUpper(frames[3])
	if _, err := s.Parse(upper); !errors.Is(err, ErrReplay) {
		t.Errorf("the same message with its signature in upper case: err = %v, want ErrReplay", err)
	}
	other := testFrames(t, s, strings.Replace(testHeader, `"a1"`, `"a2"`, 1))
	if _, err := s.Parse(other); err != nil {
		t.Errorf("another message: %v", err)
	}

	// A bad signature is not remembered: the good message with the same
	// content still parses once.
	b, _ := NewSigner("secret", "")
	fresh := testFrames(t, b, strings.Replace(testHeader, `"a1"`, `"a3"`, 1))
	forged := append([][]byte(nil), fresh...)
	forged[7] = []byte(`{"code":"forged"}`)
	if _, err := b.Parse(forged); !errors.Is(err, ErrSignature) {
		t.Fatalf("forged: %v", err)
	}
	if _, err := b.Parse(fresh); err != nil {
		t.Errorf("after a forged copy, the genuine message: %v", err)
	}

	// The history keeps the newest digests, up to its size.
	small, _ := NewSigner("secret", "")
	small.maxSeen = 3
	var all [][][]byte
	for i := range 5 {
		f := testFrames(t, small, strings.Replace(testHeader, `"a1"`, fmt.Sprintf(`"m%d"`, i), 1))
		all = append(all, f)
		if _, err := small.Parse(f); err != nil {
			t.Fatal(err)
		}
	}
	if len(small.seen) != 3 {
		t.Errorf("history holds %d digests, want 3", len(small.seen))
	}
	if _, err := small.Parse(all[4]); !errors.Is(err, ErrReplay) {
		t.Errorf("the newest message again: %v, want ErrReplay", err)
	}

	open, _ := NewSigner("", "")
	unsigned := testFrames(t, open, testHeader)
	for i := range 2 {
		if _, err := open.Parse(unsigned); err != nil {
			t.Errorf("no key, message %d: %v", i+1, err)
		}
	}
}
