package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is what lab --version prints: the module version (a tag, or
// "(devel)" for a build from a checkout), the VCS revision and time when
// the build recorded them, the Go release, and the versions of the
// libraries whose behaviour the lab's results depend on.
func version() string {
	var b strings.Builder
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "lab (no build information)\n"
	}
	fmt.Fprintf(&b, "lab %s", info.Main.Version)
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, ", revision %.12s", rev)
		if settings["vcs.modified"] == "true" {
			b.WriteString(" (modified)")
		}
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, ", %s", t)
		}
	}
	fmt.Fprintf(&b, ", %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, d := range info.Deps {
		switch d.Path {
		case "github.com/apache/iceberg-go", "github.com/apache/arrow-go/v18", "github.com/parquet-go/parquet-go":
			fmt.Fprintf(&b, "  %s %s\n", d.Path, d.Version)
		}
	}
	return b.String()
}
