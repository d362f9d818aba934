package parquet

import (
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/footer"
)

// Each element a fixed[L] cell holds takes its width from the footer's
// table; a name missing there would give width 0 and a wrong cell size.
func TestVectorElementWidthsComeFromTheFooter(t *testing.T) {
	cases := []struct {
		e          vectorElement
		footerName string
		width      int
	}{
		{elemFloat32, "FLOAT", 4},
		{elemFloat64, "DOUBLE", 8},
		{elemFloat16, "FLOAT16", 2},
		{elemInt8, "INT8", 1},
		{0, "", 0},
		{elemInt8 + 1, "", 0},
	}
	for _, c := range cases {
		if got := c.e.width(); got != c.width {
			t.Errorf("%s: width %d, want %d", c.e, got, c.width)
		}
		if w, ok := footer.VectorElementWidths[c.footerName]; c.footerName != "" && (!ok || int(w) != c.width) {
			t.Errorf("%s: footer.VectorElementWidths[%q] = %d, %v; want %d", c.e, c.footerName, w, ok, c.width)
		}
	}
	if len(footer.VectorElementWidths) != len(vectorElementFooterNames)-1 {
		t.Errorf("footer.VectorElementWidths has %d elements, the reader knows %d", len(footer.VectorElementWidths), len(vectorElementFooterNames)-1)
	}
}
