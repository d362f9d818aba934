package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

// commands holds the constructors of lab's subcommands. Each command's file
// adds its own from init(), so adding a command touches no shared file.
var commands []func(*viper.Viper) *cobra.Command

func newRootCommand() *cobra.Command {
	v := viper.New()
	var configFile string
	var trustConfig bool
	root := &cobra.Command{
		Use:   "lab",
		Short: "Coltype Lab: multimodal column types in Parquet and Iceberg",
		Example: `  lab demo                                        # the lab's main job, end to end
  lab write --schema 'id:long!,emb:vector<float32,3>,doc:variant' out.parquet < rows.jsonl
  lab read out.parquet --limit 5
  lab inspect someone-elses.parquet
  lab vector search out.parquet --query '[0.1, 0.2, 0.3]' --k 5
  lab table create lab.docs --schema 'id:long!,emb:vector<float32,768>,img:file'
  lab bench vectors --quick`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			load, err := loadConfig(v, configFile, trustConfig)
			if err != nil {
				return err
			}
			for _, key := range load.ignored {
				fmt.Fprintf(cmd.ErrOrStderr(), "lab: warning: %s: ignoring %s: it widens what the lab may open, and the file was found in the working directory, not named with --config (pass --trust-config to take it)\n",
					load.file, key)
			}
			cmd.SetContext(context.WithValue(cmd.Context(), configLoadKey{}, load))
			return nil
		},
	}
	root.PersistentFlags().StringVar(&configFile, "config", "", "configuration file (default: ./lab.yaml if present)")
	root.PersistentFlags().BoolVar(&trustConfig, "trust-config", false,
		"take from ./lab.yaml too the settings that widen what the lab may open (FILE roots, schemes, hosts, size limits: see 'lab config show --help'); without it they come only from flags, LAB_* variables or --config FILE")
	root.SetVersionTemplate("{{.Version}}")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	// With Args set, cobra hands an unknown subcommand name to the validator
	// instead of failing inside Find, so it too exits with the usage status.
	root.Args = usageArgs(func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unknown command %q for %q; see 'lab --help'", args[0], cmd.CommandPath())
		}
		return nil
	})
	root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	for _, newCommand := range commands {
		root.AddCommand(newCommand(v))
	}
	return root
}

// defaultConfigFile is read from the working directory when --config is not given.
const defaultConfigFile = "lab.yaml"

// wideningKeys are the settings that widen what the lab may open or let
// through: FILE roots, schemes, hosts and size limits, for lab file resolve
// and for the reference check of lab write. A lab.yaml that happens to be in
// the working directory (shipped with a checkout or a download) must not
// widen them, so they come from a configuration file only when the user
// named it with --config or trusted it with --trust-config. Flags and LAB_*
// variables are the user's own and always count.
var wideningKeys = []string{
	"file.resolve.root", "file.resolve.scheme", "file.resolve.host", "file.resolve.max_size",
	"write.file_root", "write.file_scheme", "write.file_host", "write.check_references",
}

func isWidening(key string) bool {
	for _, w := range wideningKeys {
		if key == w || strings.HasPrefix(key, w+".") {
			return true
		}
	}
	return false
}

// configLoad is what loadConfig read: the commands report it.
type configLoad struct {
	file    string   // absolute path of the file read; "" for none
	named   bool     // the file was given with --config
	trusted bool     // --trust-config
	ignored []string // widening keys the file sets but may not
}

// configLoadKey keys the configLoad in a command's context.
type configLoadKey struct{}

// loadedConfig is the configLoad of the running command.
func loadedConfig(cmd *cobra.Command) *configLoad {
	if load, ok := cmd.Context().Value(configLoadKey{}).(*configLoad); ok {
		return load
	}
	return &configLoad{}
}

// loadConfig layers lab.yaml (or --config) under LAB_* environment variables;
// flags bound by each command sit on top. From a lab.yaml found rather than
// named, the widening keys are dropped (and listed in ignored).
func loadConfig(v *viper.Viper, file string, trust bool) (*configLoad, error) {
	v.SetEnvPrefix("LAB")
	v.SetEnvKeyReplacer(envKeyReplacer)
	v.AutomaticEnv()
	load := &configLoad{named: file != "", trusted: trust}
	if file == "" {
		// Only lab.yaml itself: viper's name search would also take a file
		// called plain "lab" (such as the binary `make build` writes) as YAML.
		if _, err := os.Stat(defaultConfigFile); errors.Is(err, fs.ErrNotExist) {
			return load, nil
		}
		abs, err := filepath.Abs(defaultConfigFile)
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", defaultConfigFile, err)
		}
		file = abs
	}
	load.file = file
	if load.named || load.trusted {
		v.SetConfigFile(file)
		if err := v.ReadInConfig(); err != nil {
			return nil, fmt.Errorf("config %s: %w", v.ConfigFileUsed(), err)
		}
		return load, nil
	}
	// Read the file aside and hand v only the keys it may set. AllKeys
	// flattens every spelling (nested, dotted, any case) to one key.
	found := viper.New()
	found.SetConfigFile(file)
	if err := found.ReadInConfig(); err != nil {
		return nil, fmt.Errorf("config %s: %w", file, err)
	}
	kept := map[string]any{}
	keys := found.AllKeys()
	slices.Sort(keys)
	for _, key := range keys {
		if isWidening(key) {
			load.ignored = append(load.ignored, key)
			continue
		}
		m, path := kept, strings.Split(key, ".")
		for _, p := range path[:len(path)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		m[path[len(path)-1]] = found.Get(key)
	}
	v.SetConfigFile(file) // so ConfigFileUsed names it
	if err := v.MergeConfigMap(kept); err != nil {
		return nil, fmt.Errorf("config %s: %w", file, err)
	}
	return load, nil
}

// usageArgs marks argument-validation failures as usage errors (exit 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// envKeyReplacer turns a setting's key into the rest of its LAB_
// environment variable's name (bench.vectors.size: BENCH_VECTORS_SIZE).
var envKeyReplacer = strings.NewReplacer(".", "_", "-", "_")
