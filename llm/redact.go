package llm

import (
	"errors"
	"strings"
)

// Redacted replaces a credential in what RedactURLs returns.
const Redacted = "***"

// RedactURLs returns s with the credentials of every URL in it replaced by
// Redacted: the userinfo ("user:password@" becomes "***@") and the value
// of each query parameter whose name says it holds a secret (key, api_key,
// apikey, x-api-key, token, access_token, secret, password, sig,
// signature, auth, code...). The scheme, host, port, path and the other
// parameters stay, so that two endpoints still have two names (and two run
// ids). s is one URL or any text naming URLs: a model's target, a run
// spec, an error message, a log line. Every place memlab names a URL goes
// through it.
func RedactURLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		if !isScheme(s[:i]) {
			b.WriteString(s[:i+3])
			s = s[i+3:]
			continue
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		// The authority runs to the first '/', '?' or '#' (or the end of
		// the URL); its userinfo to the last '@' in it.
		end := strings.IndexFunc(s, func(r rune) bool { return r == '/' || r == '?' || r == '#' || endsURL(r) })
		if end < 0 {
			end = len(s)
		}
		auth := s[:end]
		if at := strings.LastIndex(auth, "@"); at >= 0 {
			auth = Redacted + auth[at:]
		}
		b.WriteString(auth)
		s = s[end:]
		// The path, then the query up to '#' or the end of the URL.
		end = strings.IndexFunc(s, func(r rune) bool { return r == '?' || r == '#' || endsURL(r) })
		if end < 0 || s[end] != '?' {
			continue // no query: the rest is scanned for further URLs
		}
		b.WriteString(s[:end+1])
		s = s[end+1:]
		end = strings.IndexFunc(s, func(r rune) bool { return r == '#' || endsURL(r) })
		if end < 0 {
			end = len(s)
		}
		b.WriteString(redactQuery(s[:end]))
		s = s[end:]
	}
}

// isScheme reports whether the text before "://" ends in a URL scheme
// (a letter, then letters, digits, '+', '-' or '.').
func isScheme(before string) bool {
	j := len(before)
	for j > 0 {
		c := before[j-1]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.' {
			j--
			continue
		}
		break
	}
	if j == len(before) {
		return false
	}
	c := before[j]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// endsURL reports whether r cannot be part of a URL written in text.
func endsURL(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '"', '\'', '<', '>', '`':
		return true
	}
	return false
}

// redactQuery redacts the values of the secret parameters of a query.
func redactQuery(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		name, _, ok := strings.Cut(p, "=")
		if ok && secretParam(name) {
			parts[i] = name + "=" + Redacted
		}
	}
	return strings.Join(parts, "&")
}

// secretParam reports whether a query parameter's name says that its value
// is a credential: key, api_key, apiKey, x-api-key, token, access_token,
// secret, client_secret, password, sig, signature, auth, code (an Azure
// Functions key), ...
func secretParam(name string) bool {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	n := b.String()
	for _, suffix := range []string{"key", "token", "secret", "password", "passwd", "signature", "credential", "credentials"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	switch n {
	case "sig", "auth", "authorization", "code", "pwd", "pass", "jwt":
		return true
	}
	return false
}

// redactSecrets removes an endpoint's key (in case a server echoed it) and
// the credentials of URLs from a message.
func redactSecrets(msg, key string) string {
	if key != "" {
		msg = strings.ReplaceAll(msg, key, "[redacted]")
	}
	return RedactURLs(msg)
}

// redactedError is an error whose message had secrets removed. It matches
// what the original matched with errors.Is (a timeout stays a timeout), but
// does not unwrap to it, so that the original message cannot be printed.
type redactedError struct {
	msg  string
	orig error
}

func (e *redactedError) Error() string { return e.msg }

// Is reports whether the original error is target.
func (e *redactedError) Is(target error) bool { return errors.Is(e.orig, target) }
