//go:build ignore

// %%
x := 1
x++

// %% tags=["slow", "demo"]
import "fmt"
fmt.Println("before")
var s []int
s[x] = 1

// %%
fmt.Println("never")
