package main

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/registry/tour"
)

func init() { commands = append(commands, newDemoCommand) }

func newDemoCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the registry tour: formats, models, a Parquet write and read, and the two errors",
		Example: `  lab demo
  lab demo --dir ./out   # keep the Parquet file the tour writes`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir := v.GetString("demo.dir")
			if dir == "" {
				tmp, err := os.MkdirTemp("", "lab-demo-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				dir = tmp
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			_, err := tour.Run(cmd.OutOrStdout(), dir, tour.DefaultRows())
			return err
		},
	}
	cmd.Flags().String("dir", "", "directory for the files the tour writes (default: a temporary directory, removed afterwards)")
	_ = v.BindPFlag("demo.dir", cmd.Flags().Lookup("dir"))
	return cmd
}
