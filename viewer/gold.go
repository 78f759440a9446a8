package viewer

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/memlab/memlab/datasets"
)

// dsIndex is a dataset's questions and traces by corpus and id.
type dsIndex struct {
	data      *datasets.Dataset
	questions map[string]*datasets.Question
	traces    map[string]*datasets.Trace
}

func key(corpus, id string) string { return corpus + "\x00" + id }

// datasetsIndex indexes Options.Datasets by fingerprint, once.
type datasetsIndex struct {
	once sync.Once
	list []*datasets.Dataset
	by   map[string]*dsIndex
}

func (x *datasetsIndex) of(fingerprint string) *dsIndex {
	x.once.Do(func() {
		x.by = map[string]*dsIndex{}
		for _, d := range x.list {
			ix := &dsIndex{data: d, questions: map[string]*datasets.Question{}, traces: map[string]*datasets.Trace{}}
			for i := range d.Questions {
				q := &d.Questions[i]
				ix.questions[key(q.CorpusID, q.ID)] = q
			}
			for _, c := range d.Corpora {
				for i := range c.Traces {
					ix.traces[key(c.ID, c.Traces[i].ID)] = &c.Traces[i]
				}
			}
			x.by[d.Fingerprint] = ix
		}
	})
	return x.by[fingerprint]
}

// goldTrace is one trace of an evidence group.
type goldTrace struct {
	ID, Time, Medium, Text string
	Retrieved              int // rank of the first hit holding it, 0 when not retrieved
}

// goldGroup is one evidence group of a question.
type goldGroup struct {
	N         int
	Statement string
	Traces    []goldTrace
}

// questionSource is what the dataset says of a question.
type questionSource struct {
	Text, AskedAt, Answer string
	Choices               []choiceRow
	Groups                []goldGroup
}

type choiceRow struct {
	ID, Text string
	Correct  bool
}

// markGold fills q's gold marks and the dataset's view of the question from ix.
func (q *questionView) markGold(ix *dsIndex) {
	r := q.Rec
	src := ix.questions[key(r.CorpusID, r.QuestionID)]
	if src == nil {
		q.Gold = "The loaded dataset has no question " + r.QuestionID + " in corpus " + r.CorpusID + ": the units are not marked gold."
		return
	}
	qs := &questionSource{Text: src.Text, AskedAt: date(src.AskedAt), Answer: src.Answer}
	for _, c := range src.Choices {
		qs.Choices = append(qs.Choices, choiceRow{c.ID, c.Text, c.ID == src.Correct})
	}
	groupsOf := map[string][]int{}
	for gi, g := range src.Evidence {
		for _, id := range g.TraceIDs {
			if !slices.Contains(groupsOf[id], gi+1) {
				groupsOf[id] = append(groupsOf[id], gi+1)
			}
		}
	}
	firstRank := map[string]int{}
	for i := range q.Hits {
		h := &q.Hits[i]
		var groups []string
		for _, id := range r.Hits[i].TraceIDs {
			if _, ok := firstRank[id]; !ok {
				firstRank[id] = h.Rank
			}
			for _, g := range groupsOf[id] {
				groups = append(groups, "#"+strconv.Itoa(g))
			}
		}
		if len(groups) > 0 {
			h.Gold = true
			h.Groups = strings.Join(slices.Compact(groups), ", ")
		}
	}
	for gi, g := range src.Evidence {
		gg := goldGroup{N: gi + 1, Statement: g.Statement}
		for _, id := range g.TraceIDs {
			gt := goldTrace{ID: id, Retrieved: firstRank[id]}
			if t := ix.traces[key(r.CorpusID, id)]; t != nil {
				gt.Time, gt.Medium, gt.Text = date(t.Time), t.Medium, t.Text
			}
			gg.Traces = append(gg.Traces, gt)
		}
		qs.Groups = append(qs.Groups, gg)
	}
	q.Source = qs
	if len(src.Evidence) == 0 {
		q.Gold = "The question has no gold evidence."
	} else {
		q.Gold = "Units holding a gold trace are marked, with the evidence groups they cover."
	}
}
