//go:build ignore

// %% [markdown]
// # A notebook whose second cell recurses without end

// %%
import "fmt"

fmt.Println("first cell done")

// %%
func down(n int) int { return down(n+1) + 1 }

fmt.Println("second cell starts")
fmt.Println(down(0))

// %%
fmt.Println("third cell")
