package datasets_test

import (
	"fmt"
	"time"

	"github.com/memlab/memlab/datasets"
)

func ExampleLoad() {
	d, err := datasets.Load("testdata/clonemem_lang/wei.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	c := d.Corpora[0]
	q := d.Questions[0]
	fmt.Println(d.Format, d.Name, c.ID, c.Language, len(c.Traces), "traces")
	fmt.Println(q.ID, q.Task, q.AskedAt.Format(time.DateOnly), q.Correct, q.GoldTraceIDs())
	fmt.Println("visible when asked:", len(d.Visible(q)))
	fmt.Println("defects:", len(d.Report.Defects))
	// Output:
	// clonemem wei p9 zh 3 traces
	// w-q1 inferential 2022-06-01 A [w1 w2]
	// visible when asked: 2
	// defects: 0
}

func ExampleAdmit() {
	day := func(d int) time.Time { return time.Date(2024, 3, d, 0, 0, 0, 0, time.UTC) }
	traces := []datasets.Trace{
		{ID: "a", Time: day(1)},
		{ID: "b", Time: day(5)},
		{ID: "undated"},
		{ID: "c", Time: day(9)},
	}
	for _, t := range datasets.Admit(traces, day(5)) {
		fmt.Println(t.ID)
	}
	fmt.Println(len(datasets.Admit(traces, time.Time{})), "with no asked-at time")
	// Output:
	// a
	// b
	// undated
	// 4 with no asked-at time
}
