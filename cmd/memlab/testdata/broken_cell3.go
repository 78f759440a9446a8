//go:build ignore

// %% [markdown]
// # A notebook whose third cell does not compile

// %%
x := 1

// %%
import "fmt"

fmt.Println("second cell", x)

// %%
y := 2
z := undefinedName + y
