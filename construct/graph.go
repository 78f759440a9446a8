package construct

import (
	"sort"
	"sync"
)

// node is one call in a build's call graph (dur 1), or a point where
// calls meet without one (dur 0: a join in code, an item reused from the
// store, a call the cache answered).
type node struct {
	step    string
	dur     int
	parents []*node
	id      int
}

// graph records the calls of a build with what each waited for, to give
// the floor of its wall time: the longest chain of calls, and the calls
// an ideal executor with the build's concurrency needs in sequence
// (schedule).
type graph struct {
	mu    sync.Mutex
	nodes []*node
}

func nodesOf(refs []Ref) []*node {
	var out []*node
	for _, r := range refs {
		if r.node != nil {
			out = append(out, r.node)
		}
	}
	return out
}

func (g *graph) add(step string, dur int, parents []*node) *node {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := &node{step: step, dur: dur, parents: parents, id: len(g.nodes)}
	g.nodes = append(g.nodes, n)
	return n
}

// floor is a step's (or the build's) floor in call latencies.
type floor struct {
	depth    int // longest chain of calls ending there
	schedule int // when an ideal executor finishes its last call
}

// simulate runs the graph on conc slots, each call one unit of time, every
// call starting as soon as its parents are done and a slot is free, the
// ready calls with the longest chain still ahead of them first. It returns
// each node's finish time and chain depth.
func (g *graph) simulate(conc int) (finish, depth []int) {
	g.mu.Lock()
	nodes := append([]*node(nil), g.nodes...)
	g.mu.Unlock()
	n := len(nodes)
	if conc < 1 {
		conc = 1
	}
	children := make([][]int, n)
	waiting := make([]int, n)
	depth = make([]int, n)
	for _, x := range nodes {
		d := 0
		for _, p := range x.parents {
			children[p.id] = append(children[p.id], x.id)
			d = max(d, depth[p.id])
		}
		waiting[x.id] = len(x.parents)
		depth[x.id] = d + x.dur // parents come before their children in nodes
	}
	// height: the longest chain of calls from a node to the end.
	height := make([]int, n)
	for i := n - 1; i >= 0; i-- {
		h := 0
		for _, c := range children[i] {
			h = max(h, height[c])
		}
		height[i] = h + nodes[i].dur
	}
	finish = make([]int, n)
	ready := []int{}
	for i, x := range nodes {
		if len(x.parents) == 0 {
			ready = append(ready, i)
		}
	}
	done := 0
	release := func(i, t int) {
		finish[i] = t
		done++
		for _, c := range children[i] {
			waiting[c]--
			if waiting[c] == 0 {
				ready = append(ready, c)
			}
		}
	}
	for t := 0; done < n; t++ {
		// Nodes without a call finish when their parents have.
		for {
			var zero, calls []int
			for _, i := range ready {
				if nodes[i].dur == 0 {
					zero = append(zero, i)
				} else {
					calls = append(calls, i)
				}
			}
			ready = calls
			if len(zero) == 0 {
				break
			}
			for _, i := range zero {
				release(i, t)
			}
		}
		sort.SliceStable(ready, func(a, b int) bool { return height[ready[a]] > height[ready[b]] })
		k := min(conc, len(ready))
		running := ready[:k]
		ready = append([]int(nil), ready[k:]...)
		for _, i := range running {
			release(i, t+1)
		}
		if k == 0 && done < n {
			break // nothing ready: a cycle cannot happen, parents come first
		}
	}
	return finish, depth
}

// floors returns each step's floor.
func (g *graph) floors(conc int) map[string]floor {
	finish, depth := g.simulate(conc)
	out := map[string]floor{}
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, x := range g.nodes {
		f := out[x.step]
		if x.dur > 0 || f.depth > 0 || depth[i] > 0 {
			f.depth = max(f.depth, depth[i])
			f.schedule = max(f.schedule, finish[i])
		}
		out[x.step] = f
	}
	return out
}

// total returns the whole build's floor.
func (g *graph) total(conc int) floor {
	finish, depth := g.simulate(conc)
	var f floor
	for i := range finish {
		f.depth = max(f.depth, depth[i])
		f.schedule = max(f.schedule, finish[i])
	}
	return f
}
