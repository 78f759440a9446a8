package formats_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/formats"
	"github.com/memlab/memlab/record"
)

// A run's answers to a LoCoMo conversation, written for LoCoMo's own
// evaluation code: the prediction and the retrieved turns under keys named
// after the model, an abstention on an adversarial question as the phrase
// the code looks for.
func ExampleWriteLoCoMo() {
	dir, _ := os.MkdirTemp("", "locomo")
	defer os.RemoveAll(dir)
	conv := `{"speaker_a": "Ann", "speaker_b": "Bo",
  "session_1_date_time": "1:56 pm on 8 May, 2023",
  "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat named Miso."}],
  "qa": [{"question": "What is the name of Ann's cat?", "answer": "Miso", "evidence": ["D1:1"], "category": 4},
         {"question": "What is the name of Bo's cat?", "adversarial_answer": "Miso", "evidence": ["D1:1"], "category": 5}]}`
	path := filepath.Join(dir, "07.json")
	os.WriteFile(path, []byte(conv), 0o644)
	d, err := datasets.Open(path)
	if err != nil {
		panic(err)
	}
	res := &record.Result{Records: []record.Record{
		{QuestionID: "07/1", CorpusID: "07", Answer: "Miso", Ranked: []string{"D1:1"}},
		{QuestionID: "07/2", CorpusID: "07", Abstained: true, Ranked: []string{"D1:1"}},
	}}
	if err := formats.WriteLoCoMo(os.Stdout, d, res, "07", "memlab"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {
	//   "sample_id": "07",
	//   "qa": [
	//     {
	//       "question": "What is the name of Ann's cat?",
	//       "answer": "Miso",
	//       "evidence": [
	//         "D1:1"
	//       ],
	//       "category": 4,
	//       "memlab_question_id": "07/1",
	//       "memlab_prediction": "Miso",
	//       "memlab_prediction_context": [
	//         "D1:1"
	//       ]
	//     },
	//     {
	//       "question": "What is the name of Bo's cat?",
	//       "answer": "",
	//       "evidence": [
	//         "D1:1"
	//       ],
	//       "category": 5,
	//       "adversarial_answer": "Miso",
	//       "memlab_question_id": "07/2",
	//       "memlab_prediction": "No information available",
	//       "memlab_prediction_context": [
	//         "D1:1"
	//       ]
	//     }
	//   ]
	// }
}
