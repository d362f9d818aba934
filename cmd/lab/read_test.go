package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	bin := labBinary(t)
	t.Run("completion", func(t *testing.T) { testCompletion(t, bin) })
	work := t.TempDir()
	const schema = "id:long!,name:string,addr:struct<zip:int,city:string>,emb:vector<float64,2>"
	rows := `{"id":1,"name":"a","addr":{"zip":10,"city":"x"},"emb":[0.5,1]}` + "\n" +
		`{"id":2,"name":null,"addr":null,"emb":null}` + "\n" +
		`{"id":3,"name":"c","addr":{"zip":null,"city":"z"},"emb":[-2,3]}` + "\n"
	rwMustRun(t, bin, work, rows, "write", "-q", "--schema", schema, "t.parquet")
	rwMustRun(t, bin, work, rows, "write", "-q", "--schema", schema, "t.avro")
	good := rwReadBytes(t, filepath.Join(work, "t.parquet"))
	rwWriteFile(t, filepath.Join(work, "truncated.parquet"), string(good[:len(good)/2]))
	rwWriteFile(t, filepath.Join(work, "tail-cut.parquet"), string(good[:len(good)-3]))
	avroBytes := rwReadBytes(t, filepath.Join(work, "t.avro"))
	rwWriteFile(t, filepath.Join(work, "truncated.avro"), string(avroBytes[:len(avroBytes)-40]))
	rwWriteFile(t, filepath.Join(work, "text.parquet"), "id,name\n1,a\n")
	rwWriteFile(t, filepath.Join(work, "tiny.parquet"), "PA")

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"all rows parquet", []string{"t.parquet"}, rows},
		{"all rows avro", []string{"t.avro"}, rows},
		{"limit", []string{"t.parquet", "--limit", "2"}, strings.Join(strings.SplitAfter(rows, "\n")[:2], "")},
		{"columns", []string{"t.avro", "--columns", "emb,id"}, `{"id":1,"emb":[0.5,1]}` + "\n" + `{"id":2,"emb":null}` + "\n" + `{"id":3,"emb":[-2,3]}` + "\n"},
		{"nested column", []string{"t.parquet", "--columns", "addr.city", "--limit", "1"}, `{"addr":{"city":"x"}}` + "\n"},
		{"explicit format", []string{"--format", "parquet", "t.parquet", "--limit", "1"}, `{"id":1,"name":"a","addr":{"zip":10,"city":"x"},"emb":[0.5,1]}` + "\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := rwMustRun(t, bin, work, "", append([]string{"read", "-q"}, tt.args...)...)
			if got != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}

	for _, tt := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing file", []string{"nope.parquet"}, 1, "nope.parquet"},
		{"truncated parquet", []string{"truncated.parquet"}, 1, "truncated.parquet is not a readable Parquet file"},
		{"footer cut", []string{"tail-cut.parquet"}, 1, "tail-cut.parquet is not a readable Parquet file"},
		{"truncated avro", []string{"truncated.avro"}, 1, "truncated.avro"},
		{"not parquet or avro", []string{"text.parquet"}, 1, "text.parquet is neither Parquet (starts with PAR1) nor Avro"},
		{"too short", []string{"tiny.parquet"}, 1, "tiny.parquet is 2 bytes, too short"},
		{"forced wrong format", []string{"--format", "parquet", "t.avro"}, 1, "t.avro is not a readable Parquet file"},
		{"unknown column", []string{"t.parquet", "--columns", "nope"}, 2, "--columns"},
		{"negative limit", []string{"t.parquet", "--limit", "-1"}, 2, "--limit -1 is negative"},
		{"bad format", []string{"--format", "lance", "t.parquet"}, 2, "Invalid file format: lance"},
		{"no argument", nil, 2, "accepts 1 arg(s)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runWith(t, bin, work, nil, "", append([]string{"read", "-q"}, tt.args...)...)
			if code != tt.code || !strings.Contains(errOut, tt.msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d with %q", code, errOut, tt.code, tt.msg)
			}
		})
	}

	t.Run("progress line unless --quiet", func(t *testing.T) {
		_, errOut, code := runWith(t, bin, work, nil, "", "read", "t.parquet")
		if code != 0 || !strings.HasPrefix(errOut, "lab: 3 rows read from t.parquet in ") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("help has an example", func(t *testing.T) {
		for _, c := range []string{"read", "write"} {
			out := rwMustRun(t, bin, work, "", c, "--help")
			if !strings.Contains(out, "Examples:\n  lab "+c) {
				t.Errorf("lab %s --help has no example:\n%s", c, out)
			}
		}
	})
	if _, err := os.Stat(filepath.Join(work, "lab.yaml")); err == nil {
		t.Fatal("test wrote a lab.yaml")
	}
}
