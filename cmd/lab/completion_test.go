package main

import (
	"strings"
	"testing"
)

// testCompletion checks the shell completion scripts and the candidates
// they ask the binary for; TestRead runs it on its binary.
func testCompletion(t *testing.T, bin string) {
	work := t.TempDir()
	for shell, want := range map[string]string{
		"bash":       "# bash completion V2 for lab",
		"zsh":        "#compdef lab",
		"fish":       "complete -c lab",
		"powershell": "Register-ArgumentCompleter",
	} {
		t.Run(shell, func(t *testing.T) {
			out := rwMustRun(t, bin, work, "", "completion", shell)
			if !strings.Contains(out, want) {
				t.Fatalf("lab completion %s lacks %q:\n%.400s", shell, want, out)
			}
		})
	}
	// __complete is what the scripts call; it lists candidates, then the
	// directive as ":N".
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"write", "--format", ""}, []string{"auto", "parquet", "avro"}},
		{[]string{"read", "--format", ""}, []string{"auto", "parquet", "avro"}},
		{[]string{"write", "--input-format", ""}, []string{"jsonl", "csv"}},
		{[]string{"write", "--compression", ""}, []string{"zstd", "snappy"}},
		{[]string{"write", "--property", ""}, []string{"write.parquet.vector-columns=", "write.parquet.shred-variants="}},
		{[]string{"wr"}, []string{"write"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out := rwMustRun(t, bin, work, "", append([]string{"__complete"}, tt.args...)...)
			lines := strings.Split(out, "\n")
			for _, w := range tt.want {
				found := false
				for _, l := range lines {
					if l == w || strings.HasPrefix(l, w+"\t") {
						found = true
					}
				}
				if !found {
					t.Errorf("completion of %q lacks %q:\n%s", tt.args, w, out)
				}
			}
		})
	}
}
