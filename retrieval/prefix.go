package retrieval

// The PrefixStable claims of the systems in this package, each checked on
// the sample by the catalog's TestPrefixStable.

// PrefixStable is true: BM25's ranking does not depend on k.
func (f *Flat) PrefixStable() bool { return true }

// PrefixStable is true unless expansion units follow their trace hits
// (ExpansionHits), which are cut at k after the expansion.
func (f *FlatUnits) PrefixStable() bool { return !f.cfg.ExpansionHits }

// PrefixStable is true: chunks are ranked by cosine, whatever k.
func (n *NaiveRAG) PrefixStable() bool { return true }

// PrefixStable is true: no memory returns nothing at every k.
func (BaseNoMemory) PrefixStable() bool { return true }

// PrefixStable is the memory's claim, when it makes one.
func (s *Incremental) PrefixStable() bool {
	p, ok := s.mem.(PrefixStable)
	return ok && p.PrefixStable()
}
