package main

import (
	"bufio"

	"github.com/spf13/cobra"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/jsonrow"
)

// jsonLinesOut prints records as JSON Lines, buffered, with progress on
// stderr: the output of lab read and lab table scan.
type jsonLinesOut struct {
	out   *bufio.Writer
	prog  progress
	codec *jsonrow.Codec
	line  []byte
}

func newJSONLinesOut(cmd *cobra.Command, codec *jsonrow.Codec, what string) *jsonLinesOut {
	return &jsonLinesOut{out: bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16), prog: newProgress(cmd, -1, what), codec: codec}
}

// write prints one record; after an error the caller returns fail's.
func (o *jsonLinesOut) write(rec *data.Record) (encodeErr, writeErr error) {
	line, err := o.codec.AppendJSON(o.line[:0], rec)
	if err != nil {
		return err, nil
	}
	o.line = append(line, '\n')
	if _, err := o.out.Write(o.line); err != nil {
		return nil, err
	}
	o.prog.Add(1)
	return nil, nil
}

// fail stops the progress and prints what was written before err.
func (o *jsonLinesOut) fail(err error) error {
	o.prog.Abort()
	_ = o.out.Flush()
	return err
}

// finish flushes the output and completes the progress.
func (o *jsonLinesOut) finish() error {
	if err := o.out.Flush(); err != nil {
		o.prog.Abort()
		return err
	}
	o.prog.Finish()
	return nil
}
