package runstore

import (
	"fmt"
	"testing"

	"github.com/memlab/memlab/record"
)

// TestDecodeRecordsNamesTheFirstBadOne: records decode on several
// goroutines, in order, and a bad one is reported by its place.
func TestDecodeRecordsNamesTheFirstBadOne(t *testing.T) {
	var datas [][]byte
	for i := 0; i < 300; i++ {
		b, err := record.Marshal(record.Record{QuestionID: fmt.Sprint("q", i)})
		if err != nil {
			t.Fatal(err)
		}
		datas = append(datas, b)
	}
	recs, _, err := decodeRecords(datas)
	if err != nil || len(recs) != 300 || recs[0].QuestionID != "q0" || recs[299].QuestionID != "q299" {
		t.Fatalf("decode: %d records, %v", len(recs), err)
	}
	datas[200], datas[250] = []byte("{"), []byte("[")
	if _, i, err := decodeRecords(datas); err == nil || i != 200 {
		t.Errorf("bad records at 200 and 250: got index %d, %v", i, err)
	}
}
