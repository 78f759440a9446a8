package jupyter

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"sync"
	"time"

	"github.com/google/uuid"
)

// ProtocolVersion is the Jupyter messaging protocol version the kernel
// speaks (no debugger, so not 5.4+).
const ProtocolVersion = "5.3"

// delimiter separates the routing identities from the signed frames.
const delimiter = "<IDS|MSG>"

// Header is a message header. Unknown fields of received headers survive
// because parent headers are echoed from the raw bytes (Message.RawHeader).
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// Message is one Jupyter message as received or to be sent.
type Message struct {
	// Identities are the routing frames before the delimiter (ROUTER peer
	// ids; on iopub the topic).
	Identities [][]byte
	// Header is the decoded header; RawHeader its bytes as received (nil
	// for messages built here, which marshal Header).
	Header    Header
	RawHeader json.RawMessage
	// ParentHeader is the parent's header as raw JSON ("{}" when none).
	ParentHeader json.RawMessage
	// Metadata and Content are raw JSON objects.
	Metadata json.RawMessage
	Content  json.RawMessage
	// Buffers are the extra raw frames after content (not signed).
	Buffers [][]byte
}

// Signer signs and verifies messages with the connection's key, and keeps
// the signatures of the messages it accepted so that a replayed message
// (the same signed frames again) is rejected, as jupyter_client's Session
// does. A Signer with an empty key signs with "" and accepts any
// signature, as the protocol says: then there is no authentication and no
// replay detection. A Signer is safe for concurrent use.
type Signer struct {
	key  []byte
	hash func() hash.Hash

	mu      sync.Mutex
	seen    map[string]struct{} // signatures accepted, lower-case hex
	order   []string            // the same, in a ring: order[next] is the oldest once full
	next    int
	maxSeen int // history size; 0 = DigestHistorySize
}

// DigestHistorySize is how many signatures of accepted messages a Signer
// keeps to detect replays (jupyter_client's default). Past it the oldest
// are forgotten.
const DigestHistorySize = 1 << 16

// NewSigner returns a signer for the connection file's key and
// signature_scheme ("hmac-sha256", "hmac-sha512"; "" means hmac-sha256).
func NewSigner(key, scheme string) (*Signer, error) {
	s := &Signer{key: []byte(key)}
	switch scheme {
	case "", "hmac-sha256":
		s.hash = sha256.New
	case "hmac-sha512":
		s.hash = sha512.New
	default:
		return nil, fmt.Errorf("jupyter: signature_scheme %q: unsupported (want hmac-sha256)", scheme)
	}
	return s, nil
}

