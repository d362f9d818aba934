package inspect

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/formats/parquet/footer"
)

// textWidth is the widest line the text view may print for the files
// below: 132 columns, a wide terminal. A VECTOR annotation with its
// parameters is 53 columns by itself, so 120 is not reachable without
// hiding what the schema says.
const textWidth = 132

// vectorRow is a 768-dim float32 VECTOR stored as FIXED_LEN_BYTE_ARRAY(3072),
// the lab's flba layout, next to a long string and a long blob.
type vectorRow struct {
	ID      int64      `parquet:"id"`
	Emb     [3072]byte `parquet:"emb"`
	Caption string     `parquet:"caption"`
	Blob    []byte     `parquet:"blob"`
}

func vectorFile(t *testing.T, opts ...parquet.WriterOption) []byte {
	t.Helper()
	var rs []vectorRow
	for i := range 3 {
		r := vectorRow{ID: int64(i), Caption: strings.Repeat("a long caption ", 20) + string(rune('a'+i)),
			Blob: bytes.Repeat([]byte{byte(i), 0xfe}, 500)}
		for j := range 768 {
			binary.LittleEndian.PutUint32(r.Emb[4*j:], math.Float32bits(float32(i*j)/7))
		}
		rs = append(rs, r)
	}
	data := writeParquet(t, rs, opts...)
	var out bytes.Buffer
	err := footer.RewriteFooter(bytes.NewReader(data), int64(len(data)), &out, func(m *footer.FileMetaData) error {
		return footer.Annotate(m, []string{"emb"}, footer.Annotation{Kind: footer.KindVector, VectorLength: 768, Element: "FLOAT"})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// The text view of a 768-dim VECTOR file fits textWidth, its VECTOR bounds
// shown by the type's formatter and other long bounds cut to their first
// bytes and length; the JSON report keeps them whole.
func TestTextFitsATerminal(t *testing.T) {
	data := vectorFile(t)
	s := text(t, inspectBytes(t, data, Options{Name: "vectors.parquet"}))
	for _, line := range strings.Split(s, "\n") {
		if n := utf8.RuneCountInString(line); n > textWidth {
			t.Errorf("line of %d columns, more than %d: %s", n, textWidth, line)
		}
	}
	for _, want := range []string{
		// VECTOR's own formatter (types/vector, registered with data/coltype).
		"    emb      0      [0, 0, 0, 0, 0, 0, 0, …] 768×float32  [0, 0.2857, 0.5714, …] 768×float32\n",
		`    caption  0      "a long caption a long … (301 bytes)  "a long caption a long … (301 bytes)` + "\n",
		"    blob     0      0x00fe00fe00fe00fe00fe… (1000 bytes)  0x02fe02fe02fe02fe02fe… (1000 bytes)\n",
		"    id       0      0                                     2\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("text view lacks %q:\n%s", want, s)
		}
	}

	rep := inspectBytes(t, data, Options{Name: "vectors.parquet", FullStatistics: true})
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	emb := column(t, back.RowGroups[0], "emb").Statistics
	var max [3072]byte
	for j := range 768 {
		binary.LittleEndian.PutUint32(max[4*j:], math.Float32bits(float32(2*j)/7))
	}
	if emb == nil || emb.Min != "0x"+strings.Repeat("00", 3072) || emb.Max != "0x"+hex.EncodeToString(max[:]) {
		t.Errorf("JSON emb bounds are not whole: min %d, max %d characters", len(emb.Min), len(emb.Max))
	}
	if c := column(t, back.RowGroups[0], "caption").Statistics; c == nil || c.Max != `"`+strings.Repeat("a long caption ", 20)+`c"` {
		t.Errorf("JSON caption max is not whole: %+v", c)
	}
}

func TestTextValue(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"12", 8, "12"},
		{"0x" + strings.Repeat("ab", 17), 17, "0x" + strings.Repeat("ab", 17)}, // 36 columns: fits
		{"0x" + strings.Repeat("ab", 64) + "…", 3072, "0x" + strings.Repeat("ab", 10) + "… (3072 bytes)"},
		{"0x" + strings.Repeat("ab", 64) + "…", 0, "0x" + strings.Repeat("ab", 16) + "…"},
		{`"` + strings.Repeat("ü", 40) + `"`, 80, `"` + strings.Repeat("ü", 23) + "… (80 bytes)"},
	} {
		got := textValue(c.in, c.n)
		if got != c.want {
			t.Errorf("textValue(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		if utf8.RuneCountInString(got) > textValueWidth {
			t.Errorf("textValue(%q, %d) = %q: %d columns", c.in, c.n, got, utf8.RuneCountInString(got))
		}
	}
}
