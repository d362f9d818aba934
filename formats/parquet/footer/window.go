package footer

import (
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// RowGroupWindow selects the row groups a footer read keeps: those at
// indexes [First, First+Count), or every one from First when Count < 0.
// The others are walked (ScanStruct checks every length and size) but not
// decoded, unless Strict is set.
type RowGroupWindow struct {
	First, Count int
	// Strict gives the row groups outside the window the strict decode's
	// checks (a field of the wrong type is an error) without decoding
	// them: the footer's scan holds them to the shape the strict decode
	// expects (wireShape), and the decode steps over their bytes.
	Strict bool
}

// AllRowGroups is the window that decodes every row group.
var AllRowGroups = RowGroupWindow{First: 0, Count: -1}

func (w RowGroupWindow) end(total int) int {
	if w.Count < 0 || w.Count > total-w.First {
		return total
	}
	return w.First + w.Count
}

// ReadFooterRowGroups is ReadFooter for readers that look at some row groups
// only (an inspection that prints a few of them). Meta.RowGroups holds the
// row groups of w that exist; Footer.FirstRowGroup is the index of the first
// of them and Footer.NumRowGroups the file's count. A footer of 100,000 row
// groups then costs the walk over its bytes, not the structures ReadFooter
// would build for each of them.
//
// The row groups outside the window pass ScanStruct (every length and size
// is checked) but not the strict decode unless w.Strict, and Meta.Encrypted
// sees only the window's columns (a file with encrypted columns sets
// encryption_algorithm, which it does see). Meta must not be encoded: it is
// not the file's footer.
func ReadFooterRowGroups(r io.ReaderAt, size int64, w RowGroupWindow, opts ...Option) (_ *Footer, err error) {
	defer guard(&err, "read footer")
	if w.First < 0 {
		return nil, fmt.Errorf("row group window starts at %d, before the first row group", w.First)
	}
	return readFooter(r, size, opts, &w)
}

// fileMetaDataWindow is FileMetaData with row_groups decoded through a
// window. TestWindowModelMatches keeps its fields in step with FileMetaData.
type fileMetaDataWindow struct {
	Version                  int32                       `thrift:"1,required"`
	Schema                   thrift.Slice[SchemaElement] `thrift:"2,required"`
	NumRows                  int64                       `thrift:"3,required"`
	RowGroups                rowGroupWindow              `thrift:"4,required"`
	KeyValueMetadata         thrift.Slice[KeyValue]      `thrift:"5,optional"`
	CreatedBy                thrift.Null[string]         `thrift:"6,optional"`
	ColumnOrders             thrift.Slice[ColumnOrder]   `thrift:"7,optional"`
	EncryptionAlgorithm      format.EncryptionAlgorithm  `thrift:"8,optional"`
	FooterSigningKeyMetadata []byte                      `thrift:"9,optional"`
}

func (m *fileMetaDataWindow) meta() *FileMetaData {
	return &FileMetaData{
		Version: m.Version, Schema: m.Schema, NumRows: m.NumRows, RowGroups: m.RowGroups.groups,
		KeyValueMetadata: m.KeyValueMetadata, CreatedBy: m.CreatedBy, ColumnOrders: m.ColumnOrders,
		EncryptionAlgorithm: m.EncryptionAlgorithm, FooterSigningKeyMetadata: m.FooterSigningKeyMetadata,
	}
}

// rowGroupWindow is the row_groups list decoded only inside the reader's
// window (footerReader.window); groups[0] is row group first.
type rowGroupWindow struct {
	groups thrift.Slice[RowGroup]
	first  int
	total  int
}

// Type implements thrift.Value.
func (rowGroupWindow) Type() thrift.Type { return thrift.LIST }

// NullFunc implements thrift.Value; the field is required.
func (rowGroupWindow) NullFunc() thrift.NullFunc { return func(reflect.Value) bool { return false } }

// EncodeFunc implements thrift.Value: a window is not a footer's list.
func (rowGroupWindow) EncodeFunc(thrift.EncodeFuncCache) thrift.EncodeFunc {
	return func(thrift.Writer, reflect.Value, thrift.Flags) error {
		return errors.New("row groups read through a window cannot be encoded")
	}
}

// DecodeFunc implements thrift.Value.
func (rowGroupWindow) DecodeFunc(cache thrift.DecodeFuncCache) thrift.DecodeFunc {
	decodeGroup := thrift.DecodeFuncFor[RowGroup](cache)
	skipGroup := thrift.DecodeFuncOf(emptyStructType, cache)
	return func(r thrift.Reader, v reflect.Value, flags thrift.Flags) error {
		out := v.Addr().Interface().(*rowGroupWindow)
		win := AllRowGroups
		fr, spans := r.(*footerReader)
		if spans && fr.window != nil {
			win = *fr.window
		}
		l, err := r.ReadList()
		if err != nil {
			return err
		}
		if l.Size > 0 && l.Type != thrift.STRUCT {
			return fmt.Errorf("row_groups holds %s elements, not STRUCT", l.Type)
		}
		total := int(l.Size)
		first := min(win.First, total)
		end := win.end(total)
		out.first, out.total = first, total
		out.groups = make(thrift.Slice[RowGroup], end-first)
		skip := reflect.New(emptyStructType).Elem()
		for i := range total {
			switch {
			case i >= first && i < end:
				err = decodeGroup(r, reflect.ValueOf(&out.groups[i-first]).Elem(), flags)
			case win.Strict && spans:
				// The scan has checked the group as the strict decode
				// would (rowGroupsShape): step over its bytes.
				err = fr.skipRowGroup()
			default:
				err = skipGroup(r, skip, flags)
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return fmt.Errorf("row group %d: %w", i, err)
			}
		}
		return nil
	}
}
