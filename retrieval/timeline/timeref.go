package timeline

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Time reference kinds, as reported by Window.Kind.
const (
	// RefSpan is a dated span of time: [Start, End).
	RefSpan = "span"
	// RefFirst is the beginning of a story: "at first", "your first one",
	// "from start to finish", 当初, 刚开始, 第一次 ...
	RefFirst = "first"
	// RefNow is the present of the question: "now", "these days", "still",
	// 现在, 最近, 如今 ...
	RefNow = "now"
)

// Window is one time reference read from a question by TimeRefs.
type Window struct {
	// Kind is RefSpan, RefFirst or RefNow.
	Kind string
	// Start and End bound a RefSpan: the half-open interval [Start, End),
	// in the location of the asked-at time (UTC for an absolute date of a
	// question without one). They are zero for RefFirst and RefNow.
	Start, End time.Time
	// Text is the expression as written in the question.
	Text string
	// Pos and Len locate Text in the question, in bytes.
	Pos, Len int
}

// Contains reports whether t falls in a RefSpan window (false for a zero t
// and for the other kinds).
func (w Window) Contains(t time.Time) bool {
	return w.Kind == RefSpan && !t.IsZero() && !t.Before(w.Start) && t.Before(w.End)
}

// TimeRefs reads the time references of a question (English and Chinese)
// and resolves them against its asked-at time:
//
//   - absolute dates: "August 15, 1969", "15 August 1969", "2023-07-16",
//     "August 1969", "in 1998", "the summer of 1975", 2023年7月16日,
//     2023年7月, 2023年 (a day, month, season or year);
//   - dates without a year: "on July 23", "in March", 7月16日, 七月: the most
//     recent occurrence that starts at or before asked;
//   - relative spans: "last summer" (the latest such season that ended
//     before asked), "this autumn" (the one containing asked, else the
//     latest that started before it), "last year", "this year", "last
//     month", "this month", "last week", "this week", "yesterday", "today",
//     "three months ago", "over the past year", 去年, 今年, 前年, 上个月, 这个月,
//     上周, 昨天, 今天, 去年夏天, 三个月前 ...;
//   - RefFirst: "at first", "at the start", "from start to finish", "your
//     first one", "when you started", "originally", 当初, 刚开始, 一开始,
//     起初, 最初, 第一次, 从头到尾 ...;
//   - RefNow: "now", "nowadays", "these days", "currently", "lately",
//     "recently", "still", "at the moment", 现在, 最近, 如今, 目前, 这些天, 这段时间.
//
// Seasons are the northern meteorological ones (spring March-May, summer
// June-August, autumn/fall September-November, winter December-February;
// "winter of 1982" gives January-February and December 1982). A
// reference that needs the asked-at time is skipped when asked is zero.
// Windows are in the order of the text; overlapping matches keep the
// longest, earliest one.
func TimeRefs(text string, asked time.Time) []Window {
	lower := strings.ToLower(text)
	type match struct {
		pos, end int
		ws       []Window
	}
	var ms []match
	taken := make([]bool, len(lower)+1)
	free := func(a, b int) bool {
		for i := a; i < b; i++ {
			if taken[i] {
				return false
			}
		}
		return true
	}
	loc := time.UTC
	if !asked.IsZero() {
		loc = asked.Location()
	}
	for _, r := range timeRules {
		for _, ix := range r.re.FindAllStringSubmatchIndex(lower, -1) {
			a, b := ix[0], ix[1]
			if r.group > 0 {
				a, b = ix[2*r.group], ix[2*r.group+1]
			}
			if a < 0 || !free(a, b) {
				continue
			}
			sub := make([]string, len(ix)/2)
			for g := range sub {
				if ix[2*g] >= 0 {
					sub[g] = lower[ix[2*g]:ix[2*g+1]]
				}
			}
			ws := r.resolve(sub, asked, loc)
			if ws == nil {
				continue
			}
			for i := a; i < b; i++ {
				taken[i] = true
			}
			for i := range ws {
				ws[i].Text, ws[i].Pos, ws[i].Len = text[a:b], a, b-a
			}
			ms = append(ms, match{a, b, ws})
		}
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].pos < ms[j].pos })
	var out []Window
	for _, m := range ms {
		out = append(out, m.ws...)
	}
	return out
}

// timeRule is one pattern of TimeRefs, tried in order; resolve returns nil
// when the match cannot be resolved (then it consumes nothing).
type timeRule struct {
	re *regexp.Regexp
	// group is the submatch that is the expression (0: the whole match)
	group   int
	resolve func(sub []string, asked time.Time, loc *time.Location) []Window
}

