package judge_test

import (
	"fmt"

	"github.com/memlab/memlab/judge"
)

func ExampleTokenF1() {
	f := judge.TokenF1("the cat sat on the mat", "the cat is on the mat")
	fmt.Printf("%s = %.3f\n", judge.MetricTokenF1, f)
	fmt.Printf("%s = %.3f\n", judge.MetricTokenF1, judge.TokenF1("我喜欢北京", "我喜欢上海"))
	// Output:
	// Token F1 (proxy) = 0.833
	// Token F1 (proxy) = 0.500
}

func ExampleRougeL() {
	fmt.Printf("%s = %.3f\n", judge.MetricRougeL, judge.RougeL("police killed the gunman", "the gunman killed police"))
	// Output:
	// ROUGE-L (proxy) = 0.500
}

func ExampleEvidenceCoverage() {
	statements := []string{"Anna ran the Berlin marathon in 2019", "She hates running in the rain"}
	c := judge.EvidenceCoverage(statements, "Ran my first marathon in Berlin today.")
	fmt.Printf("%s = %.2f\n", judge.MetricEvidenceCoverage, c)
	// Output:
	// Evidence coverage (proxy for memory recall) = 0.50
}

func ExampleChoiceCorrect() {
	fmt.Println(judge.MetricChoiceAccuracy, judge.ChoiceCorrect("c", "C"), judge.ChoiceCorrect("", "C"))
	// Output:
	// Choice accuracy true false
}
