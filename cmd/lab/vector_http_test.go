package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
)

// lab vector search takes an http(s) URL: the same results as the local
// file, read with ranges; a server that ignores ranges is refused (exit 1)
// rather than read whole.
func TestVectorSearchURL(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	path := filepath.Join(work, "v.parquet")
	data := make([]float32, 0, 300*4)
	for i := range 300 {
		data = append(data, float32(i%17), float32(i%5), 1, float32(-i%3))
	}
	if err := vectorcol.WriteFile(path, vectorcol.Column{Dim: 4, Data: data}, vectorcol.WriteOptions{Layout: vectorcol.LayoutList}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ranges := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "v.parquet", time.Unix(1, 0), bytes.NewReader(raw))
	}))
	defer ranges.Close()
	whole := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(raw)))
		if r.Method == http.MethodGet {
			_, _ = w.Write(raw) // ignores Range
		}
	}))
	defer whole.Close()

	results := func(loc string) string {
		t.Helper()
		out, errOut, code := run(t, bin, work, "vector", "search", loc, "--query", "[1,2,3,4]", "--k", "5", "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", loc, code, errOut)
		}
		var doc struct{ Results json.RawMessage }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		return string(doc.Results)
	}
	local, remote := results(path), results(ranges.URL+"/v.parquet")
	if local != remote || !strings.Contains(local, "row") {
		t.Errorf("results over http differ from the local file's:\n local %s\nremote %s", local, remote)
	}
	_, errOut, code := run(t, bin, work, "vector", "search", whole.URL+"/v.parquet", "--query", "[1,2,3,4]")
	if code != 1 || !strings.Contains(errOut, whole.URL) || !strings.Contains(errOut, "range") {
		t.Errorf("server ignoring ranges: exit %d, stderr %q; want 1 and an error naming the URL and the range", code, errOut)
	}
}
