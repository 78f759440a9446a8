package tokenize_test

import (
	"fmt"

	"github.com/memlab/memlab/retrieval/tokenize"
)

func ExampleTokens() {
	fmt.Println(tokenize.Tokens("我喜欢北京"))
	fmt.Println(tokenize.Tokens("Don’t forget: Anna's run in 北京!"))
	// Output:
	// [我喜 喜欢 欢北 北京]
	// [don't forget anna's run in 北京]
}

func ExampleContentTokens() {
	fmt.Println(tokenize.ContentTokens("Don’t forget: Anna's run in 北京!"))
	// Output:
	// [forget anna run 北京]
}
