package footer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// FuzzDecodeFooter feeds arbitrary bytes to Decode (and, framed as a file, to
// ReadFooter and ReadFooterRowGroups). It must never panic; errors must be DecodeErrors; whatever
// decodes must encode, decode again and encode to the same bytes; and the
// helpers built on a decoded footer must not panic either.
func FuzzDecodeFooter(f *testing.F) {
	for _, g := range generatedFiles(f) {
		raw := readFooterBytes(f, g.data).Raw
		f.Add(raw)
		f.Add(raw[:len(raw)/2])
		f.Add(raw[:len(raw)-1])
		for _, at := range []int{1, len(raw) / 3, len(raw) / 2, len(raw) - 2} {
			flipped := bytes.Clone(raw)
			flipped[at] ^= 0x10
			f.Add(flipped)
		}
	}
	annotated := readFooterBytes(f, rewrite(f, writeParquet(f, multimodalRows()), annotateMultimodal())).Raw
	f.Add(annotated)
	m := minimalMeta()
	m.Schema[1].LogicalType = LogicalType{Value: &UnknownLogicalType{ID: 2555, Raw: []byte{0x15, 0x0e, 0x00}}}
	unknown, _ := Encode(m)
	f.Add(unknown)

	f.Fuzz(func(t *testing.T, data []byte) {
		fileBytes := append([]byte("PAR1"), data...)
		fileBytes = binary.LittleEndian.AppendUint32(fileBytes, uint32(len(data)))
		fileBytes = append(fileBytes, "PAR1"...)
		full, err := ReadFooter(bytes.NewReader(fileBytes), int64(len(fileBytes)))
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("ReadFooter error is not a DecodeError: %v", err)
			}
		}
		// A window decodes no more than ReadFooter: whatever it reads, the
		// window reads too, with the same row groups.
		for _, w := range []RowGroupWindow{{}, {Strict: true}, {First: 1, Count: 1}} {
			part, werr := ReadFooterRowGroups(bytes.NewReader(fileBytes), int64(len(fileBytes)), w)
			if err != nil || werr != nil {
				if err == nil {
					t.Fatalf("ReadFooter reads the footer, the window %+v does not: %v", w, werr)
				}
				continue
			}
			if part.NumRowGroups != len(full.Meta.RowGroups) {
				t.Fatalf("window %+v counts %d row groups, ReadFooter %d", w, part.NumRowGroups, len(full.Meta.RowGroups))
			}
			for i := range part.Meta.RowGroups {
				a, _ := encodeValue(&part.Meta.RowGroups[i])
				b, _ := encodeValue(&full.Meta.RowGroups[part.FirstRowGroup+i])
				if !bytes.Equal(a, b) {
					t.Fatalf("window %+v: row group %d differs", w, part.FirstRowGroup+i)
				}
			}
		}

		meta, err := Decode(data)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Decode error is not a DecodeError: %v", err)
			}
			return
		}
		enc, err := Encode(meta)
		if err != nil {
			t.Fatalf("a decoded footer does not encode: %v", err)
		}
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("an encoded footer does not decode: %v", err)
		}
		enc2, err := Encode(again)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable: %v", err)
		}
		_, _ = ReadAnnotations(meta)
		_, _ = Sanitize(meta)
		for i := range meta.Schema {
			_ = Annotate(meta, []string{meta.Schema[i].Name}, Annotation{Kind: KindFile})
		}
	})
}
