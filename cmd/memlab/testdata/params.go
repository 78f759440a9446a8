//go:build ignore

// %% [parameters]
name := "world"
n := 2

// %%
import "fmt"

for i := 0; i < n; i++ {
	fmt.Println("hello", name)
}
