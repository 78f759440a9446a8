package datasets

import (
	"strings"
	"testing"
)

// TestOnlyCorpus: the subset holds one corpus and exactly its questions;
// an unknown id names the corpora there are.
func TestOnlyCorpus(t *testing.T) {
	d, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	id := d.Corpora[0].ID
	sub, err := d.OnlyCorpus(id)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, q := range d.Questions {
		if q.CorpusID == id {
			n++
		}
	}
	if len(sub.Corpora) != 1 || len(sub.Questions) != n || n == 0 || n == len(d.Questions) {
		t.Fatalf("subset: %d corpora, %d questions; want 1 and %d of %d", len(sub.Corpora), len(sub.Questions), n, len(d.Questions))
	}
	for _, q := range sub.Questions {
		if q.CorpusID != id {
			t.Fatalf("question %s of corpus %s in the subset of %s", q.ID, q.CorpusID, id)
		}
	}
	if _, err := d.OnlyCorpus("nobody"); err == nil || !strings.Contains(err.Error(), id) {
		t.Fatalf("unknown corpus: %v", err)
	}
}
