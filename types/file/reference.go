package file

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Kind says how a reference is read.
type Kind int

const (
	// KindLocal is a local file, read through the configured FileIO.
	KindLocal Kind = iota + 1
	// KindHTTP is an http or https URL, read with Range requests.
	KindHTTP
	// KindObject is an object-store URI (s3, gs, mem, ...), read through
	// the FileIO configured for its scheme.
	KindObject
)

func (k Kind) String() string {
	switch k {
	case KindLocal:
		return "local"
	case KindHTTP:
		return "http"
	case KindObject:
		return "object"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Location is a reference that passed the resolver's policy: resolved to an
// absolute URL, its scheme, host and root checked, nothing opened yet.
type Location struct {
	// Written is the uri as the value holds it.
	Written string
	// URL is the absolute URL the reference resolves to.
	URL  *url.URL
	Kind Kind
	// Path is the cleaned local path (KindLocal only). Symlinks are not yet
	// resolved: that happens when the file is opened.
	Path string
}

func (l *Location) String() string { return l.URL.String() }

// ParseReference resolves a uri against the base location and checks it
// against the policy: syntax, dot segments, scheme, userinfo, host, root.
// It never touches the file system or the network, so it is safe on
// untrusted input.
func (r *Resolver) ParseReference(uri string) (*Location, error) {
	bad := func(rule Rule, format string, args ...any) (*Location, error) {
		return nil, violation(rule, "uri", uri, format, args...)
	}
	if uri == "" {
		return bad(RuleURISyntax, "uri is empty, so it is not set")
	}
	ref, err := url.Parse(uri)
	if err != nil {
		return bad(RuleURISyntax, "not an RFC 3986 URI-reference: %v", unwrapURLError(err))
	}
	if v := checkPath(ref); v != "" {
		return bad(RuleDotSegment, "%s", v)
	}
	if strings.ContainsRune(ref.Path, 0) {
		return bad(RuleURISyntax, "path holds a NUL byte")
	}
	u := ref
	if ref.Scheme == "" {
		switch {
		case r.base != nil:
			u = r.base.ResolveReference(ref)
		case ref.Host == "" && strings.HasPrefix(ref.Path, "/"):
			// With no base, an absolute path is a local path, as iceberg-go's
			// LocalFS reads a scheme-less location.
			u = &url.URL{Scheme: "file", Path: ref.Path, RawQuery: ref.RawQuery, Fragment: ref.Fragment}
		default:
			return bad(RuleRelativeNoBase, "relative reference and the resolver has no base location")
		}
	}
	scheme := strings.ToLower(u.Scheme)
	if !r.schemes[scheme] {
		return bad(RuleScheme, "scheme %q is not allowed (allowed: %s)", scheme, strings.Join(r.schemeList(), ", "))
	}
	if u.User != nil {
		return bad(RuleUserinfo, "URLs with userinfo are refused, so credentials never travel in a FILE value")
	}
	if u.Opaque != "" {
		return bad(RuleURISyntax, "%s URI %q has no hierarchical path", scheme, uri)
	}
	loc := &Location{Written: uri, URL: u}
	switch scheme {
	case "file":
		if h := strings.ToLower(u.Host); h != "" && h != "localhost" {
			return bad(RuleHost, "file URI host %q is not local", u.Host)
		}
		if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
			return bad(RuleURISyntax, "a file URI has no query or fragment; percent-encode '?' and '#' in file names")
		}
		p := filepath.Clean(filepath.FromSlash(u.Path))
		if !filepath.IsAbs(p) {
			return bad(RuleURISyntax, "file path %q is not absolute", u.Path)
		}
		if !r.inLocalRoots(p) {
			return bad(RuleOutsideRoot, "%s is outside the allowed roots (%s)", p, strings.Join(r.localRootList(), ", "))
		}
		loc.Kind, loc.Path = KindLocal, p
	case "http", "https":
		if u.Host == "" || u.Hostname() == "" {
			return bad(RuleURISyntax, "%s URL has no host", scheme)
		}
		if !r.hosts[strings.ToLower(u.Host)] {
			return bad(RuleHost, "host %q is not allowed (allowed: %s)", u.Host, strings.Join(r.hostList(), ", "))
		}
		u.Fragment, u.RawFragment = "", "" // never sent; kept out of requests and messages
		loc.Kind = KindHTTP
	default:
		if u.RawQuery != "" || u.Fragment != "" {
			return bad(RuleURISyntax, "an object URI has no query or fragment")
		}
		name := objectName(u)
		if !r.inObjectRoots(scheme, name) {
			return bad(RuleOutsideRoot, "%s is outside the allowed roots (%s)", name, strings.Join(r.objectRoots[scheme], ", "))
		}
		loc.Kind = KindObject
	}
	return loc, nil
}

// checkPath refuses dot segments: Iceberg v4 does not allow directory
// navigation in relative paths, and in absolute ones a ".." that passes
// through a symlink names a different file than its lexical cleaning does.
// It checks the decoded path, so %2e%2e is caught too.
func checkPath(u *url.URL) string {
	p := u.Path
	if u.Opaque != "" {
		p = u.Opaque
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." {
			return fmt.Sprintf("path %q has a %q segment; dot segments are not resolved", p, seg)
		}
	}
	return ""
}

func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// objectName is the name an object-store FileIO opens: scheme://host/path,
// with the path cleaned (dot segments were already refused).
func objectName(u *url.URL) string {
	p := u.EscapedPath()
	if p != "" {
		p = path.Clean(p)
	}
	return strings.ToLower(u.Scheme) + "://" + u.Host + p
}

func within(root, p string, sep byte) bool {
	if p == root {
		return true
	}
	if root != "" && root[len(root)-1] == sep {
		return strings.HasPrefix(p, root)
	}
	return strings.HasPrefix(p, root) && len(p) > len(root) && p[len(root)] == sep
}

func (r *Resolver) inLocalRoots(p string) bool {
	for _, rt := range r.localRoots {
		if within(rt.clean, p, filepath.Separator) || within(rt.real, p, filepath.Separator) {
			return true
		}
	}
	return false
}

func (r *Resolver) inRealRoots(p string) bool {
	for _, rt := range r.localRoots {
		if within(rt.real, p, filepath.Separator) {
			return true
		}
	}
	return false
}

func (r *Resolver) inObjectRoots(scheme, name string) bool {
	for _, rt := range r.objectRoots[scheme] {
		if within(rt, name, '/') {
			return true
		}
	}
	return false
}

func (r *Resolver) schemeList() []string {
	var out []string
	for s := range r.schemes {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func (r *Resolver) hostList() []string {
	var out []string
	for h := range r.hosts {
		out = append(out, h)
	}
	slices.Sort(out)
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

func (r *Resolver) localRootList() []string {
	var out []string
	for _, rt := range r.localRoots {
		out = append(out, rt.clean)
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}
