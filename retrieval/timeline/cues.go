package timeline

import (
	"regexp"
	"strings"

	"github.com/memlab/memlab/text"
)

// Question shapes, as reported by Shape and SupportReport.Shape.
const (
	ShapePoint      = "point"      // one fact or one moment
	ShapeTrajectory = "trajectory" // how something changed over time
	ShapeComparison = "comparison" // then versus now, this versus that
	ShapePattern    = "pattern"    // what usually happens
)

// Transition kinds.
const (
	TransitionStance     = "stance"     // the opinion/sentiment cue words flip sign
	TransitionCommitment = "commitment" // a commitment cue appears after none
	TransitionShift      = "shift"      // a strong lexical shift between consecutive traces
	TransitionModel      = "model"      // the extractor model said the state changed
)

// Cue word lists (lowercased tokens as text.Tokens gives them; Chinese
// cues are matched as substrings of the text).
var (
	positiveEN = words("love loved loves like liked enjoy enjoyed enjoying great happy happier proud better best excited glad worth brilliant amazing grateful relief relieved calm fine lovely fun settled")
	negativeEN = words("hate hated boring bored lonely lonelier overrated worse worst tired exhausted anxious sad hurt regret awful miserable frightened scared afraid worried worry stressed angry upset isolated dread")
	commitEN   = words("decided decide signed booked started quit moved accepted enrolled joined finished completed ran passed bought adopted entered registered handed chose committed")
	tentEN     = words("maybe perhaps might considering consider wondering wonder thinking plan plans planning planned hoping hope enquiry enquired enquiring inquiry looked looking research researching whether tempted someday eventually tbc should could would")
	negEN      = words("never not didn't don't haven't hasn't won't isn't wasn't no nope without")
	// qWords are question words that say nothing about the topic.
	qWords = words("what which who whom whose when where why how did do does you your yours think feel felt actually really these days now usually still ever tell much many")

	positiveZH = []string{"喜欢", "开心", "值得", "踏实", "轻松", "高兴", "满意", "不错", "享受", "安心", "放心", "不怕"}
	negativeZH = []string{"焦虑", "后悔", "累", "慌", "不值", "害怕", "紧张", "难受", "烦", "失望", "孤独", "怕"}
	commitZH   = []string{"决定", "签了", "签约", "辞职", "报名了", "开始", "买了", "搬", "完成", "参加了"}
	tentZH     = []string{"可能", "打算", "考虑", "犹豫", "想要", "也许", "计划", "搜", "查了", "看看", "还在"}
	negZH      = []string{"没有", "没", "不会", "从来", "未"}
)

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// cueProfile is what the cue words say about one text.
type cueProfile struct {
	pos, neg  int
	commit    bool
	tentative bool
	negated   bool
}

func (c cueProfile) stance() int {
	switch {
	case c.pos > c.neg:
		return 1
	case c.neg > c.pos:
		return -1
	}
	return 0
}

func countZH(text string, list []string) int {
	n := 0
	for _, w := range list {
		n += strings.Count(text, w)
	}
	return n
}

// cues reads the cue words of s.
func cues(s string) cueProfile {
	var c cueProfile
	for _, t := range text.Tokens(s) {
		switch {
		case positiveEN[t]:
			c.pos++
		case negativeEN[t]:
			c.neg++
		}
		if commitEN[t] {
			c.commit = true
		}
		if tentEN[t] {
			c.tentative = true
		}
		if negEN[t] || strings.HasSuffix(t, "n't") {
			c.negated = true
		}
	}
	neg := countZH(s, negativeZH)
	c.pos += countZH(s, positiveZH) - strings.Count(s, "不怕") // 不怕 also matches 怕
	c.neg += neg
	if countZH(s, commitZH) > 0 {
		c.commit = true
	}
	if countZH(s, tentZH) > 0 || strings.ContainsAny(s, "?？") {
		c.tentative = true
	}
	if countZH(s, negZH) > 0 {
		c.negated = true
	}
	return c
}

var (
	trajectoryRE = regexp.MustCompile(`(?i)\b(how (has|have|did) .{0,60}(change|changed|evolve|evolved|develop|developed|gone|felt|been)|over (time|the (past|last) \w+)|from start to finish|since (then|that|the)|whatever happened|changed)\b|变化|经历了|以来|后来|一路`)
	comparisonRE = regexp.MustCompile(`(?i)\b(compare|compared|comparison|versus|vs|than (before|at|when|your|last)|before and after|used to|now than|faster|slower|better than|worse than|more than|less than|which got)\b|跟.{0,12}比|相比|比起|不一样|以前|那时`)
	patternRE    = regexp.MustCompile(`(?i)\b(usually|normally|typically|tend to|these days|how often|rhythm|routine|always|still)\b|一般|通常|平时|总是|还在|经常`)
)

// Shape returns the time shape of a question: its CloneMem task when that
// is one of trajectory, comparison or pattern, else what its text says
// ("how has ... changed", "compared with", "usually", "still", 变化, 相比, 一般
// ...), else ShapePoint.
func Shape(task, text string) string {
	switch strings.ToLower(strings.TrimSpace(task)) {
	case "trajectory":
		return ShapeTrajectory
	case "comparison":
		return ShapeComparison
	case "pattern":
		return ShapePattern
	case "single_point_factual", "causal", "counterfactual", "inferential", "unanswerable":
		return ShapePoint
	}
	switch {
	case trajectoryRE.MatchString(text):
		return ShapeTrajectory
	case comparisonRE.MatchString(text):
		return ShapeComparison
	case patternRE.MatchString(text):
		return ShapePattern
	}
	return ShapePoint
}

// sentences splits text into sentences and lines (English and Chinese
// punctuation).
func sentences(text string) []string {
	var out []string
	start := 0
	rs := []rune(text)
	for i, r := range rs {
		switch r {
		case '.', '!', '?', '\n', '。', '！', '？', '；', ';':
			if s := strings.TrimSpace(string(rs[start : i+1])); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(string(rs[start:])); s != "" {
		out = append(out, s)
	}
	return out
}
