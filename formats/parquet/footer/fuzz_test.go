package footer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
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

// FuzzShapedScanMatchesStrictDecode: a strict window, which checks the row
// groups outside it by their shape in the scan and steps over them
// (wireShape), refuses exactly the footers that decoding every row group
// strictly (ReadFooter) refuses. Two differences are the window's own and
// older than the shapes: an empty row_groups list may declare any element
// type (the window's list decoder checks the type of elements only), and
// trailing bytes count as an encrypted footer's signature only where the
// decoded columns show encryption, which a window holding no row group
// cannot see.
func FuzzShapedScanMatchesStrictDecode(f *testing.F) {
	for _, g := range generatedFiles(f) {
		raw := readFooterBytes(f, g.data).Raw
		f.Add(raw)
		for _, at := range []int{len(raw) / 3, len(raw) / 2, 2 * len(raw) / 3} {
			for _, x := range []byte{0x01, 0x03, 0x10} {
				flipped := bytes.Clone(raw)
				flipped[at] ^= x
				f.Add(flipped)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { shapedVerdict(t, data) })
}

// frameFooter frames a footer as a file of no data.
func frameFooter(raw []byte) []byte {
	b := append([]byte("PAR1"), raw...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(raw)))
	return append(b, "PAR1"...)
}

// shapedVerdict fails t unless the strict window and ReadFooter agree on
// the footer raw (FuzzShapedScanMatchesStrictDecode's rule), and reports
// whether ReadFooter refused it for its row groups alone: a window that
// checks none of them (not strict) reads it.
func shapedVerdict(t *testing.T, raw []byte) (rowGroupRefusal bool) {
	t.Helper()
	file := frameFooter(raw)
	size := int64(len(file))
	_, strictErr := ReadFooter(bytes.NewReader(file), size)
	w, shapedErr := ReadFooterRowGroups(bytes.NewReader(file), size, RowGroupWindow{Strict: true})
	switch {
	case (strictErr == nil) == (shapedErr == nil):
	case strictErr == nil && strings.Contains(shapedErr.Error(), "bytes follow the FileMetaData"):
	case shapedErr == nil && w.NumRowGroups == 0 && strings.Contains(strictErr.Error(), "list item"):
	default:
		t.Fatalf("footer %x: decoding every row group strictly: %v; the shaped scan: %v", raw, strictErr, shapedErr)
	}
	if strictErr == nil {
		return false
	}
	_, looseErr := ReadFooterRowGroups(bytes.NewReader(file), size, RowGroupWindow{})
	return looseErr == nil
}

// TestShapedScanMatchesStrictDecodeOnRetypes: every byte of real footers
// given each low nibble in turn (which retypes a field header or a list's
// element type, or changes a value) gets the same verdict from the strict
// window as from decoding every row group strictly; among them are
// footers refused for their row groups alone, which a scan that checked
// no shape would pass.
func TestShapedScanMatchesStrictDecodeOnRetypes(t *testing.T) {
	files := generatedFiles(t)
	rowGroupRefusals := 0
	for _, g := range files[:min(2, len(files))] {
		raw := readFooterBytes(t, g.data).Raw
		b := bytes.Clone(raw)
		for i := range raw {
			for nib := range byte(16) {
				copy(b, raw)
				b[i] = raw[i]&0xF0 | nib
				if shapedVerdict(t, b) {
					rowGroupRefusals++
				}
			}
		}
	}
	if rowGroupRefusals == 0 {
		t.Fatal("no retyped footer was refused for its row groups alone: the test checks nothing")
	}
	t.Logf("%d retyped footers refused for their row groups alone", rowGroupRefusals)
}
