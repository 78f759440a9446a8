package text

import (
	"strings"
	"testing"
)

var benchEN = strings.Repeat("On the 3rd of May I finally ran the Bristol parkrun; it wasn't as boring as I'd feared. ", 20)
var benchZH = strings.Repeat("今天终于去游泳了，虽然还是有点怕水，但教练说我进步很快。", 20)

func BenchmarkTokensEnglish(b *testing.B) {
	b.SetBytes(int64(len(benchEN)))
	for b.Loop() {
		Tokens(benchEN)
	}
}

func BenchmarkTokensChinese(b *testing.B) {
	b.SetBytes(int64(len(benchZH)))
	for b.Loop() {
		Tokens(benchZH)
	}
}
