//go:build ignore

// %% [markdown]
// # A notebook whose second cell takes a minute

// %%
import (
	"fmt"
	"time"
)

fmt.Println("first cell done")

// %%
fmt.Println("second cell starts")
for i := 0; i < 600; i++ {
	time.Sleep(100 * time.Millisecond)
}
fmt.Println("second cell done")

// %%
fmt.Println("third cell")
