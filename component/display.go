package component

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// DisplayNames returns short names that tell the given components apart,
// for the rows or columns of one table, one figure or one progress display.
//
// names[i] is component i's own name (a Name method's "flat(bm25,k1=1.5,...)";
// its part before the first "(" is kept) and specs[i] its spec (nil when
// unknown, as for a run stored before component specs). Components of the
// same short name whose specs differ get, in parentheses, just the knobs
// that differ among them, as key=value sorted by key, a part's knobs as
// part.knob ("flat(scorer=dense)", "flat(embedder.kind=lsa)"); a knob
// common to all of them is left out, since a footnote can say it once.
// Equal specs get equal names. Where a spec is unknown, the full name is
// used for a short name whose names differ. Values longer than 24
// characters are cut, and if names would still collide the later ones get
// "#2", "#3"..., so two different components never share a name.
func DisplayNames(names []string, specs []*Spec) []string {
	out := make([]string, len(names))
	groups := map[string][]int{}
	var order []string
	for i, n := range names {
		b := shortName(n)
		if _, ok := groups[b]; !ok {
			order = append(order, b)
		}
		groups[b] = append(groups[b], i)
	}
	for _, b := range order {
		idx := groups[b]
		flat := make([]map[string]string, len(idx))
		known := true
		for j, i := range idx {
			if i >= len(specs) || specs[i] == nil {
				known = false
				break
			}
			flat[j] = map[string]string{}
			flatten(flat[j], "", *specs[i])
		}
		if !known {
			distinct := map[string]bool{}
			for _, i := range idx {
				distinct[names[i]] = true
			}
			for _, i := range idx {
				out[i] = b
				if len(distinct) > 1 {
					out[i] = names[i]
				}
			}
			continue
		}
		all := differing(flat)
		keys := pruneUnderKinds(all)
		shared := map[string]affix{}
		for _, k := range all {
			shared[k] = sharedAffix(flat, k)
		}
		label := func(keys []string) []string {
			names := make([]string, len(idx))
			for j := range idx {
				names[j] = b
				if len(keys) == 0 {
					continue
				}
				var parts []string
				for _, k := range keys {
					v, ok := flat[j][k]
					if !ok {
						v = "-"
					} else {
						v = shared[k].trim(v)
					}
					parts = append(parts, strings.TrimSuffix(k, ".kind")+"="+clipValue(v))
				}
				names[j] = b + "(" + strings.Join(parts, ",") + ")"
			}
			return names
		}
		names := label(keys)
		if !tellsApart(names, flat) {
			names = label(all)
		}
		for j, i := range idx {
			out[i] = names[j]
		}
	}
	uniquify(out, names, specs)
	return out
}

// DisplayName is DisplayNames of one component: its short name.
func DisplayName(name string) string { return shortName(name) }

// shortName is a name without its settings: "flat(bm25,k1=...)" -> "flat".
func shortName(name string) string {
	if i := strings.IndexByte(name, '('); i > 0 {
		return name[:i]
	}
	return name
}

// flatten writes every knob of s into m under its dotted path; the kind of
// a part is its path's "kind" (the top-level kind under "kind").
func flatten(m map[string]string, prefix string, s Spec) {
	m[prefix+"kind"] = s.Kind
	for _, k := range slices.Sorted(maps.Keys(s.Knobs)) {
		v := s.Knobs[k]
		if sub, ok := v.(Spec); ok {
			flatten(m, prefix+k+".", sub)
			continue
		}
		var b bytes.Buffer
		if err := encodeValue(&b, v); err != nil {
			m[prefix+k] = fmt.Sprint(v)
			continue
		}
		m[prefix+k] = strings.Trim(b.String(), `"`)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Parts)) {
		flatten(m, prefix+k+".", s.Parts[k])
	}
}

