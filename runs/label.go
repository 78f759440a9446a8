package runs

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/memlab/memlab/component"
	"github.com/memlab/memlab/record"
)

// labelled is a system that got a default label in this process.
type labelled struct {
	key, name string
	spec      *component.Spec
	label     string
}

var (
	labelMu sync.Mutex
	// labelled maps a default label (record.DefaultLabel) to the systems
	// labelled from it, in order; labelsTaken holds every label given.
	labelsByBase = map[string][]labelled{}
	labelsTaken  = map[string]string{} // label -> system key
)

// uniqueLabel is the label of a run given none: record.DefaultLabel of
// its system and k ("flat k=10"), unique in the process: a later run whose
// default label is that of an earlier run with another system spec gets
// the knobs that tell it apart (component.DisplayNames over the systems of
// that label: "flat(scorer=dense) k=10"), so that four systems never all
// read "flat k=10" in one notebook's progress and listings. The same
// system gets the same label again. Labels are for display only: the run
// id does not depend on them.
func uniqueLabel(name string, spec *component.Spec, k int) string {
	base := record.DefaultLabel(name, k)
	key := "name:" + name
	if spec != nil {
		if b, err := spec.JSON(); err == nil {
			key = string(b)
		}
	}
	labelMu.Lock()
	defer labelMu.Unlock()
	seen := labelsByBase[base]
	for _, s := range seen {
		if s.key == key {
			return s.label
		}
	}
	label := base
	if len(seen) > 0 {
		names := make([]string, 0, len(seen)+1)
		specs := make([]*component.Spec, 0, len(seen)+1)
		for _, s := range seen {
			names, specs = append(names, s.name), append(specs, s.spec)
		}
		dn := component.DisplayNames(append(names, name), append(specs, spec))
		label = fmt.Sprintf("%s k=%d", dn[len(dn)-1], k)
	}
	if owner, ok := labelsTaken[label]; ok && owner != key {
		for i := 2; ; i++ {
			if l := base + "#" + strconv.Itoa(i); labelsTaken[l] == "" {
				label = l
				break
			}
		}
	}
	labelsByBase[base] = append(seen, labelled{key: key, name: name, spec: spec, label: label})
	labelsTaken[label] = key
	return label
}
