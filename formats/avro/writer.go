package avro

import (
	"compress/flate"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/hamba/avro/v2/ocf"
	"github.com/klauspost/compress/zstd"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// defaultSyncInterval is Avro's DataFileConstants.DEFAULT_SYNC_INTERVAL.
const defaultSyncInterval = 64000

// Iceberg's default levels (Avro.java): gzip 9, zstd 1.
const (
	gzipLevelDefault = 9
	zstdLevelDefault = 1
)

// ocfWriter is the container side of an appender: the pending file, the
// hamba OCF encoder fed with pre-encoded rows, and the row count.
type ocfWriter struct {
	out     *registry.PendingFile
	enc     *ocf.Encoder
	rows    int64
	scratch []byte
	closed  bool
	// failed is set once a write to the file has failed: the file can no
	// longer be completed, so every later call reports it.
	failed error
}

// writeProperties are what the Avro models honour: another key under
// write.avro. or write.delete.avro. is refused, naming it, not ignored.
var writeProperties = registry.PropertySet{
	Model:      GenericModelName + " and " + PositionDeleteModelName,
	Namespaces: []string{"write.avro.", "write.delete.avro."},
	Known:      []string{CompressionCodecKey, CompressionLevelKey, DeleteCompressionCodecKey, DeleteCompressionLevelKey, SyncIntervalKey},
}

func newOCFWriter(out registry.OutputFile, opts registry.WriteOptions) (*ocfWriter, error) {
	if err := writeProperties.Check(opts.Properties); err != nil {
		return nil, fmt.Errorf("write %s: %w", out.Location, err)
	}
	codecOpts, err := codecOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", out.Location, err)
	}
	interval := defaultSyncInterval
	if v, ok := opts.Properties[SyncIntervalKey]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("write %s: %s must be a positive integer, got %q", out.Location, SyncIntervalKey, v)
		}
		interval = n
	}
	schema, err := ToAvroSchema(opts.Schema)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", out.Location, err)
	}
	meta := make(map[string][]byte, len(opts.FileMetadata)+3)
	for k, v := range opts.FileMetadata {
		// Avro's DataFileWriter refuses the keys it owns.
		if strings.HasPrefix(k, "avro.") {
			return nil, fmt.Errorf("write %s: cannot set reserved metadata key %q", out.Location, k)
		}
		meta[k] = []byte(v)
	}
	icebergSchema, err := json.Marshal(opts.Schema)
	if err != nil {
		return nil, fmt.Errorf("write %s: iceberg schema JSON: %w", out.Location, err)
	}
	// As Java's Avro.WriteBuilder: the schema wins over a caller's key.
	meta[IcebergSchemaKey] = icebergSchema

	pending, err := out.Create(opts.Overwrite)
	if err != nil {
		return nil, err
	}
	encOpts := append(codecOpts,
		ocf.WithMetadata(meta),
		ocf.WithSchemaMarshaler(ocf.FullSchemaMarshaler),
		// Blocks close by size only, as Avro's DataFileWriter does.
		ocf.WithBlockLength(0),
		ocf.WithBlockSize(interval),
	)
	enc, err := ocf.NewEncoderWithSchema(schema, pending, encOpts...)
	if err != nil {
		_ = pending.Abort()
		return nil, fmt.Errorf("write %s: %w", out.Location, err)
	}
	return &ocfWriter{out: pending, enc: enc}, nil
}

