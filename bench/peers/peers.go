// Package peers runs the independent readers and search engines the lab
// compares against (DuckDB, hyparquet, parquet-wasm, LanceDB, FAISS) as
// child processes: each script in this directory reads one JSON request on
// stdin and prints one JSON result on stdout.
//
// The peers install from this directory's own files: `npm ci` here (from
// package-lock.json) for the Node.js peers, and apt-packages.txt for FAISS
// (Debian's python3-faiss, run with /usr/bin/python3). Run reports a peer
// that is not installed, crashes, hangs or prints no JSON as an *Error whose
// Kind is ErrMissing, ErrCrash, ErrHang or ErrGarbage.
package peers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/coltype-lab/lab/internal/labroot"
)

// ModulePath is the lab's module; Dir looks for the go.mod that declares it.
const ModulePath = labroot.ModulePath

// DirEnv, when set, names the peers directory and overrides the search.
const DirEnv = "LAB_PEERS_DIR"

// DefaultTimeout bounds one run of a peer whose Timeout is zero.
const DefaultTimeout = 120 * time.Second

const (
	npmInstall  = "cd bench/peers && npm ci"
	faissPython = "/usr/bin/python3"
	aptInstall  = "apt-get install python3-faiss python3-numpy (the list is bench/peers/apt-packages.txt)"
)

// Peer describes one external program and how to tell that it is installed.
type Peer struct {
	// Name names the peer in errors and results.
	Name string
	// Program is the executable: an absolute path, or a name looked up on PATH.
	Program string
	// Script, when set, is a file in Dir passed as the first argument.
	Script string
	// Args follow Script.
	Args []string
	// Dir holds Script and the peer's installed packages; empty means the
	// module's bench/peers (see Dir).
	Dir string
	// Install says how to install the peer; the missing-peer error quotes it.
	Install string
	// Detect, when set, checks what Program and Script alone do not show,
	// such as an installed package; dir is the resolved Dir.
	Detect func(dir string) error
	// Timeout bounds one run; zero means DefaultTimeout.
	Timeout time.Duration
}

// The known peers. Their scripts document each op's request and result.
var (
	DuckDB      = nodePeer("duckdb", "duckdb.mjs", "@duckdb/node-api")
	Hyparquet   = nodePeer("hyparquet", "hyparquet.mjs", "hyparquet")
	ParquetWasm = nodePeer("parquet-wasm", "parquetwasm.mjs", "parquet-wasm", "apache-arrow")
	LanceDB     = nodePeer("lancedb", "lancedb.mjs", "@lancedb/lancedb", "apache-arrow")
	// HyparquetWriter is hyparquet's companion writer; the reverse
	// compatibility matrix writes files with it (and with ParquetWasm).
	HyparquetWriter = nodePeer("hyparquet-writer", "hyparquetwriter.mjs", "hyparquet-writer")
	FAISS           = Peer{
		Name:    "faiss",
		Program: faissPython, // Debian's interpreter: python3-faiss installs for it alone
		Script:  "faiss_search.py",
		Install: aptInstall,
		Detect:  func(string) error { return pythonImports(faissPython, "faiss", "numpy") },
	}
)

// All lists the known peers.
func All() []Peer { return []Peer{DuckDB, Hyparquet, HyparquetWriter, ParquetWasm, LanceDB, FAISS} }

// Readers lists the peers with a Parquet `read` op.
func Readers() []Peer { return []Peer{DuckDB, Hyparquet, ParquetWasm} }

func nodePeer(name, script string, packages ...string) Peer {
	return Peer{
		Name:    name,
		Program: "node",
		Script:  script,
		Install: npmInstall,
		Detect: func(dir string) error {
			for _, pkg := range packages {
				manifest := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json")
				if _, err := os.Stat(manifest); err != nil {
					return fmt.Errorf("npm package %s is not installed in %s", pkg, dir)
				}
			}
			return nil
		},
	}
}

// Check reports, as an *Error of kind ErrMissing, why p cannot run here, or
// nil when it can. It returns the resolved peers directory.
func (p Peer) Check() (dir string, err error) {
	missing := func(format string, args ...any) error {
		return &Error{Peer: p.Name, Kind: ErrMissing, Detail: fmt.Sprintf(format, args...), Install: p.Install}
	}
	dir = p.Dir
	if dir == "" {
		if dir, err = Dir(); err != nil {
			return "", missing("%v", err)
		}
	}
	if _, err := exec.LookPath(p.Program); err != nil {
		return dir, missing("program %s not found: %v", p.Program, err)
	}
	if p.Script != "" {
		if _, err := os.Stat(filepath.Join(dir, p.Script)); err != nil {
			return dir, missing("script: %v", err)
		}
	}
	if p.Detect != nil {
		if err := p.Detect(dir); err != nil {
			return dir, missing("%v", err)
		}
	}
	return dir, nil
}

// Available is Check without the directory.
func (p Peer) Available() error {
	_, err := p.Check()
	return err
}

// Dir returns the peers directory: $LAB_PEERS_DIR when set, else bench/peers
// under the lab module's root, found by walking up from the working
// directory to the go.mod that declares ModulePath, else from this source
// file's directory (for a binary run on the machine that built it).
func Dir() (string, error) {
	if d := os.Getenv(DirEnv); d != "" {
		return filepath.Abs(d)
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	for _, start := range starts {
		if root, ok := labroot.Find(start); ok {
			dir := filepath.Join(root, "bench", "peers")
			if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
				return dir, nil
			}
		}
	}
	return "", fmt.Errorf("cannot find bench/peers: no go.mod of module %s above %s; set %s",
		ModulePath, strings.Join(starts, " or "), DirEnv)
}

// pythonImports checks that python can import the modules, remembering the
// answer: starting Python and FAISS takes a noticeable fraction of a second.
func pythonImports(python string, modules ...string) error {
	key := python + " " + strings.Join(modules, ",")
	importChecks.Lock()
	defer importChecks.Unlock()
	if err, ok := importChecks.m[key]; ok {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var err error
	if _, statErr := os.Stat(python); statErr != nil {
		err = fmt.Errorf("%s not found", python)
	} else if out, runErr := exec.CommandContext(ctx, python, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput(); runErr != nil {
		err = fmt.Errorf("%s cannot import %s: %v: %s", python, strings.Join(modules, ", "), runErr, lastLines(string(out), 3))
	}
	if importChecks.m == nil {
		importChecks.m = map[string]error{}
	}
	importChecks.m[key] = err
	return err
}

var importChecks struct {
	sync.Mutex
	m map[string]error
}

// Sentinel kinds of *Error, for errors.Is.
var (
	ErrMissing = errors.New("not installed")
	ErrCrash   = errors.New("exited with an error")
	ErrHang    = errors.New("timed out")
	ErrGarbage = errors.New("printed no JSON result")
)

// Error is a failed run of a peer.
type Error struct {
	Peer string
	// Kind is ErrMissing, ErrCrash, ErrHang or ErrGarbage.
	Kind error
	// Detail says what happened: the exit status, the limit, the output.
	Detail string
	// Stderr is the end of what the peer printed on stderr.
	Stderr string
	// Install says how to install a missing peer.
	Install string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "peer %s %v", e.Peer, e.Kind)
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	if e.Kind == ErrMissing && e.Install != "" {
		b.WriteString("; install with: " + e.Install)
	}
	if e.Stderr != "" {
		b.WriteString("; stderr ends:\n" + e.Stderr)
	}
	return b.String()
}

func (e *Error) Is(target error) bool { return target == e.Kind }

func (e *Error) Unwrap() error { return e.Err }
