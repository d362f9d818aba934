// Package golden generates the lab's golden Parquet files deterministically:
// one small file per FILE resolution case (file/), per VECTOR layout and
// element type (vector/), and a shredded VARIANT file (variant/). Beside
// each Parquet file a JSON sidecar (Sidecar) holds the values a reader must
// return, in the peers' common JSON form, so that any reader can be judged
// against it without trusting another reader (spec/compat does that).
//
// Generate writes them; Check regenerates them in a temporary directory and
// lists every file whose bytes differ from the checked-in ones. The tests
// (`go test ./spec/golden -update`) and `lab spec golden --dir spec/golden`
// are the two doors that rewrite them.
package golden

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coltype-lab/lab/internal/publish"
)

// DefaultDir is where the golden files live, relative to the module root.
// It is what is read by default (Check, lab compat); nothing writes it
// unless it is named (lab spec golden --dir spec/golden, go test -update).
const DefaultDir = "spec/golden"

// Kind is the column type a golden file is about; it is also the name of
// the subdirectory holding its files.
type Kind string

const (
	KindFile    Kind = "file"
	KindVector  Kind = "vector"
	KindVariant Kind = "variant"
)

// Kinds lists the kinds in generation order.
func Kinds() []Kind { return []Kind{KindFile, KindVector, KindVariant} }

// CreatedBy replaces the writers' created_by, which carries parquet-go's
// version, so that a dependency bump alone does not change the files.
const CreatedBy = "coltype-lab golden files"

// Sidecar is the JSON file beside each golden Parquet file: what the file
// is, and the values a reader must return.
//
// Rows and PhysicalRows are in the peers' common JSON form (bench/peers
// common.mjs jsonSafe): bytes as lowercase hex, lists as arrays, groups as
// objects, a null cell as null. 64-bit integers are JSON numbers here; the
// peers print them as decimal strings, which spec/compat accepts as equal.
type Sidecar struct {
	Case        string `json:"case"`
	Kind        Kind   `json:"kind"`
	Description string `json:"description"`
	// File is the Parquet file, relative to the sidecar's directory.
	File string `json:"file"`
	// Column is the column under study; Annotation is the logical type the
	// footer gives it (FILE, VECTOR, VARIANT), empty for the baselines that
	// carry none of them (flba-raw, list).
	Column     string `json:"column"`
	Annotation string `json:"annotation,omitempty"`
	// Rows are every row of the file with the type's meaning: a FILE
	// reference as its struct, a VECTOR as an array of numbers, a VARIANT as
	// the JSON value it encodes.
	Rows []map[string]any `json:"rows"`
	// PhysicalRows, when set, are the same rows as the Parquet physical
	// layout holds them, where that differs from Rows: a FIXED_LEN_BYTE_ARRAY
	// vector as hex, a shredded VARIANT as its metadata/value/typed_value
	// groups. Absent, the physical layout reads as Rows.
	PhysicalRows []map[string]any `json:"physical_rows,omitempty"`

	// FILE cases: the row holding the value, the value's fields and what
	// resolving it gives (spec/FILE.md).
	Row    *int        `json:"row,omitempty"`
	Value  *FileValue  `json:"value,omitempty"`
	Expect *FileExpect `json:"expect,omitempty"`

	// VECTOR cases.
	Vector *VectorInfo `json:"vector,omitempty"`

	// VARIANT cases: each variant column's shredding layout
	// (variant.Layout.String(), "" when unshredded).
	Shredding map[string]string `json:"shredding,omitempty"`
}

// Case is a golden file found on disk with its sidecar.
type Case struct {
	Sidecar
	// Path is the Parquet file's path; SidecarPath the JSON's.
	Path, SidecarPath string
}

// ID names the case in reports: kind/case.
func (c Case) ID() string { return string(c.Kind) + "/" + c.Case }

// Load reads every sidecar under dir (dir/<kind>/*.json) in a stable order.
func Load(dir string) ([]Case, error) {
	var cases []Case
	for _, k := range Kinds() {
		names, err := filepath.Glob(filepath.Join(dir, string(k), "*.json"))
		if err != nil {
			return nil, err
		}
		slices.Sort(names)
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				return nil, err
			}
			var c Case
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			if err := dec.Decode(&c.Sidecar); err != nil {
				return nil, fmt.Errorf("golden sidecar %s: %w", name, err)
			}
			if c.Kind != k || c.File == "" || c.Column == "" {
				return nil, fmt.Errorf("golden sidecar %s: kind %q, file %q, column %q: want kind %q and a file and column", name, c.Kind, c.File, c.Column, k)
			}
			c.SidecarPath = name
			c.Path = filepath.Join(filepath.Dir(name), c.File)
			if _, err := os.Stat(c.Path); err != nil {
				return nil, fmt.Errorf("golden sidecar %s: %w", name, err)
			}
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("no golden sidecars under %s/{%s}; run lab spec golden --dir %s", dir, strings.Join(kindNames(), ","), dir)
	}
	return cases, nil
}

func kindNames() []string {
	var out []string
	for _, k := range Kinds() {
		out = append(out, string(k))
	}
	return out
}