// codecOptions resolves Iceberg's codec properties (Avro.java's
// dataContext and deleteContext) into hamba encoder options.
func codecOptions(opts registry.WriteOptions) ([]ocf.EncoderFunc, error) {
	codecKey, levelKey := CompressionCodecKey, CompressionLevelKey
	if opts.Content != iceberg.EntryContentData {
		if _, ok := opts.Properties[DeleteCompressionCodecKey]; ok {
			codecKey, levelKey = DeleteCompressionCodecKey, DeleteCompressionLevelKey
		}
	}
	codec := registry.Property(opts.Properties, codecKey, "gzip")
	levelText, hasLevel := opts.Properties[levelKey]
	level := func(def, lo, hi int) (int, error) {
		if !hasLevel {
			return def, nil
		}
		n, err := strconv.Atoi(levelText)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("%s: invalid %s level %q (want %d to %d)", levelKey, codec, levelText, lo, hi)
		}
		return n, nil
	}
	switch strings.ToLower(codec) {
	case "uncompressed":
		return []ocf.EncoderFunc{ocf.WithCodec(ocf.Null)}, nil
	case "snappy":
		return []ocf.EncoderFunc{ocf.WithCodec(ocf.Snappy)}, nil
	case "gzip":
		n, err := level(gzipLevelDefault, flate.HuffmanOnly, flate.BestCompression)
		if err != nil {
			return nil, err
		}
		return []ocf.EncoderFunc{ocf.WithCompressionLevel(n)}, nil
	case "zstd":
		n, err := level(zstdLevelDefault, 1, 22)
		if err != nil {
			return nil, err
		}
		return []ocf.EncoderFunc{
			ocf.WithCodec(ocf.ZStandard),
			ocf.WithZStandardEncoderOptions(zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(n))),
		}, nil
	default:
		return nil, fmt.Errorf("%s: Unsupported compression codec: %s (want %s)", codecKey, codec, strings.Join(CompressionCodecs, ", "))
	}
}

// CompressionCodecs are the names write.avro.compression-codec takes:
// Iceberg's (TableProperties.AVRO_COMPRESSION), not the Avro container's
// own (null, deflate, zstandard) that its header records.
var CompressionCodecs = []string{"uncompressed", "snappy", "gzip", "zstd"}

// add encodes one row with encode and, only when the whole row is valid,
// hands its bytes to the container: a rejected row leaves no trace.
func (w *ocfWriter) add(encode func([]byte) ([]byte, error)) error {
	if w.closed {
		return fmt.Errorf("write %s: appender is closed", w.out.Location())
	}
	if w.failed != nil {
		return w.failed
	}
	buf, err := encode(w.scratch[:0])
	w.scratch = buf[:0]
	if err != nil {
		return fmt.Errorf("write %s: row %d: %w", w.out.Location(), w.rows, err)
	}
	if _, err := w.enc.Write(buf); err != nil {
		w.failed = fmt.Errorf("write %s: %w", w.out.Location(), err)
		return w.failed
	}
	w.rows++
	return nil
}

func (w *ocfWriter) close() error {
	if w.closed {
		return w.failed
	}
	w.closed = true
	if w.failed != nil {
		_ = w.out.Abort()
		return w.failed
	}
	if err := w.enc.Close(); err != nil {
		_ = w.out.Abort()
		w.failed = fmt.Errorf("write %s: %w", w.out.Location(), err)
		return w.failed
	}
	if err := w.out.Commit(); err != nil {
		w.failed = err
		return err
	}
	return nil
}

func (w *ocfWriter) abort() error {
	if w.closed {
		return nil
	}
	w.closed = true
	w.failed = errors.New("appender was aborted")
	_ = w.enc.Close() // releases codec resources; the bytes are discarded
	return w.out.Abort()
}

// metrics is what Iceberg's Java Avro appender reports: the row count only.
func (w *ocfWriter) metrics() registry.Metrics { return registry.Metrics{RecordCount: w.rows} }

// recordAppender writes *data.Record rows.
type recordAppender struct {
	w   *ocfWriter
	enc *structEncoder
}

func (a *recordAppender) Add(row *data.Record) (err error) {
	defer recoverTo(&err, "write "+a.w.out.Location())
	return a.w.add(func(buf []byte) ([]byte, error) { return a.enc.encodeRecord(buf, row) })
}

func (a *recordAppender) Close() error              { return a.w.close() }
func (a *recordAppender) Abort() error              { return a.w.abort() }
func (a *recordAppender) Metrics() registry.Metrics { return a.w.metrics() }
func (a *recordAppender) Length() int64             { return a.w.out.Written() }

// SplitOffsets is nil, as Java's Avro appender reports: readers find block
// boundaries through sync markers.
func (a *recordAppender) SplitOffsets() []int64 { return nil }
