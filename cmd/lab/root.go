package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	root := &cobra.Command{
		Use:           "lab",
		Short:         "Coltype Lab: multimodal column types in Parquet and Iceberg",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return loadConfig(v, configFile)
		},
	}
	root.PersistentFlags().StringVar(&configFile, "config", "", "configuration file (default: ./lab.yaml if present)")
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

// loadConfig layers lab.yaml (or --config) under LAB_* environment variables;
// flags bound by each command sit on top.
func loadConfig(v *viper.Viper, file string) error {
	v.SetEnvPrefix("LAB")
	v.SetEnvKeyReplacer(envKeyReplacer)
	v.AutomaticEnv()
	if file == "" {
		// Only lab.yaml itself: viper's name search would also take a file
		// called plain "lab" (such as the binary `make build` writes) as YAML.
		if _, err := os.Stat(defaultConfigFile); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		abs, err := filepath.Abs(defaultConfigFile)
		if err != nil {
			return fmt.Errorf("config %s: %w", defaultConfigFile, err)
		}
		file = abs
	}
	v.SetConfigFile(file)
	if err := v.ReadInConfig(); err != nil {
		return fmt.Errorf("config %s: %w", v.ConfigFileUsed(), err)
	}
	return nil
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
