package activity_test

import (
	"fmt"
	"time"

	"github.com/memlab/memlab/activity"
)

// A slow step of a notebook says what it is doing; the progress board of
// `memlab run` (or Jupyter) shows it once it has lasted activity.Delay.
func ExampleBegin() {
	unwatch := activity.Watch(func(text string) { fmt.Printf("shown: %q\n", text) })
	defer unwatch()

	end := activity.Begin("bootstrapping %d runs", 4)
	for activity.Current() == "" { // the slow work, until it has lasted activity.Delay
		time.Sleep(10 * time.Millisecond)
	}
	end()
	// Output:
	// shown: "bootstrapping 4 runs"
	// shown: ""
}
