package footer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// boundedReader fails the test if asked for more bytes than the file has,
// which is how an allocation sized by a hostile footer length would show.
type boundedReader struct {
	t        *testing.T
	data     []byte
	largest  int
	readSize int64
}

func (r *boundedReader) ReadAt(p []byte, off int64) (int, error) {
	if int64(len(p)) > r.readSize {
		r.t.Fatalf("ReadAt asked for %d bytes of a %d-byte file", len(p), r.readSize)
	}
	r.largest = max(r.largest, len(p))
	return bytes.NewReader(r.data).ReadAt(p, off)
}

func withTrailer(body []byte, footerLen uint32, tail string) []byte {
	out := append([]byte{}, body...)
	out = binary.LittleEndian.AppendUint32(out, footerLen)
	return append(out, tail...)
}

func TestReadFooterErrors(t *testing.T) {
	valid := writeParquet(t, flatRows())
	n := len(valid)
	noHead := append([]byte("XXXX"), valid[4:]...)
	cases := []struct {
		name string
		data []byte
		size int64 // 0: len(data)
		want []string
		enc  bool
	}{
		{name: "empty", data: nil, want: []string{"0 bytes is too small"}},
		{name: "eleven bytes", data: []byte("PAR1\x00\x00\x00\x00PAR"), want: []string{"11 bytes is too small"}},
		{name: "no trailing magic", data: valid[:n-1], want: []string{fmt.Sprintf("no PAR1 magic at offset %d", n-5)}},
		{name: "no leading magic", data: noHead, want: []string{"no PAR1 magic at offset 0"}},
		{name: "encrypted footer", data: withTrailer([]byte("PARE0123"), 4, "PARE"), want: []string{"PARE", "encrypted"}, enc: true},
		{name: "footer length past the file", data: withTrailer([]byte("PAR1abcd"), 0xffffffff, "PAR1"),
			want: []string{"footer length 4294967295", "exceeds the file: 16 bytes"}},
		{name: "footer length one past", data: withTrailer([]byte("PAR1abcd"), 5, "PAR1"),
			want: []string{"footer length 5", "16 bytes leave room for at most 4"}},
		{name: "size larger than the data", data: valid, size: int64(n) + 100, want: []string{"read trailer"}},
		{name: "garbage footer", data: withTrailer([]byte("PAR1\xff\xff\xff\xff"), 4, "PAR1"),
			want: []string{"footer at offset 4 (4 bytes)", "file offset"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			size := tc.size
			if size == 0 {
				size = int64(len(tc.data))
			}
			r := &boundedReader{t: t, data: tc.data, readSize: max(size, 0)}
			f, err := ReadFooter(r, size)
			if err == nil {
				t.Fatalf("read %+v, want an error", f)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if errors.Is(err, ErrEncrypted) != tc.enc {
				t.Errorf("errors.Is(err, ErrEncrypted) = %v, want %v", !tc.enc, tc.enc)
			}
		})
	}
}

// Every truncation of a valid file is an error, never a panic or a footer.
func TestReadFooterTruncated(t *testing.T) {
	valid := writeParquet(t, nestedRows())
	f := readFooterBytes(t, valid)
	cuts := []int{0, 1, 4, 11, 12, int(f.Offset), len(valid) / 2, len(valid) - 9, len(valid) - 8, len(valid) - 5, len(valid) - 1}
	for _, cut := range cuts {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			data := valid[:cut]
			if _, err := ReadFooter(&boundedReader{t: t, data: data, readSize: int64(cut)}, int64(cut)); err == nil {
				t.Errorf("a file cut to %d of %d bytes read without error", cut, len(valid))
			}
		})
	}
	// Cutting the footer itself while keeping a consistent trailer.
	for _, keep := range []int64{0, 1, f.Length / 2, f.Length - 1} {
		data := withTrailer(valid[:f.Offset+keep], uint32(keep), "PAR1")
		_, err := ReadFooter(bytes.NewReader(data), int64(len(data)))
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Errorf("footer cut to %d bytes: err = %v, want a DecodeError", keep, err)
			continue
		}
		if de.FileOffset != f.Offset+de.Offset {
			t.Errorf("footer cut to %d bytes: file offset %d, want %d+%d", keep, de.FileOffset, f.Offset, de.Offset)
		}
	}
}

func TestReadFooterLocatesFooter(t *testing.T) {
	data := writeParquet(t, multimodalRows())
	f := readFooterBytes(t, data)
	length := int64(binary.LittleEndian.Uint32(data[len(data)-8:]))
	if f.Length != length || f.Offset != int64(len(data))-8-length || f.FileSize != int64(len(data)) {
		t.Errorf("footer at %d length %d size %d; trailer says length %d", f.Offset, f.Length, f.FileSize, length)
	}
	if !bytes.Equal(f.Raw, data[f.Offset:f.Offset+f.Length]) {
		t.Error("Raw is not the stored footer")
	}
	if f.Signature != nil {
		t.Errorf("signature %x on an unencrypted file", f.Signature)
	}
}