// Generate writes every golden file under dir, replacing the kinds'
// subdirectories (files the generator no longer writes are removed).
// The output is deterministic: two runs write the same bytes. Every file
// is generated first, in a temporary directory, and then published at
// its place (internal/publish): a failed or interrupted run leaves each
// file under dir whole, old or new, never truncated.
func Generate(dir string) error {
	tmp, err := os.MkdirTemp("", "golden-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	gen := filepath.Join(tmp, "out")
	if err := generateInto(gen, filepath.Join(tmp, "work")); err != nil {
		return err
	}
	for _, k := range Kinds() {
		dst := filepath.Join(dir, string(k))
		if err := publishTree(filepath.Join(gen, string(k)), dst); err != nil {
			return fmt.Errorf("golden: writing %s: %w", dst, err)
		}
	}
	return nil
}

// GenerateTemp writes every golden file into a new temporary directory and
// returns it, for the caller to keep or remove: where lab spec golden
// writes when it is given no directory, so that no command copied as given
// rewrites the checked-in files.
func GenerateTemp() (string, error) {
	dir, err := os.MkdirTemp("", "lab-golden-")
	if err != nil {
		return "", err
	}
	if err := Generate(dir); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// publishTree makes the tree at dst hold exactly the regular files of the
// tree at src. What src does not have is removed first (so that nothing
// stands where a file goes); then each file is published over its old
// copy, with the mode os.CopyFS would give it.
func publishTree(src, dst string) error {
	files, err := listFiles(src)
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, f := range files {
		for p := f; p != "."; p = path.Dir(p) {
			keep[p] = true
		}
	}
	var stale []string
	err = filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dst {
			return err
		}
		rel, err := filepath.Rel(dst, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		isFile := slices.Contains(files, rel)
		if wanted := isFile && d.Type().IsRegular() || !isFile && keep[rel] && d.IsDir(); !wanted {
			stale = append(stale, p)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if fi, err := os.Lstat(dst); err == nil && !fi.IsDir() {
		stale = append(stale, dst) // a file where the directory goes
	}
	for _, p := range stale {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f)))
		if err != nil {
			return err
		}
		to := filepath.Join(dst, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(to), 0o777); err != nil {
			return err
		}
		if err := publish.WriteFile(to, b, 0o666); err != nil {
			return err
		}
	}
	return nil
}

// generateInto writes every kind under out, using work for intermediate
// files.
func generateInto(out, work string) error {
	writers := map[Kind]func(out, work string) error{
		KindFile:    generateFileCases,
		KindVector:  generateVectorCases,
		KindVariant: generateVariantCases,
	}
	for _, k := range Kinds() {
		w := filepath.Join(work, string(k))
		if err := os.MkdirAll(w, 0o755); err != nil {
			return err
		}
		if err := writers[k](filepath.Join(out, string(k)), w); err != nil {
			return fmt.Errorf("golden %s: %w", k, err)
		}
	}
	return nil
}

// Difference is one way the files under a directory differ from what the
// generator writes.
type Difference struct {
	// Path is relative to the golden directory, with forward slashes.
	Path string `json:"path"`
	// Problem is "missing" (generated, not checked in), "unexpected"
	// (checked in, no longer generated) or "bytes differ".
	Problem string `json:"problem"`
}

func (d Difference) String() string { return d.Path + ": " + d.Problem }

// Check regenerates the golden files in a temporary directory, twice (the
// generator must be deterministic, or comparing would prove nothing), and
// compares them with the files under dir. It returns the differences,
// empty when dir is up to date.
func Check(dir string) ([]Difference, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("golden directory: %w", err)
	}
	tmp, err := os.MkdirTemp("", "golden-check-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	if err := generateInto(a, filepath.Join(tmp, "work-a")); err != nil {
		return nil, err
	}
	if err := generateInto(b, filepath.Join(tmp, "work-b")); err != nil {
		return nil, err
	}
	if d, err := compareTrees(a, b); err != nil {
		return nil, err
	} else if len(d) > 0 {
		return nil, fmt.Errorf("golden: the generator is not deterministic: two runs differ in %v", d)
	}
	return compareTrees(a, dir)
}

// compareTrees lists how have (restricted to the kinds' subdirectories)
// differs from want.
func compareTrees(want, have string) ([]Difference, error) {
	var diffs []Difference
	for _, k := range Kinds() {
		w, err := listFiles(filepath.Join(want, string(k)))
		if err != nil {
			return nil, err
		}
		h, err := listFiles(filepath.Join(have, string(k)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, name := range w {
			rel := string(k) + "/" + name
			if !slices.Contains(h, name) {
				diffs = append(diffs, Difference{rel, "missing"})
				continue
			}
			wb, err := os.ReadFile(filepath.Join(want, rel))
			if err != nil {
				return nil, err
			}
			hb, err := os.ReadFile(filepath.Join(have, rel))
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(wb, hb) {
				diffs = append(diffs, Difference{rel, "bytes differ"})
			}
		}
		for _, name := range h {
			if !slices.Contains(w, name) {
				diffs = append(diffs, Difference{string(k) + "/" + name, "unexpected"})
			}
		}
	}
	return diffs, nil
}

// listFiles lists the regular files under dir, relative, with forward
// slashes, sorted.
func listFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	slices.Sort(out)
	return out, err
}

// writeFile publishes b at path (complete or not at all), creating its
// directory.
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return publish.WriteFile(path, b, 0o644)
}

// writeSidecar writes s as indented JSON (map keys sorted by encoding/json).
func writeSidecar(dir string, s Sidecar) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", s.Case, err)
	}
	return writeFile(filepath.Join(dir, s.Case+".json"), append(b, '\n'))
}
