package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeErrata(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "errata.csv")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestErrataExcludeAndPatch(t *testing.T) {
	d, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	q0, q1 := d.Questions[0], d.Questions[1]
	p := writeErrata(t, "corpus_id,question_id,action,field,value,reason\n"+
		q0.CorpusID+","+q0.ID+",exclude,,,the evidence trace contradicts the answer\n"+
		","+q1.ID+",patch,answer,\"A corrected, quoted answer.\",typo in the reference\n")
	errata, name, err := ReadErrata(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(errata) != 2 || errata[1].Line != 3 || !strings.HasPrefix(name, "errata.csv sha256:") {
		t.Fatalf("errata %+v, name %q", errata, name)
	}
	fixed, log, err := ApplyErrata(d, errata, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(fixed.Questions) != len(d.Questions)-1 || len(d.Questions) != len(fixed.Questions)+1 {
		t.Fatalf("%d questions after, %d before", len(fixed.Questions), len(d.Questions))
	}
	if fixed.Questions[0].ID != q1.ID || fixed.Questions[0].Answer != "A corrected, quoted answer." || d.Questions[1].Answer != q1.Answer {
		t.Errorf("patch: %q (original now %q)", fixed.Questions[0].Answer, d.Questions[1].Answer)
	}
	if len(log) != 2 || !strings.Contains(log[0], "excluded") || !strings.Contains(log[0], "contradicts") || !strings.Contains(log[1], "patched") {
		t.Errorf("log %v", log)
	}
	if fixed.Errata != name+" (1 excluded, 1 patched)" || d.Errata != "" {
		t.Errorf("errata names %q / %q", fixed.Errata, d.Errata)
	}
}

func TestErrataBadInputNamesTheLine(t *testing.T) {
	d, _ := Sample()
	head := "corpus_id,question_id,action,field,value,reason\n"
	for _, c := range []struct{ body, want string }{
		{"question,corpus_id,action,field,value,reason\n", "column 1"},
		{head + ",q01,exclude,,,\n", "errata.csv:2: question q01 has no reason"},
		{head + ",q01,delete,,,why\n", `errata.csv:2: action "delete"`},
		{head + ",q01,patch,evidence,x,why\n", `field "evidence" cannot be patched`},
		{head + ",q01,exclude,,,why,extra\n", "errata.csv:2: record on line 2: wrong number of fields"},
		{"", "errata.csv: header: EOF"},
	} {
		if _, _, err := ReadErrata(writeErrata(t, c.body)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
	errata, name, err := ReadErrata(writeErrata(t, head+",nope,exclude,,,why\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ApplyErrata(d, errata, name); err == nil || !strings.Contains(err.Error(), "errata.csv:2:") || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown question: %v", err)
	}
}

func TestWithErrata(t *testing.T) {
	d, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	same, log, err := WithErrata(d, "")
	if err != nil || same != d || log != nil {
		t.Fatalf("no errata: %p (want %p), log %v, err %v", same, d, log, err)
	}
	q0, q1 := d.Questions[0], d.Questions[1]
	p := writeErrata(t, "corpus_id,question_id,action,field,value,reason\n"+
		q0.CorpusID+","+q0.ID+",exclude,,,ambiguous question\n"+
		q1.CorpusID+","+q1.ID+",patch,correct,B,the key names the wrong option\n")
	fixed, log, err := WithErrata(d, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(fixed.Questions) != len(d.Questions)-1 || fixed.Questions[0].Correct != "B" || d.Questions[1].Correct != q1.Correct {
		t.Errorf("%d questions (of %d), first correct %q", len(fixed.Questions), len(d.Questions), fixed.Questions[0].Correct)
	}
	want := []string{"excluded " + q0.CorpusID + "/" + q0.ID + ": ambiguous question",
		"patched " + q1.CorpusID + "/" + q1.ID + ` correct = "B": the key names the wrong option`}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Errorf("log\n%s\nwant\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasSuffix(fixed.Errata, "(1 excluded, 1 patched)") {
		t.Errorf("Errata %q", fixed.Errata)
	}
	if _, _, err := WithErrata(d, filepath.Join(t.TempDir(), "missing.csv")); err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("missing file: %v", err)
	}
	bad := writeErrata(t, "corpus_id,question_id,action,field,value,reason\n,"+q0.ID+",exclude,,,why\n,nope,exclude,,,why\n")
	if _, _, err := WithErrata(d, bad); err == nil || !strings.Contains(err.Error(), bad+":3:") || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown question: %v, want %s:3", err, bad)
	}
}
