package viewer

import (
	"container/list"

	"github.com/memlab/memlab/runstore"
)

// runCache keeps the records of the runs read last, at most max records
// over all of them (max < 0: no bound), dropping the runs used least
// recently first; it keeps at least the run put last, whatever its size.
// The viewer's mutex guards it.
type runCache struct {
	max   int
	total int
	lru   *list.List // of *runData, the most recently used first
	at    map[string]*list.Element
}

func newRunCache(max int) *runCache {
	return &runCache{max: max, lru: list.New(), at: map[string]*list.Element{}}
}

// get returns the records of the run in state info, marked as used; nil
// when the cache does not have them in that state.
func (c *runCache) get(info runstore.RunInfo) *runData {
	e := c.at[info.ID]
	if e == nil {
		return nil
	}
	d := e.Value.(*runData)
	if !sameState(d.info, info) {
		return nil
	}
	c.lru.MoveToFront(e)
	return d
}

// put adds d (replacing any other state of its run) as the most recently
// used, then drops the least recently used runs while the records exceed
// the bound.
func (c *runCache) put(d *runData) {
	if e := c.at[d.info.ID]; e != nil {
		c.remove(e)
	}
	c.at[d.info.ID] = c.lru.PushFront(d)
	c.total += len(d.recs)
	for c.max >= 0 && c.total > c.max && c.lru.Len() > 1 {
		c.remove(c.lru.Back())
	}
}

func (c *runCache) remove(e *list.Element) {
	d := c.lru.Remove(e).(*runData)
	delete(c.at, d.info.ID)
	c.total -= len(d.recs)
}

// records returns how many records the cache holds and the ids of its
// runs, the most recently used first.
func (c *runCache) records() (int, []string) {
	var ids []string
	for e := c.lru.Front(); e != nil; e = e.Next() {
		ids = append(ids, e.Value.(*runData).info.ID)
	}
	return c.total, ids
}
