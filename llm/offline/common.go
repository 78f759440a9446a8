package offline

import (
	"context"
	"math"
	"unicode/utf8"
)

// idf is the smoothed inverse document frequency ln((1+n)/(1+df)) + 1 of a
// term found in df of n documents; df = 0 gives the largest value.
func idf(n, df int) float64 {
	return math.Log(float64(1+n)/float64(1+df)) + 1
}

// sublinear is the sublinear term frequency weight 1 + ln(tf), tf ≥ 1.
func sublinear(tf int) float64 {
	return 1 + math.Log(float64(tf))
}

// normalize scales x to unit L2 norm in place and returns its former norm; a
// zero vector is left as it is.
func normalize(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	s = math.Sqrt(s)
	if s > 0 {
		for i := range x {
			x[i] /= s
		}
	}
	return s
}

// toFloat32 converts x to a new float32 slice.
func toFloat32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// checkCtx returns ctx.Err() on every ctxEvery-th step i, nil otherwise.
func checkCtx(ctx context.Context, i int) error {
	if i%ctxEvery != 0 {
		return nil
	}
	return ctx.Err()
}

// FNV-1a 64 constants.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnvString folds the bytes of s into the FNV-1a hash h.
func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// fnvRune folds the UTF-8 bytes of r into the FNV-1a hash h.
func fnvRune(h uint64, r rune) uint64 {
	var b [4]byte
	n := encodeRune(b[:], r)
	for i := 0; i < n; i++ {
		h ^= uint64(b[i])
		h *= fnvPrime
	}
	return h
}

// mix is the splitmix64 finaliser: it spreads FNV's weak high bits so that
// both the bucket (low bits) and the sign (top bit) are well distributed.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// encodeRune writes the UTF-8 encoding of r into b and returns its length.
func encodeRune(b []byte, r rune) int { return utf8.EncodeRune(b, r) }
