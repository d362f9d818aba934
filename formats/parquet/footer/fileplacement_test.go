package footer_test

import (
	"strings"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/footer"

	// FILE's placement rule, registered as in a program that writes FILE:
	// footer's own FILE tests run with the rule the lab links.
	// formats/parquet/internal/unbound tests the footer without it.
	_ "github.com/coltype-lab/lab/formats/parquet/filecol"
)

// One rule decides FILE's placement: filecol's is registered here, and a
// second one, or none, is a programming error caught at init.
func TestRegisterFilePlacementRefusesASecondRule(t *testing.T) {
	cases := []struct {
		name  string
		place func(*footer.FileMetaData, int) error
		want  string
	}{
		{"nil", nil, "footer: RegisterFilePlacement: nil placement rule"},
		{"second", func(*footer.FileMetaData, int) error { return nil }, "footer: RegisterFilePlacement: FILE's placement rule is already registered"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Fatalf("panic %v, want %q", r, tc.want)
				}
			}()
			footer.RegisterFilePlacement(tc.place)
		})
	}
}
