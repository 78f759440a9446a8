//go:build ignore

// %% [markdown]
// # A notebook whose second cell crashes the interpreter

// %%
import (
	"fmt"
	"time"
)

x := 1
fmt.Println("first cell", x)

// %%
fmt.Println("second cell starts")
go func() { panic("boom in a goroutine") }()
time.Sleep(5 * time.Second)

// %%
fmt.Println("third cell", x)
