package jupyter

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"hash"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse is the fuzz target of the wire decoder. Run it with
//
//	go test -run='^$' -fuzz='^FuzzParse$' -fuzztime=30s ./kernel/jupyter

// frameSep separates the frames of a fuzzed multipart message: 0xFF never
// occurs in UTF-8, so JSON frames are never split.
const frameSep = 0xFF

var fuzzSchemes = []string{"hmac-sha256", "", "hmac-sha512"}

// independentSign is the HMAC of the four signed frames computed here, not
// by Signer, in lowercase hex ("" for an empty key).
func independentSign(key, scheme string, frames ...[]byte) []byte {
	if key == "" {
		return []byte{}
	}
	h := func() hash.Hash { return sha256.New() }
	if scheme == "hmac-sha512" {
		h = sha512.New
	}
	m := hmac.New(h, []byte(key))
	for _, f := range frames {
		m.Write(f)
	}
	return []byte(hex.EncodeToString(m.Sum(nil)))
}

// isEmptyDict reports whether Parse reads frame b as {} (empty or null).
func isEmptyDict(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) == 0 || string(t) == "null"
}

// FuzzParse decodes a fuzzed multipart message (frames separated by 0xFF),
// signed correctly by the harness when sign is set. A message it accepts
// carries a valid signature (checked by an independent HMAC) and a
// msg_type, is refused as ErrReplay when it comes again with a key (its
// signature in other case too), re-encodes to the same frames (signature
// recomputed in lower case, empty or null dicts as {}), and that encoding
// decodes to the same message in a fresh session. A message it rejects wraps ErrMalformed or ErrSignature, a
// correctly signed message is never rejected for its signature, and an
// error never shows the key.
func FuzzParse(f *testing.F) {
	join := func(frames ...string) []byte {
		return bytes.Join(func() [][]byte {
			out := make([][]byte, len(frames))
			for i, s := range frames {
				out[i] = []byte(s)
			}
			return out
		}(), []byte{frameSep})
	}
	for _, h := range []string{testHeader,
		`{"msg_id":"1","session":"s","username":"u","date":"","msg_type":"kernel_info_request","version":"5.3"}`,
		`{"msg_type":"comm_open"}`, `not json`, `{"msg_id":"1"}`, `{"msg_type":""}`} {
		f.Add(join("peer-1", "peer-2", delimiter, "", h, "{}", "{}", `{"code":"1"}`, "buf0"), "secret", uint8(0), true)
		f.Add(join(delimiter, "", h, "null", "", " null ", "b1", "b2"), "k", uint8(2), true)
		f.Add(join("topic", delimiter, "", h, "{}", "{}", "{}"), "", uint8(1), false)
	}
	f.Add(join(delimiter, "0000", testHeader, "{}", "{}", "{}"), "secret", uint8(0), false)
	f.Add(join("a", delimiter), "secret", uint8(0), true)
	f.Fuzz(func(t *testing.T, raw []byte, key string, scheme uint8, sign bool) {
		sch := fuzzSchemes[int(scheme)%len(fuzzSchemes)]
		s, frames, d, signed, m, err := parseFuzzed(t, raw, key, sch, sign)
		if err != nil {
			msg := err.Error()
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrSignature) {
				t.Fatalf("error %q wraps neither ErrMalformed nor ErrSignature (a first message is no replay)", msg)
			}
			if signed && errors.Is(err, ErrSignature) {
				t.Fatalf("a correctly signed message is rejected: %v", err)
			}
			if len(key) >= 4 && strings.Contains(msg, key) && !bytes.Contains(raw, []byte(key)) {
				// The key may be a word of the message's own text ("char" in
				// "invalid character"): it leaks only if the same input under
				// another key of its length shows that key fewer times.
				other := strings.Repeat("\x01", len(key))
				if other == key {
					other = strings.Repeat("\x02", len(key))
				}
				_, _, _, _, _, err2 := parseFuzzed(t, raw, other, sch, sign)
				if err2 == nil || strings.Count(msg, key) > strings.Count(err2.Error(), key) {
					t.Fatalf("error %q shows the key", msg)
				}
			}
			return
		}
		if d < 0 || len(frames) < d+6 {
			t.Fatalf("accepted %d frames with the delimiter at %d", len(frames), d)
		}
		if key != "" && !hmac.Equal(bytes.ToLower(frames[d+1]), independentSign(key, sch, frames[d+2:d+6]...)) {
			t.Fatalf("accepted signature %q, which is not the HMAC of the frames", frames[d+1])
		}
		if m.Header.MsgType == "" {
			t.Fatalf("accepted a header without msg_type: %s", frames[d+2])
		}
		again := append([][]byte(nil), frames...)
		again[d+1] = bytes.ToUpper(frames[d+1]) // the same signature in other case
		if _, err := s.Parse(again); key != "" && !errors.Is(err, ErrReplay) || key == "" && err != nil {
			t.Fatalf("the same message again (key %q): %v; want ErrReplay with a key, acceptance without", key, err)
		}
		out, err := s.Frames(m)
		if err != nil {
			t.Fatalf("an accepted message does not re-encode: %v", err)
		}
		want := make([][]byte, 0, len(frames))
		want = append(want, frames[:d+1]...)
		want = append(want, nil, frames[d+2])
		for _, fr := range frames[d+3 : d+6] {
			if isEmptyDict(fr) {
				fr = []byte("{}")
			}
			want = append(want, fr)
		}
		want = append(want, frames[d+6:]...)
		want[d+1] = independentSign(key, sch, want[d+2:d+6]...)
		if len(out) != len(want) {
			t.Fatalf("re-encoded to %d frames, want %d", len(out), len(want))
		}
		for i := range want {
			if !bytes.Equal(out[i], want[i]) {
				t.Fatalf("re-encoded frame %d = %q, want %q", i, out[i], want[i])
			}
		}
		s2, _ := NewSigner(key, sch) // a fresh session: no message seen yet
		m2, err := s2.Parse(out)
		if err != nil {
			t.Fatalf("the re-encoded message does not decode: %v", err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("the re-encoded message decodes differently:\n%+v\n%+v", m, m2)
		}
	})
}

// parseFuzzed splits raw into frames at frameSep, signs them correctly with
// key when sign is set and the message has all its frames, and parses them
// with a fresh Signer. d is the delimiter's index (-1 when absent).
func parseFuzzed(t *testing.T, raw []byte, key, sch string, sign bool) (s *Signer, frames [][]byte, d int, signed bool, m *Message, err error) {
	t.Helper()
	s, err = NewSigner(key, sch)
	if err != nil {
		t.Fatal(err)
	}
	frames = bytes.Split(raw, []byte{frameSep})
	d = -1
	for i, fr := range frames {
		if string(fr) == delimiter {
			d = i
			break
		}
	}
	if sign && d >= 0 && len(frames) >= d+6 {
		frames[d+1] = independentSign(key, sch, frames[d+2:d+6]...)
		signed = true
	}
	m, err = s.Parse(frames)
	return s, frames, d, signed, m, err
}
