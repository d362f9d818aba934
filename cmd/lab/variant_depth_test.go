package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVariantAnalyzeRefusesDeepJSON checks that lab variant analyze refuses
// a JSON line nested past lab write's limit as it scans the line, whether
// the line is the value or holds it in a member.
func TestVariantAnalyzeRefusesDeepJSON(t *testing.T) {
	deep := strings.Repeat("[", 400_000) + strings.Repeat("]", 400_000)
	for _, tt := range []struct{ name, line, column string }{
		{"whole line", deep, ""},
		{"member", `{"payload":` + deep + `}`, "payload"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "deep.jsonl")
			if err := os.WriteFile(in, []byte(`{"ok":1}`+"\n"+tt.line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := readVariantInput(in, tt.column)
			if err == nil || !strings.Contains(err.Error(), in+":2: ") || !strings.Contains(err.Error(), "exceeded max depth") {
				t.Errorf("error %v, want one naming %s:2 and the depth", err, in)
			}
		})
	}
}
