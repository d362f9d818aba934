package main

import (
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p/a","Test":"TestOK"}`,
		`{"Action":"output","Package":"p/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"pass","Package":"p/a","Test":"TestOK"}`,
		`{"Action":"output","Package":"p/a","Test":"TestPeer","Output":"=== RUN   TestPeer\n"}`,
		`{"Action":"output","Package":"p/a","Test":"TestPeer","Output":"    peer_test.go:12: duckdb is not installed\n"}`,
		`{"Action":"output","Package":"p/a","Test":"TestPeer","Output":"--- SKIP: TestPeer (0.00s)\n"}`,
		`{"Action":"skip","Package":"p/a","Test":"TestPeer"}`,
		`{"Action":"output","Package":"p/a","Output":"ok  \tp/a\t0.1s\n"}`,
		`{"Action":"pass","Package":"p/a"}`,
		`{"Action":"output","Package":"p/b","Test":"TestBad","Output":"    bad_test.go:3: boom\n"}`,
		`{"Action":"output","Package":"p/b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}`,
		`{"Action":"fail","Package":"p/b","Test":"TestBad"}`,
		`{"Action":"output","Package":"p/b","Output":"FAIL\tp/b\t0.2s\n"}`,
		`{"Action":"fail","Package":"p/b"}`,
	}, "\n")
	var out strings.Builder
	failed, err := summarize(strings.NewReader(in), &out)
	if err != nil || !failed {
		t.Fatalf("failed %v, err %v", failed, err)
	}
	got := out.String()
	for _, want := range []string{"ok  \tp/a", "bad_test.go:3: boom", "FAIL\tp/b", "1 tests skipped:", "1 × duckdb is not installed", "p/a TestPeer"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TestOK") {
		t.Errorf("a passing test's output was printed:\n%s", got)
	}
	if failed, _ := summarize(strings.NewReader(`{"Action":"pass","Package":"p/a"}`), &out); failed {
		t.Error("a passing run reported failure")
	}
}