// differing returns the keys whose value is not the same in every map (or
// missing in some), the top-level kind first, then sorted.
func differing(flat []map[string]string) []string {
	all := map[string]bool{}
	for _, m := range flat {
		for k := range m {
			all[k] = true
		}
	}
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(all)) {
		v0, ok0 := flat[0][k]
		for _, m := range flat[1:] {
			if v, ok := m[k]; ok != ok0 || v != v0 {
				keys = append(keys, k)
				break
			}
		}
	}
	if i := slices.Index(keys, "kind"); i > 0 {
		keys = append([]string{"kind"}, slices.Delete(keys, i, i+1)...)
	}
	return keys
}

// pruneUnderKinds drops the keys of a part whose kind differs (its kind
// says enough: "embedder=hashed" rather than every knob of each embedder).
func pruneUnderKinds(keys []string) []string {
	var kinds []string
	for _, k := range keys {
		if strings.HasSuffix(k, ".kind") {
			kinds = append(kinds, strings.TrimSuffix(k, "kind"))
		}
	}
	var out []string
	for _, k := range keys {
		under := false
		for _, p := range kinds {
			if strings.HasPrefix(k, p) && k != p+"kind" {
				under = true
			}
		}
		if !under {
			out = append(out, k)
		}
	}
	return out
}

// tellsApart reports whether names differ wherever the flattened specs do.
func tellsApart(names []string, flat []map[string]string) bool {
	seen := map[string]string{}
	for j, n := range names {
		key := fmt.Sprint(flat[j])
		if k, ok := seen[n]; ok && k != key {
			return false
		}
		seen[n] = key
	}
	return true
}

// affix is what every value of a knob starts and ends with, to be left
// out of display names as a knob common to all is: a model family's
// "openai/", an endpoint's "@default(http://...)".
type affix struct{ prefix, suffix string }

func (a affix) trim(v string) string {
	return strings.TrimSuffix(strings.TrimPrefix(v, a.prefix), a.suffix)
}

// sharedAffix returns what every present value of key shares: the
// longest common prefix cut after its last "/" and the longest common
// suffix cut at its first "@", or nothing when leaving them out would
// empty a value or make two values equal.
func sharedAffix(flat []map[string]string, key string) affix {
	var vals []string
	for _, m := range flat {
		if v, ok := m[key]; ok {
			vals = append(vals, v)
		}
	}
	if len(vals) < 2 {
		return affix{}
	}
	pre, suf := vals[0], vals[0]
	for _, v := range vals[1:] {
		for !strings.HasPrefix(v, pre) {
			pre = pre[:len(pre)-1]
		}
		for !strings.HasSuffix(v, suf) {
			suf = suf[1:]
		}
	}
	var a affix
	if i := strings.LastIndexByte(pre, '/'); i >= 0 {
		a.prefix = pre[:i+1]
	}
	if i := strings.IndexByte(suf, '@'); i >= 0 {
		a.suffix = suf[i:]
	}
	seen := map[string]bool{}
	distinct := map[string]bool{}
	for _, v := range vals {
		t := a.trim(v)
		if len(a.prefix)+len(a.suffix) > len(v) || t == "" {
			return affix{}
		}
		seen[t], distinct[v] = true, true
	}
	if len(seen) != len(distinct) {
		return affix{}
	}
	return a
}

func clipValue(v string) string {
	const most = 24
	if r := []rune(v); len(r) > most {
		return string(r[:most-1]) + "…"
	}
	return v
}

// uniquify numbers names that are equal although their components differ.
func uniquify(out, names []string, specs []*Spec) {
	identity := func(i int) string {
		if i < len(specs) && specs[i] != nil {
			if b, err := specs[i].JSON(); err == nil {
				return string(b)
			}
		}
		return "name:" + names[i]
	}
	seen := map[string][]string{} // display name -> identities in order
	for i, n := range out {
		id := identity(i)
		ids := seen[n]
		at := slices.Index(ids, id)
		if at < 0 {
			ids = append(ids, id)
			seen[n] = ids
			at = len(ids) - 1
		}
		if at > 0 {
			out[i] = fmt.Sprintf("%s#%d", n, at+1)
		}
	}
}
