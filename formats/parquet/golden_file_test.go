package parquet_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"testing"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/spec/golden"
	"github.com/coltype-lab/lab/types/file"
)

// goldenDir holds the golden files. Package spec/golden generates them; its
// test (go test ./spec/golden -update) regenerates them and fails when the
// bytes differ from the checked-in ones.
const goldenDir = "../../spec/golden"

// TestGoldenFileResolution reads each checked-in FILE golden file through
// this package's record model, finds its FILE column from the footer and
// resolves the value against spec/golden/file.
func TestGoldenFileResolution(t *testing.T) {
	root, err := filepath.Abs(filepath.Join(goldenDir, string(golden.KindFile)))
	if err != nil {
		t.Fatal(err)
	}
	resolver, err := file.NewResolver(file.Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root, VerifyChecksums: true})
	if err != nil {
		t.Fatal(err)
	}
	cases, err := golden.Load(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if c.Kind != golden.KindFile {
			continue
		}
		n++
		t.Run(c.Case, func(t *testing.T) {
			if c.Row == nil || c.Expect == nil {
				t.Fatalf("%s: no row or expectation", c.SidecarPath)
			}
			anns, err := parquet.FileAnnotations(registry.LocalInput(c.Path))
			if err != nil {
				t.Fatal(err)
			}
			if len(anns) != 1 || anns[0].Kind != footer.KindFile || anns[0].Path[0] != c.Column || !anns[0].InFooter || !anns[0].InKeyValue {
				t.Fatalf("annotations %+v, want FILE on %s in the footer and the mirror", anns, c.Column)
			}
			recs := readRecords(t, c.Path, nil)
			if len(recs) <= *c.Row {
				t.Fatalf("%d rows", len(recs))
			}
			docRec, _ := recs[*c.Row].Get(1).(*data.Record)
			v, err := file.FromRecord(docRec)
			if err != nil {
				t.Fatal(err)
			}
			got, unverifiable, err := readStream(resolver, v)
			if c.Expect.Violation != "" {
				rule, ok := file.RuleOf(err)
				if !ok || rule != c.Expect.Violation {
					t.Fatalf("resolved to %q, err %v; want violation %s", got, err, c.Expect.Violation)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(got)
			if hex.EncodeToString(got) != *c.Expect.BytesHex || len(got) != *c.Expect.Size || hex.EncodeToString(sum[:]) != *c.Expect.SHA256 {
				t.Errorf("resolved to %q, want hex %s (%d bytes, sha256 %s)", got, *c.Expect.BytesHex, *c.Expect.Size, *c.Expect.SHA256)
			}
			if (unverifiable != "") != (c.Expect.Checksum == "unverifiable") {
				t.Errorf("checksum unverifiable %q, sidecar says %q", unverifiable, c.Expect.Checksum)
			}
		})
	}
	if n != golden.FileCaseCount() {
		t.Fatalf("%d FILE sidecars in %s, want %d; run go test ./spec/golden -update", n, root, golden.FileCaseCount())
	}
}

// readStream reads v's bytes and says why its checksum was not verified.
func readStream(r *file.Resolver, v *file.Value) ([]byte, string, error) {
	s, err := r.OpenStream(context.Background(), v)
	if err != nil || s == nil {
		return nil, "", err
	}
	defer s.Close()
	b, err := io.ReadAll(s)
	return b, s.Unverifiable, err
}
