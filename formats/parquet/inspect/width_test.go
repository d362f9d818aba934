package inspect

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/formats/parquet/footer"
)

// textWidth is the widest line the text view may print for the files
// below, 768-dim VECTOR files as the lab writes them: TextWidth, what lab
// pages prints for them.
const textWidth = TextWidth

// icebergSchema stands for the Iceberg schema JSON lab write stores in the
// key/value metadata, hundreds of bytes of escaped quotes.
const icebergSchema = `{"type":"struct","fields":[{"type":"long","id":1,"name":"id","required":true},` +
	`{"type":"fixed[3072]","id":2,"name":"emb","required":true}],"schema-id":0,"identifier-field-ids":[]}`

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
		m.SetKeyValue("iceberg.schema", icebergSchema)
		return footer.Annotate(m, []string{"emb"}, footer.Annotation{Kind: footer.KindVector, VectorLength: 768, Element: "FLOAT"})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// The text view of a 768-dim VECTOR file fits textWidth: its schema line
// keeps the physical type and length, the element and the dim; its VECTOR
// bounds are shown by the type's formatter, other long bounds and the
// key/value values cut to their start and length; the JSON report keeps
// them whole.
func TestTextFitsATerminal(t *testing.T) {
	data := vectorFile(t)
	s := text(t, inspectBytes(t, data, Options{Name: "vectors.parquet"}))
	for _, line := range strings.Split(s, "\n") {
		if n := utf8.RuneCountInString(line); n > textWidth {
			t.Errorf("line of %d columns, more than %d: %s", n, textWidth, line)
		}
	}
	for _, want := range []string{
		"    emb      required    FIXED_LEN_BYTE_ARRAY(3072)  VECTOR(id=20, 768×float32, flba); column 1\n",
		"  iceberg.schema       " + `"{\"type\":\"struct\",\"fields\":[{\"type\":\"long\",\"id\":1,\"name\""… (` +
			strconv.Itoa(len(icebergSchema)) + " bytes)\n",
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

func TestKeyValueText(t *testing.T) {
	long := strings.Repeat(`{"k":1}`, 10)
	for _, c := range []struct {
		name      string
		v         string
		truncated bool
		length    int
		room      int
		want      string
	}{
		{"fits", "lab test", false, 8, 36, `"lab test"`},
		{"cut by the report", long[:64] + "…", true, len(long), 40, `"{\"k\":1}{\"k\":1}{\"k\":1"… (70 bytes)`},
		{"too long for the line", long, false, len(long), 40, `"{\"k\":1}{\"k\":1}{\"k\":1"… (70 bytes)`},
		{"escapes stay whole", strings.Repeat(`"`, 40), false, 40, 31, `"` + strings.Repeat(`\"`, 8) + `"… (40 bytes)`},
		{"invalid UTF-8 as escapes", strings.Repeat("\xff\xfe", 20), false, 40, 30, `"\xff\xfe\xff\xfe"… (40 bytes)`},
		{"whole characters", strings.Repeat("ü", 50), false, 100, 30, `"` + strings.Repeat("ü", 15) + `"… (100 bytes)`},
	} {
		got := keyValueText(c.v, c.truncated, c.length, c.room)
		if got != c.want {
			t.Errorf("%s: keyValueText = %s, want %s", c.name, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > c.room {
			t.Errorf("%s: %s is %d columns, more than %d", c.name, got, n, c.room)
		}
	}
}
