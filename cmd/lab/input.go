package main

import (
	"strings"

	"github.com/coltype-lab/lab/internal/httpio"
	"github.com/coltype-lab/lab/registry"
)

// inputFile is the registry input for a location named on the command line:
// an http:// or https:// URL is read with range requests (internal/httpio,
// its default timeouts and size bound), anything else is a local path or
// file:// URI. The user names the URL, so no setting widens what is opened.
func inputFile(loc string) registry.InputFile {
	if l := strings.ToLower(loc); strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") {
		return registry.InputFile{FS: &httpio.FS{}, Location: loc}
	}
	return registry.LocalInput(loc)
}
