package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func init() { commands = append(commands, newConfigCommand) }

func newConfigCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use: "config",
		Example: `  lab config show
  lab config show --json
  LAB_DEMO_DIR=/tmp/tour lab --config my.yaml config show`,
		Short: "Show the lab's configuration",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var asJSON bool
	show := &cobra.Command{
		Use:   "show",
		Short: "Print every setting's effective value and where it came from (flag default, lab.yaml, or LAB_* environment)",
		Long: `Show prints every setting's effective value and where it came from: the
flag's default, the configuration file, or a LAB_* environment variable.

Settings that widen what the lab may open (` + strings.Join(wideningKeys, ", ") + `)
are taken from a configuration file only when it is named with --config or
trusted with --trust-config; from a ./lab.yaml found in the working directory
they are ignored, with a warning, and shown here as the default with the
reason.`,
		Example: `  lab config show
  LAB_DEMO_DIR=/tmp/tour lab config show --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			settings := effectiveSettings(v, loadedConfig(cmd))
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					ConfigFile string    `json:"config_file"`
					Settings   []setting `json:"settings"`
				}{v.ConfigFileUsed(), settings})
			}
			out := cmd.OutOrStdout()
			file := v.ConfigFileUsed()
			if file == "" {
				file = "(none: no ./lab.yaml and no --config)"
			}
			fmt.Fprintf(out, "config file: %s\n", file)
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE")
			for _, s := range settings {
				fmt.Fprintf(tw, "%s\t%v\t%s\n", s.Key, s.Value, s.Source)
			}
			return tw.Flush()
		},
	}
	show.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.AddCommand(show)
	return cmd
}

// setting is one configuration key as the lab resolves it.
type setting struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Source string `json:"source"`
}

// effectiveSettings lists every key a command binds, with its value and the
// layer it came from. Command-line flags apply only to the command they are
// given to, so here a value comes from the environment, the file, or the
// flag's default, in that order of precedence.
func effectiveSettings(v *viper.Viper, load *configLoad) []setting {
	keys := v.AllKeys()
	slices.Sort(keys)
	out := make([]setting, 0, len(keys))
	for _, k := range keys {
		out = append(out, setting{Key: k, Value: v.Get(k), Source: settingSource(v, load, k)})
	}
	return out
}

// settingSource says where a key's value comes from, short of a flag given
// to the running command: the environment, the file (for a widening key, how
// the file came to be trusted), or the default (for a widening key the file
// sets, why the file's value is ignored).
func settingSource(v *viper.Viper, load *configLoad, key string) string {
	switch {
	case envSet(key):
		return "environment " + envName(key)
	case v.InConfig(key) && isWidening(key) && load.named:
		return "config file (named with --config)"
	case v.InConfig(key) && isWidening(key):
		return "config file (trusted with --trust-config)"
	case v.InConfig(key):
		return "config file"
	case slices.Contains(load.ignored, key):
		return "default (ignored in " + load.file + ": not named with --config nor trusted with --trust-config)"
	}
	return "default"
}

func envName(key string) string {
	return "LAB_" + strings.ToUpper(envKeyReplacer.Replace(key))
}

func envSet(key string) bool {
	_, ok := os.LookupEnv(envName(key))
	return ok
}
