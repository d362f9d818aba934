package footer_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const footerPath = "github.com/coltype-lab/lab/formats/parquet/footer"

// The footer codec sits below the value-level types (DESIGN.md, "Layout"):
// they register with it (FILE's placement rule comes from filecol) and it
// imports none of them.
func TestFooterDependsOnNoValueType(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to list the footer's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", footerPath).Output()
	if err != nil {
		var stderr string
		if e, ok := err.(*exec.ExitError); ok {
			stderr = string(e.Stderr)
		}
		t.Fatalf("go list -deps %s: %v\n%s", footerPath, err, stderr)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, footerPath) {
		t.Fatalf("go list -deps %s does not list the footer itself:\n%s", footerPath, out)
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "github.com/coltype-lab/lab/types/") {
			t.Errorf("%s depends on %s; value-level types register with the footer, never the reverse", footerPath, d)
		}
	}
}
