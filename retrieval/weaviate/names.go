package weaviate

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"

	"github.com/google/uuid"
)

// objectNamespace is the UUID namespace of memlab's Weaviate object ids
// (uuid.NewSHA1 over the URL namespace and a fixed name), so ids are the same
// in every process and every version.
var objectNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://github.com/memlab/memlab/retrieval/weaviate#unit"))

// ObjectID returns the Weaviate object id of a unit of a corpus: a version 5
// (SHA-1) UUID over the corpus id and the unit id, so that importing the same
// unit again replaces the stored object instead of adding a second one. The
// two ids are joined with a NUL byte, so ("a/b", "c") and ("a", "b/c") differ.
func ObjectID(corpus, unitID string) string {
	return uuid.NewSHA1(objectNamespace, []byte(corpus+"\x00"+unitID)).String()
}

// maxNamePart bounds the readable embedder part of a collection name.
const maxNamePart = 48

// CollectionName returns the collection (Weaviate class) name for a dataset
// and an embedder: "Memlab", the first 12 hex digits of the dataset
// fingerprint, the embedder name reduced to letters and digits (at most 48
// of them), and 8 hex digits of a SHA-256 over the full fingerprint and the
// full embedder name, so two embedders whose names reduce to the same letters
// still get different collections. The result is a valid class name (see
// SanitizeClassName) and is the same on every call.
//
// Example: CollectionName("5aca6d87…", "hashed-tfidf(d=1024,char=3-5,…)") is
// "Memlab5aca6d877c18Hashedtfidfd1024char35…" followed by the hash.
func CollectionName(fingerprint, embedder string) string {
	fp := alnum(strings.ToLower(fingerprint))
	if len(fp) > 12 {
		fp = fp[:12]
	}
	emb := alnum(embedder)
	if len(emb) > maxNamePart {
		emb = emb[:maxNamePart]
	}
	if emb != "" {
		emb = strings.ToUpper(emb[:1]) + emb[1:]
	}
	sum := sha256.Sum256([]byte(fingerprint + "\x00" + embedder))
	return "Memlab" + fp + emb + hex.EncodeToString(sum[:4])
}

// SanitizeClassName turns s into a valid Weaviate class name as memlab uses
// them: only the ASCII letters and digits of s are kept, the first letter is
// upper-cased, and a leading "C" is added when the result would start with a
// digit or be empty. Weaviate also allows '_', memlab does not use it.
func SanitizeClassName(s string) string {
	a := alnum(s)
	if a == "" || (a[0] >= '0' && a[0] <= '9') {
		a = "C" + a
	}
	return strings.ToUpper(a[:1]) + a[1:]
}

// validClassName reports whether s is a class name as SanitizeClassName
// makes them: an upper-case ASCII letter, then ASCII letters and digits, at
// most 255 characters.
func validClassName(s string) bool {
	if s == "" || len(s) > 255 || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	return alnum(s) == s
}

// alnum keeps the ASCII letters and digits of s.
func alnum(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
