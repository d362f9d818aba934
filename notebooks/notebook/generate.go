package notebook

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
)

// Options are the flags every notebook takes.
type Options struct {
	// Quick runs the experiment at test size: seconds, not minutes. The
	// figures are then only a smoke test, and the page says so.
	Quick bool
	// Out is the folder README.md and the SVG files go to.
	Out string
	// Seed seeds every generated dataset.
	Seed uint64
	// Command reproduces the page; Main fills it from the command line.
	// When empty, Generate derives it from the name, Quick and Seed.
	Command string
}

// DefaultSeed is the seed when --seed is not given.
const DefaultSeed = 1

// Run runs one experiment and describes it in a Report.
type Run func(ctx context.Context, opts Options) (*Report, error)

// Main is a notebook's main: it parses --quick, --out (default: the folder of
// the calling main.go) and --seed, plus any flags the notebook registered on
// flag.CommandLine before calling it, runs the experiment and writes the page.
// It exits 1 with the error on stderr when anything fails, and 2 on bad flags.
func Main(run Run) {
	_, file, _, ok := runtime.Caller(1)
	if !ok {
		fmt.Fprintln(os.Stderr, "notebook: cannot tell which notebook is running")
		os.Exit(1)
	}
	dir := filepath.Dir(file)
	name := filepath.Base(dir)
	var opts Options
	flag.BoolVar(&opts.Quick, "quick", false, "run at test size (seconds); the page says so")
	flag.StringVar(&opts.Out, "out", "", "folder for README.md and the SVG files (default: the notebook's own folder, "+dir+")")
	flag.Uint64Var(&opts.Seed, "seed", DefaultSeed, "seed of the generated data")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: go run ./notebooks/%s [flags]\n\nRuns the %s experiment and writes its README.md and SVG plots.\n\nFlags:\n", name, name)
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "notebook %s: unexpected arguments %q\n", name, flag.Args())
		os.Exit(2)
	}
	if opts.Out == "" {
		if !filepath.IsAbs(dir) {
			// Built with -trimpath: the source folder is unknown.
			fmt.Fprintf(os.Stderr, "notebook %s: built without source paths; pass --out\n", name)
			os.Exit(2)
		}
		opts.Out = dir
	}
	opts.Command = commandLine(name)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := Generate(ctx, name, opts, run); err != nil {
		fmt.Fprintf(os.Stderr, "notebook %s: %v\n", name, err)
		stop()
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "notebook %s: wrote %s\n", name, filepath.Join(opts.Out, "README.md"))
}

// Generate runs the experiment and writes its page to opts.Out. Tests call it
// directly; Main calls it after parsing flags.
func Generate(ctx context.Context, name string, opts Options, run Run) error {
	if opts.Out == "" {
		return errors.New("no output folder")
	}
	if opts.Seed == 0 {
		opts.Seed = DefaultSeed
	}
	if opts.Command == "" {
		opts.Command = "go run ./notebooks/" + name
		if opts.Quick {
			opts.Command += " --quick"
		}
		if opts.Seed != DefaultSeed {
			opts.Command += fmt.Sprintf(" --seed %d", opts.Seed)
		}
	}
	m := ThisMachine() // before the run: the load average the run started under
	rep, err := run(ctx, opts)
	if err != nil {
		return err
	}
	if opts.Quick {
		rep.Setup = append(rep.Setup, "**Quick run** (`--quick`): test sizes, a smoke test of the notebook; its figures are not the lab's results.")
	}
	s := Summary{
		Name: name, Title: rep.Title, Question: rep.Question, Headline: rep.Headline,
		Generated: m.Date, Command: opts.Command, Quick: opts.Quick,
	}
	return rep.write(opts.Out, s, m)
}

// commandLine is the command that reproduces the page: go run of the notebook
// with every flag the user set, except --out, which moves the page without
// changing it.
func commandLine(name string) string {
	parts := []string{"go run ./notebooks/" + name}
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "out" {
			return
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			if f.Value.String() == "true" {
				parts = append(parts, "--"+f.Name)
			} else {
				parts = append(parts, "--"+f.Name+"="+f.Value.String())
			}
			return
		}
		parts = append(parts, "--"+f.Name+" "+shellQuote(f.Value.String()))
	})
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./,:=+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
