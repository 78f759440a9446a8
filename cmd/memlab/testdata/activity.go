//go:build ignore

// %%
import (
	"fmt"
	"time"

	"github.com/memlab/memlab/activity"
)

// A slow step of a cell says what it does.
end := activity.Begin("warming the cache")
time.Sleep(activity.Delay + 700*time.Millisecond)
end()
fmt.Println("warm")
