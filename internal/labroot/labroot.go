// Package labroot finds the lab's source tree, which `lab report` (to build
// the notebooks) and bench/peers (to find its node_modules) both need.
package labroot

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// ModulePath is the lab's module.
const ModulePath = "github.com/coltype-lab/lab"

// Find walks up from dir to the first go.mod that declares ModulePath,
// past the go.mod files of other modules, and returns its directory.
func Find(dir string) (string, bool) {
	for {
		if declaresLab(filepath.Join(dir, "go.mod")) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func declaresLab(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if fields := strings.Fields(s.Text()); len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == ModulePath
		}
	}
	return false
}