// Sign returns the lowercase hex signature of the four signed frames.
func (s *Signer) Sign(frames ...[]byte) []byte {
	if len(s.key) == 0 {
		return []byte{}
	}
	m := hmac.New(s.hash, s.key)
	for _, f := range frames {
		m.Write(f)
	}
	sum := m.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// verify checks sig against the frames in constant time.
func (s *Signer) verify(sig []byte, frames ...[]byte) bool {
	if len(s.key) == 0 {
		return true
	}
	return hmac.Equal(bytes.ToLower(sig), s.Sign(frames...))
}

// remember records a verified signature and reports whether it is new.
// Without a key every message is new.
func (s *Signer) remember(sig []byte) bool {
	if len(s.key) == 0 {
		return true
	}
	d := string(bytes.ToLower(sig))
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.seen[d]; dup {
		return false
	}
	size := s.maxSeen
	if size <= 0 {
		size = DigestHistorySize
	}
	if s.seen == nil {
		s.seen = map[string]struct{}{}
	}
	if len(s.order) < size {
		s.order = append(s.order, d)
	} else {
		delete(s.seen, s.order[s.next])
		s.order[s.next] = d
		s.next = (s.next + 1) % size
	}
	s.seen[d] = struct{}{}
	return true
}

// Errors of Parse.
var (
	// ErrMalformed is wrapped by errors about badly framed messages.
	ErrMalformed = errors.New("malformed message")
	// ErrSignature is wrapped by errors about bad signatures.
	ErrSignature = errors.New("bad signature")
	// ErrReplay is wrapped by errors about a signed message whose signature
	// was accepted before: a replay.
	ErrReplay = errors.New("replayed message (duplicate signature)")
)

// Parse decodes a multipart message: identities, delimiter, signature,
// header, parent_header, metadata, content and buffers. It checks every
// bound, the signature and that the signature was not accepted before
// (ErrReplay) before decoding the header; a message it rejects must be
// dropped without a reply. Only verified signatures enter the history, so
// that forged messages cannot push genuine ones out of it.
func (s *Signer) Parse(frames [][]byte) (*Message, error) {
	d := -1
	for i, f := range frames {
		if string(f) == delimiter {
			d = i
			break
		}
	}
	if d < 0 {
		return nil, fmt.Errorf("jupyter: parse %d frames: no %s delimiter: %w", len(frames), delimiter, ErrMalformed)
	}
	if len(frames) < d+6 {
		return nil, fmt.Errorf("jupyter: parse %d frames: want at least 5 frames after the delimiter at %d, got %d: %w",
			len(frames), d, len(frames)-d-1, ErrMalformed)
	}
	sig := frames[d+1]
	header, parent, meta, content := frames[d+2], frames[d+3], frames[d+4], frames[d+5]
	if !s.verify(sig, header, parent, meta, content) {
		return nil, fmt.Errorf("jupyter: parse message with signature %.16q: %w", sig, ErrSignature)
	}
	if !s.remember(sig) {
		return nil, fmt.Errorf("jupyter: parse message with signature %.16q: %w", sig, ErrReplay)
	}
	m := &Message{
		Identities:   frames[:d],
		RawHeader:    json.RawMessage(header),
		ParentHeader: orEmpty(parent),
		Metadata:     orEmpty(meta),
		Content:      orEmpty(content),
		Buffers:      frames[d+6:],
	}
	if err := json.Unmarshal(header, &m.Header); err != nil {
		return nil, fmt.Errorf("jupyter: parse header %.64q: %w (%w)", header, err, ErrMalformed)
	}
	if m.Header.MsgType == "" {
		return nil, fmt.Errorf("jupyter: parse header %.64q: no msg_type: %w", header, ErrMalformed)
	}
	return m, nil
}

// orEmpty returns b, or {} when b is empty or null.
func orEmpty(b []byte) json.RawMessage {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(b)
}

// Frames encodes m as a multipart message, signing it. A nil RawHeader is
// marshalled from Header; nil parent header, metadata and content are sent
// as {}.
func (s *Signer) Frames(m *Message) ([][]byte, error) {
	header := []byte(m.RawHeader)
	if header == nil {
		var err error
		if header, err = json.Marshal(m.Header); err != nil {
			return nil, fmt.Errorf("jupyter: encode %s header: %w", m.Header.MsgType, err)
		}
	}
	parent, meta, content := orEmpty(m.ParentHeader), orEmpty(m.Metadata), orEmpty(m.Content)
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, []byte(delimiter), s.Sign(header, parent, meta, content), header, parent, meta, content)
	frames = append(frames, m.Buffers...)
	return frames, nil
}

// newHeader makes the header of a message the kernel sends.
func newHeader(session, msgType string) Header {
	return Header{
		MsgID:    uuid.NewString(),
		Session:  session,
		Username: "kernel",
		Date:     time.Now().UTC().Format(time.RFC3339Nano),
		MsgType:  msgType,
		Version:  ProtocolVersion,
	}
}

// marshalContent encodes a content value without HTML escaping. The
// content types of messages.go hold their dicts and lists as Dict,
// MIMEBundle and List, which encode nil as {} or [] where a plain map or
// slice would give null.
func marshalContent(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
