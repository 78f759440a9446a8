package runs

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/record"
)

var (
	numberRE  = regexp.MustCompile(`\d+`)
	entityRE  = regexp.MustCompile(`\b[A-Z][a-z]{2,}\b`)
	abstainRE = regexp.MustCompile(`(?i)(does not mention|don't know|do not know|cannot be determined|not enough information|insufficient|not decided|hasn't decided|has not decided|unknown)`)
)

// CalibrationSet makes a judge calibration set from d's reference answers,
// offline and reproducibly (seed): for each question with a reference, a
// right paraphrase, and wrong answers made by perturbing the reference:
// another name from the references in place of one of its names
// (wrong-entity), a changed number, date or time (wrong-number), a vague
// non-answer (vague), and, where the reference says the thing is not known
// or not decided, or the question is one of the unanswerable or
// adversarial-abstention tasks, a confident commitment (false-commitment).
// LoCoMo's adversarial questions (category 5) are left out: the J judge
// does not judge them. perTask bounds the questions used per task (0 =
// all).
func CalibrationSet(d *datasets.Dataset, seed uint64, perTask int) []record.CalibrationItem {
	r := rand.New(rand.NewPCG(seed, 0))
	var names []string
	seen := map[string]bool{}
	for _, q := range d.Questions {
		for _, e := range entityRE.FindAllString(q.Answer, -1) {
			if !seen[e] && !stopName[e] {
				seen[e] = true
				names = append(names, e)
			}
		}
	}
	sort.Strings(names)
	used := map[string]int{}
	var out []record.CalibrationItem
	for _, q := range d.Questions {
		ref := strings.TrimSpace(q.Answer)
		if ref == "" {
			continue
		}
		if cat, ok := datasets.LoCoMoCategory(q); ok && cat == 5 {
			// LoCoMo's adversarial questions: their "answer" (two of the
			// 237 have one) is not what a reply is judged against, and the
			// J judge, as Mem0's evaluation, does not judge them.
			continue
		}
		if perTask > 0 && used[q.Task] >= perTask {
			continue
		}
		used[q.Task]++
		if abstainRE.MatchString(ref) {
			out = append(out,
				calibrationItem(q, "I can't say: nothing I have tells me that, so I don't know.", record.CalibrationParaphrase, true),
				calibrationItem(q, "Yes, definitely. It happened just as you put it, and I remember it clearly.", record.CalibrationFalseCommitment, false))
			continue
		}
		out = append(out, calibrationItem(q, "As far as I remember, "+lowerFirst(ref), record.CalibrationParaphrase, true))
		if locs := numberRE.FindAllStringIndex(ref, -1); len(locs) > 0 {
			loc := locs[r.IntN(len(locs))]
			n, _ := strconv.Atoi(ref[loc[0]:loc[1]])
			changed := strconv.Itoa(n + 1 + r.IntN(9))
			out = append(out, calibrationItem(q, ref[:loc[0]]+changed+ref[loc[1]:], record.CalibrationWrongNumber, false))
		}
		if locs := entityRE.FindAllStringIndex(ref, -1); len(locs) > 0 && len(names) > 1 {
			var cands [][]int
			for _, l := range locs {
				if !stopName[ref[l[0]:l[1]]] {
					cands = append(cands, l)
				}
			}
			if len(cands) > 0 {
				loc := cands[r.IntN(len(cands))]
				old := ref[loc[0]:loc[1]]
				repl := names[r.IntN(len(names))]
				for repl == old {
					repl = names[r.IntN(len(names))]
				}
				out = append(out, calibrationItem(q, ref[:loc[0]]+repl+ref[loc[1]:], record.CalibrationWrongEntity, false))
			}
		}
		out = append(out, calibrationItem(q, "It had to do with the people around me at the time, I think; the details have faded.", record.CalibrationVague, false))
		if abstentionTask(q.Task) {
			// The reference denies the premise: asserting it is wrong.
			out = append(out, calibrationItem(q, "Yes, I did. It went just as you say, and I remember it clearly.", record.CalibrationFalseCommitment, false))
		}
	}
	return out
}

// calibrationItem is a candidate answer to q of a kind, right or wrong.
func calibrationItem(q datasets.Question, answer, kind string, right bool) record.CalibrationItem {
	return record.CalibrationItem{Question: q, Answer: answer, Kind: kind, Right: right}
}

// abstentionTask reports the tasks whose questions have no committed
// answer in the traces (CloneMem's unanswerable, KnowMe's adversarial
// abstention).
func abstentionTask(task string) bool {
	t := strings.ToLower(task)
	return t == "unanswerable" || strings.Contains(t, "abstention")
}

// stopName are capitalised words that are not names.
var stopName = map[string]bool{"The": true, "This": true, "That": true, "There": true, "They": true, "She": true, "Her": true,
	"His": true, "And": true, "But": true, "When": true, "After": true, "Before": true, "Start": true, "End": true, "Yes": true}