const (
	monthRE  = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`
	dayRE    = `(\d{1,2})(?:st|nd|rd|th)?`
	yearRE   = `(1[5-9]\d\d|20\d\d)`
	seasonRE = `(spring|summer|autumn|fall|winter)`
	zhNumRE  = `(\d{1,2}|[一二三四五六七八九十两]{1,3})`
	zhYearRE = `(\d{4}|[零〇一二三四五六七八九]{4})`
	countRE  = `(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|a few|several)`
	zhCount  = `(\d+|[一二三四五六七八九十两半几]{1,3})`
	unitRE   = `(day|week|month|year)s?`
	zhUnitRE = `(天|日|周|星期|礼拜|个月|月|年)`
)

var monthNum = map[string]time.Month{"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
	"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sept": 9, "sep": 9,
	"october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12}

var seasonStart = map[string]time.Month{"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12,
	"春": 3, "夏": 6, "秋": 9, "冬": 12}

func month(s string) time.Month { return monthNum[strings.TrimSuffix(s, ".")] }

// zhNumber reads a number in Arabic or Chinese digits (up to 99; 半 is 0.5
// and 几 is 3 as a rough count; -1 if none).
func zhNumber(s string) float64 {
	if n, err := strconv.Atoi(s); err == nil {
		return float64(n)
	}
	switch s {
	case "半":
		return 0.5
	case "几":
		return 3
	}
	digit := map[rune]int{'零': 0, '〇': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
	rs := []rune(s)
	if len(rs) == 4 { // a year written digit by digit
		n := 0
		for _, r := range rs {
			d, ok := digit[r]
			if !ok {
				return -1
			}
			n = n*10 + d
		}
		return float64(n)
	}
	n, cur := 0, -1
	for _, r := range rs {
		if r == '十' {
			if cur < 0 {
				cur = 1
			}
			n += cur * 10
			cur = -1
			continue
		}
		d, ok := digit[r]
		if !ok {
			return -1
		}
		cur = d
	}
	if cur > 0 {
		n += cur
	}
	if n == 0 {
		return -1
	}
	return float64(n)
}

func enNumber(s string) float64 {
	if n, err := strconv.Atoi(s); err == nil {
		return float64(n)
	}
	switch s {
	case "a", "an", "one":
		return 1
	case "a couple of":
		return 2
	case "a few", "several":
		return 3
	}
	for i, w := range strings.Fields("two three four five six seven eight nine ten eleven twelve") {
		if s == w {
			return float64(i + 2)
		}
	}
	return -1
}

func span(start, end time.Time) []Window { return []Window{{Kind: RefSpan, Start: start, End: end}} }

func dayWin(y int, m time.Month, d int, loc *time.Location) []Window {
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return nil
	}
	s := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if s.Month() != m { // 31 June and the like
		return nil
	}
	return span(s, s.AddDate(0, 0, 1))
}

func monthWin(y int, m time.Month, loc *time.Location) []Window {
	if m < 1 || m > 12 {
		return nil
	}
	s := time.Date(y, m, 1, 0, 0, 0, 0, loc)
	return span(s, s.AddDate(0, 1, 0))
}

func yearWin(y int, loc *time.Location) []Window {
	s := time.Date(y, 1, 1, 0, 0, 0, 0, loc)
	return span(s, s.AddDate(1, 0, 0))
}

// seasonOf is the season starting in month m of year y (three months).
func seasonOf(y int, m time.Month, loc *time.Location) (time.Time, time.Time) {
	s := time.Date(y, m, 1, 0, 0, 0, 0, loc)
	return s, s.AddDate(0, 3, 0)
}

// seasonYear is "the <season> of y": winter gives its two parts in y.
func seasonYear(y int, m time.Month, loc *time.Location) []Window {
	if m == 12 {
		a := time.Date(y, 1, 1, 0, 0, 0, 0, loc)
		b := time.Date(y, 12, 1, 0, 0, 0, 0, loc)
		return []Window{{Kind: RefSpan, Start: a, End: a.AddDate(0, 2, 0)}, {Kind: RefSpan, Start: b, End: b.AddDate(0, 1, 0)}}
	}
	return span(seasonOf(y, m, loc))
}

// lastSeason is the latest occurrence of the season that ended at or
// before asked; thisSeason the one containing asked, else the latest that
// started before it.
func lastSeason(m time.Month, asked time.Time, loc *time.Location) []Window {
	for y := asked.Year(); y > asked.Year()-3; y-- {
		if s, e := seasonOf(y, m, loc); !e.After(asked) {
			return span(s, e)
		}
	}
	return nil
}

func thisSeason(m time.Month, asked time.Time, loc *time.Location) []Window {
	for y := asked.Year(); y > asked.Year()-3; y-- {
		if s, e := seasonOf(y, m, loc); !s.After(asked) {
			return span(s, e)
		}
	}
	return nil
}

// recentMonth is the latest month m that started at or before asked.
func recentMonth(m time.Month, asked time.Time, loc *time.Location) int {
	y := asked.Year()
	if time.Date(y, m, 1, 0, 0, 0, 0, loc).After(asked) {
		y--
	}
	return y
}

// monthStart is the month off months from t's: its start and end.
func monthStart(t time.Time, off int, loc *time.Location) (time.Time, time.Time) {
	t = t.In(loc)
	s := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, loc).AddDate(0, off, 0)
	return s, s.AddDate(0, 1, 0)
}

func dayStart(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
}

// ago is the window of one unit around n units before asked.
func ago(n float64, unit string, asked time.Time, loc *time.Location) []Window {
	if n <= 0 {
		return nil
	}
	var d time.Duration
	switch unit {
	case "day", "天", "日":
		d = 24 * time.Hour
	case "week", "周", "星期", "礼拜":
		d = 7 * 24 * time.Hour
	case "month", "个月", "月":
		d = 30 * 24 * time.Hour
	case "year", "年":
		d = 365 * 24 * time.Hour
	default:
		return nil
	}
	c := asked.Add(-time.Duration(n * float64(d)))
	return span(c.Add(-d/2), c.Add(d/2))
}

// past is the window of the last n units up to asked.
func past(n float64, unit string, asked time.Time) []Window {
	w := ago(n, unit, asked, asked.Location())
	if w == nil {
		return nil
	}
	return span(asked.Add(-time.Duration(n*float64(w[0].End.Sub(w[0].Start)))), asked.Add(time.Second))
}

func ref(kind string) []Window { return []Window{{Kind: kind}} }

func needAsked(asked time.Time, f func() []Window) []Window {
	if asked.IsZero() {
		return nil
	}
	return f()
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

var timeRules = []timeRule{
	// absolute days
	{re: regexp.MustCompile(`\b` + yearRE + `-(\d{1,2})-(\d{1,2})\b`), resolve: func(s []string, _ time.Time, loc *time.Location) []Window {
		return dayWin(atoi(s[1]), time.Month(atoi(s[2])), atoi(s[3]), loc)
	}},
	{re: regexp.MustCompile(`\b` + monthRE + `\s+` + dayRE + `,?\s+` + yearRE + `\b`), resolve: func(s []string, _ time.Time, loc *time.Location) []Window {
		return dayWin(atoi(s[3]), month(s[1]), atoi(s[2]), loc)
	}},
	{re: regexp.MustCompile(`\b` + dayRE + `\s+(?:of\s+)?` + monthRE + `,?\s+` + yearRE + `\b`), resolve: func(s []string, _ time.Time, loc *time.Location) []Window {
		return dayWin(atoi(s[3]), month(s[2]), atoi(s[1]), loc)
	}},
	{re: regexp.MustCompile(zhYearRE + `年` + zhNumRE + `月` + zhNumRE + `[日号]`), resolve: func(s []string, _ time.Time, loc *time.Location) []Window {
		return dayWin(int(zhNumber(s[1])), time.Month(zhNumber(s[2])), int(zhNumber(s[3])), loc)
	}},
	// absolute months and seasons
	{re: regexp.MustCompile(`\b` + monthRE + `,?\s+(?:of\s+)?` + yearRE + `\b`), resolve: func(s []string, _ time.Time, loc *time.Location) []Window {
		return monthWin(atoi(s[2]), month(s[1]), loc)
	}},
	{re: regexp.MustCompile(zhYearRE + `年` + zhNumRE + `月`), resolve: func(s []string, _ time.Time, loc *time.Location) []Window {
		return monthWin(int(zhNumber(s[1])), time.Month(zhNumber(s[2])), loc)
	}},
	{re: regexp.MustCompile(`\b(?:the\s+)?` + seasonRE + `\s+(?:of\s+)?` + yearRE + `\b`), resolve: func(s []string, _ time.Time, loc *time.Location) []Window {
		return seasonYear(atoi(s[2]), seasonStart[s[1]], loc)
	}},
	{re: regexp.MustCompile(zhYearRE + `年的?([春夏秋冬])[天季]`), resolve: func(s []string, _ time.Time, loc *time.Location) []Window {
		return seasonYear(int(zhNumber(s[1])), seasonStart[s[2]], loc)
	}},
	// relative years with a month, day or season (Chinese)
	{re: regexp.MustCompile(`(去年|今年|前年)` + zhNumRE + `月(?:` + zhNumRE + `[日号])?`), resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window {
			y := asked.Year() - map[string]int{"去年": 1, "今年": 0, "前年": 2}[s[1]]
			if s[3] != "" {
				return dayWin(y, time.Month(zhNumber(s[2])), int(zhNumber(s[3])), loc)
			}
			return monthWin(y, time.Month(zhNumber(s[2])), loc)
		})
	}},
	{re: regexp.MustCompile(`(去年|今年|前年)的?([春夏秋冬])[天季]`), resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window {
			y := asked.Year() - map[string]int{"去年": 1, "今年": 0, "前年": 2}[s[1]]
			return span(seasonOf(y, seasonStart[s[2]], loc))
		})
	}},
	// absolute years
	{re: regexp.MustCompile(`\b(?:in|during|since|of|by|from|until|till|early|late|mid|around|about|before|after|summer|winter|spring|autumn)\s+(?:the\s+year\s+)?` + yearRE + `\b`), group: 1, resolve: func(s []string, _ time.Time, loc *time.Location) []Window {
		return yearWin(atoi(s[1]), loc)
	}},
	{re: regexp.MustCompile(`^\s*` + yearRE + `\b`), group: 1, resolve: func(s []string, _ time.Time, loc *time.Location) []Window {
		return yearWin(atoi(s[1]), loc)
	}},
	{re: regexp.MustCompile(zhYearRE + `年`), resolve: func(s []string, _ time.Time, loc *time.Location) []Window {
		if y := zhNumber(s[1]); y >= 1500 {
			return yearWin(int(y), loc)
		}
		return nil
	}},
	// days and months without a year
	{re: regexp.MustCompile(`\b` + monthRE + `\s+` + dayRE + `\b`), resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window {
			m := month(s[1])
			return dayWin(recentMonth(m, asked, loc), m, atoi(s[2]), loc)
		})
	}},
	{re: regexp.MustCompile(`\b` + dayRE + `\s+(?:of\s+)?` + monthRE + `\b`), resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window {
			m := month(s[2])
			return dayWin(recentMonth(m, asked, loc), m, atoi(s[1]), loc)
		})
	}},
	{re: regexp.MustCompile(zhNumRE + `月` + zhNumRE + `[日号]`), resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window {
			m := time.Month(zhNumber(s[1]))
			if m < 1 || m > 12 {
				return nil
			}
			return dayWin(recentMonth(m, asked, loc), m, int(zhNumber(s[2])), loc)
		})
	}},
	{re: regexp.MustCompile(`\b(?:in|during|since|by|until|till|early|late|mid|around|this|last|past)\s+(?:early\s+|late\s+)?` + monthRE + `\b`), resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window {
			m := month(s[1])
			y := recentMonth(m, asked, loc)
			if strings.HasPrefix(s[0], "last") && y == asked.Year() && m == asked.Month() {
				y--
			}
			return monthWin(y, m, loc)
		})
	}},
	{re: regexp.MustCompile(`(?:^|[^\d一二三四五六七八九十两上下这本个])` + `((\d{1,2}|十[一二]?|[一二三四五六七八九])月份?)(?:[^\d日号]|$)`), group: 1, resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window {
			m := time.Month(zhNumber(s[2]))
			if m < 1 || m > 12 {
				return nil
			}
			return monthWin(recentMonth(m, asked, loc), m, loc)
		})
	}},
	// relative seasons
	{re: regexp.MustCompile(`\b(last|past|this|previous)\s+` + seasonRE + `\b`), resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window {
			if s[1] == "this" {
				return thisSeason(seasonStart[s[2]], asked, loc)
			}
			return lastSeason(seasonStart[s[2]], asked, loc)
		})
	}},
	{re: regexp.MustCompile(`\b(?:in|during|over)\s+the\s+` + seasonRE + `\b`), resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window { return thisSeason(seasonStart[s[1]], asked, loc) })
	}},
	{re: regexp.MustCompile(`(上个?|这个?|今)([春夏秋冬])[天季]|([春夏秋冬])[天季]`), resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window {
			if s[1] != "" && strings.HasPrefix(s[1], "上") {
				return lastSeason(seasonStart[s[2]], asked, loc)
			}
			return thisSeason(seasonStart[s[2]+s[3]], asked, loc)
		})
	}},
	// counted spans: "three months ago", "over the past year", 三个月前
	{re: regexp.MustCompile(`\b` + countRE + `\s+` + unitRE + `\s+ago\b`), resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window { return ago(enNumber(s[1]), s[2], asked, loc) })
	}},
	{re: regexp.MustCompile(zhCount + zhUnitRE + `(?:以)?前`), resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window { return ago(zhNumber(s[1]), s[2], asked, loc) })
	}},
	{re: regexp.MustCompile(`\b(?:over|in|during|for|within)\s+the\s+(?:past|last)\s+(?:` + countRE + `\s+)?` + unitRE + `\b`), resolve: func(s []string, asked time.Time, _ *time.Location) []Window {
		return needAsked(asked, func() []Window {
			n := 1.0
			if s[1] != "" {
				n = enNumber(s[1])
			}
			return past(n, s[2], asked)
		})
	}},
	// calendar-relative spans
	{re: regexp.MustCompile(`\b(last|this|previous|past)\s+(year|month|week)\b|\b(yesterday|today|tonight|this morning)\b`), resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window {
			a := asked.In(loc)
			if s[1] == "past" {
				return past(1, s[2], asked)
			}
			back := 0
			if s[1] == "last" || s[1] == "previous" {
				back = 1
			}
			switch s[2] + s[3] {
			case "year":
				return yearWin(a.Year()-back, loc)
			case "month":
				return span(monthStart(a, -back, loc))
			case "week":
				d := dayStart(a, loc)
				mon := d.AddDate(0, 0, -((int(d.Weekday())+6)%7)-7*back)
				return span(mon, mon.AddDate(0, 0, 7))
			case "yesterday":
				d := dayStart(a, loc).AddDate(0, 0, -1)
				return span(d, d.AddDate(0, 0, 1))
			}
			d := dayStart(a, loc)
			return span(d, d.AddDate(0, 0, 1))
		})
	}},
	{re: regexp.MustCompile(`去年|今年|前年|上个?月|这个?月|本月|上个?(?:周|星期|礼拜)|这个?(?:周|星期|礼拜)|本周|昨天|前天|今天`), resolve: func(s []string, asked time.Time, loc *time.Location) []Window {
		return needAsked(asked, func() []Window {
			a := asked.In(loc)
			d := dayStart(a, loc)
			mon := d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
			switch w := s[0]; {
			case w == "去年":
				return yearWin(a.Year()-1, loc)
			case w == "今年":
				return yearWin(a.Year(), loc)
			case w == "前年":
				return yearWin(a.Year()-2, loc)
			case strings.HasPrefix(w, "上") && strings.HasSuffix(w, "月"):
				return span(monthStart(a, -1, loc))
			case strings.HasSuffix(w, "月"):
				return span(monthStart(a, 0, loc))
			case strings.HasPrefix(w, "上"):
				return span(mon.AddDate(0, 0, -7), mon)
			case w == "昨天":
				return span(d.AddDate(0, 0, -1), d)
			case w == "前天":
				return span(d.AddDate(0, 0, -2), d.AddDate(0, 0, -1))
			case w == "今天":
				return span(d, d.AddDate(0, 0, 1))
			}
			return span(mon, mon.AddDate(0, 0, 7)) // this week
		})
	}},
	// the beginning and the present
	{re: regexp.MustCompile(`\b(at first|at the (?:very )?(?:start|beginning|outset)|in the beginning|from (?:the )?(?:start|beginning)(?: to (?:the )?(?:finish|end))?|start to finish|beginning to end|(?:your|my|his|her|their|our|the) (?:very )?first(?: ever)?(?: one| time| few)?|first (?:time|one|ever)|when (?:you|i|he|she|they|we) (?:first )?(?:started|began|first)|to begin with|originally|initially|early on)\b`), resolve: func([]string, time.Time, *time.Location) []Window {
		return ref(RefFirst)
	}},
	{re: regexp.MustCompile(`当初|刚开始|一开始|起初|最初|开始的时候|第一次|从头到尾|刚[学来到去入进搬]`), resolve: func([]string, time.Time, *time.Location) []Window {
		return ref(RefFirst)
	}},
	{re: regexp.MustCompile(`\b(now|nowadays|these days|currently|lately|recently|at the moment|at present|still|anymore|any more|so far)\b`), resolve: func([]string, time.Time, *time.Location) []Window {
		return ref(RefNow)
	}},
	{re: regexp.MustCompile(`现在|最近|如今|目前|这些天|这段时间|这阵子|近来|眼下`), resolve: func([]string, time.Time, *time.Location) []Window {
		return ref(RefNow)
	}},
}
