package text_test

import (
	"fmt"

	"github.com/memlab/memlab/text"
)

func ExampleTokens() {
	fmt.Println(text.Tokens("我喜欢北京"))
	fmt.Println(text.Tokens("Don’t forget: Anna's run in 北京!"))
	// Output:
	// [我喜 喜欢 欢北 北京]
	// [don't forget anna's run in 北京]
}

func ExampleContentTokens() {
	fmt.Println(text.ContentTokens("Don’t forget: Anna's run in 北京!"))
	// Output:
	// [forget anna run 北京]
}

func ExampleClip() {
	fmt.Println(text.Clip("我喜欢北京", 3))
	fmt.Println(text.ClipLine("a reply\n  over two lines", 12))
	// Output:
	// 我喜欢…
	// a reply over…
}