func lowerFirst(s string) string {
	if s == "" || strings.HasPrefix(s, "I ") || entityRE.MatchString(strings.SplitN(s, " ", 2)[0]) && !stopName[strings.SplitN(s, " ", 2)[0]] {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// Calibrate asks j about every item and compares its decisions with the
// labels. A verdict of metric whose score, rescaled to [0, 1] by its
// Min..Max, is at or above threshold (0 = 0.5) means "right". Up to
// workers items are judged at once (0 = DefaultWorkers).
func Calibrate(ctx context.Context, j Judge, items []record.CalibrationItem, metric string, threshold float64, workers int) (*record.Calibration, error) {
	if j == nil || len(items) == 0 {
		return nil, fmt.Errorf("runs: calibrate: a judge and items are required")
	}
	if threshold == 0 {
		threshold = 0.5
	}
	if workers <= 0 {
		workers = DefaultWorkers
	}
	decided := make([]int, len(items)) // 1 right, 0 wrong, -1 failed or no verdict
	var wg sync.WaitGroup
	jobs := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				decided[i] = -1
				for _, v := range j.Judge(ctx, items[i].Question, items[i].Answer, nil) {
					if v.Metric != metric || !v.Judged() || v.Max <= v.Min {
						continue
					}
					if (v.Score-v.Min)/(v.Max-v.Min) >= threshold {
						decided[i] = 1
					} else {
						decided[i] = 0
					}
					break
				}
			}
		}()
	}
	for i := range items {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("runs: calibrate %s: %w", j.Name(), err)
	}
	c := &record.Calibration{Judge: j.Name(), Metric: metric, Threshold: threshold, Items: len(items), ByKind: map[string]record.KindScore{}}
	var wrongN, wrongCaught, rightN, rightKept int
	var labels, decisions []int
	for i, it := range items {
		ks := c.ByKind[it.Kind]
		ks.N++
		if decided[i] < 0 {
			c.Failed++
			ks.Failed++
			c.ByKind[it.Kind] = ks
			continue
		}
		label := 0
		if it.Right {
			label = 1
			rightN++
			if decided[i] == 1 {
				rightKept++
			}
		} else {
			wrongN++
			if decided[i] == 0 {
				wrongCaught++
			}
		}
		if decided[i] == label {
			ks.Correct++
		}
		c.ByKind[it.Kind] = ks
		labels, decisions = append(labels, label), append(decisions, decided[i])
	}
	c.Sensitivity, c.Specificity, c.Kappa = math.NaN(), math.NaN(), math.NaN()
	if wrongN > 0 {
		c.Sensitivity = float64(wrongCaught) / float64(wrongN)
	}
	if rightN > 0 {
		c.Specificity = float64(rightKept) / float64(rightN)
	}
	if k, err := analysis.CohenKappa(labels, decisions); err == nil {
		c.Kappa = k
	}
	return c, nil
}

// ReadCalibrationCSV reads human-labelled answers for calibration: a CSV
// with the header corpus_id,question_id,answer,label where label is
// "right" or "wrong" (corpus_id may be empty when question ids are
// unique). Each row becomes an item of kind "human" for its question of d.
// Errors name the file and line; an unknown question is an error, never
// skipped.
func ReadCalibrationCSV(path string, d *datasets.Dataset) ([]record.CalibrationItem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("runs: calibration labels: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = 4
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("runs: calibration labels %s: header: %w", path, err)
	}
	want := []string{"corpus_id", "question_id", "answer", "label"}
	for i, h := range want {
		if strings.TrimSpace(head[i]) != h {
			return nil, fmt.Errorf("runs: calibration labels %s:1: column %d is %q, want %q", path, i+1, head[i], h)
		}
	}
	var out []record.CalibrationItem
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("runs: calibration labels %s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		where := fmt.Sprintf("%s:%d", path, line)
		var q *datasets.Question
		for i := range d.Questions {
			x := &d.Questions[i]
			if x.ID == strings.TrimSpace(rec[1]) && (strings.TrimSpace(rec[0]) == "" || x.CorpusID == strings.TrimSpace(rec[0])) {
				if q != nil {
					return nil, fmt.Errorf("runs: calibration labels %s: question %q is in several corpora: give its corpus_id", where, rec[1])
				}
				q = x
			}
		}
		if q == nil {
			return nil, fmt.Errorf("runs: calibration labels %s: no question %q (corpus %q) in %s", where, rec[1], rec[0], d.Name)
		}
		var right bool
		switch strings.ToLower(strings.TrimSpace(rec[3])) {
		case "right":
			right = true
		case "wrong":
		default:
			return nil, fmt.Errorf("runs: calibration labels %s: label %q, want right or wrong", where, rec[3])
		}
		out = append(out, record.CalibrationItem{Question: *q, Answer: rec[2], Kind: record.CalibrationHuman, Right: right})
	}
	return out, nil
}
