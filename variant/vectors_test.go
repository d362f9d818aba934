package variant

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/google/uuid"
)

// stripTrailingCommas removes commas before a closing bracket outside
// strings: parquet-testing's variant/data_dictionary.json ends its object
// with one, which encoding/json rejects.
func stripTrailingCommas(in []byte) []byte {
	var out []byte
	inString, escaped := false, false
	for i := 0; i < len(in); i++ {
		c := in[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
		}
		if c == ',' {
			j := i + 1
			for j < len(in) && strings.ContainsRune(" \t\r\n", rune(in[j])) {
				j++
			}
			if j < len(in) && (in[j] == '}' || in[j] == ']') {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

func TestConformanceVariantVectors(t *testing.T) {
	dir := testenv.ParquetTestingDir(t, "variant")
	raw, err := os.ReadFile(filepath.Join(dir, "data_dictionary.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(stripTrailingCommas(raw)))
	dec.UseNumber()
	var expected map[string]any
	if err := dec.Decode(&expected); err != nil {
		t.Fatal(err)
	}
	// The vectors are the *.metadata/*.value pairs on disk; the dictionary
	// lacks some of them (long_string), which are checked structurally.
	files, err := filepath.Glob(filepath.Join(dir, "*.metadata"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".metadata"))
	}
	sort.Strings(names)
	pass, noJSON := 0, 0
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			meta, err := os.ReadFile(filepath.Join(dir, name+".metadata"))
			if err != nil {
				t.Fatal(err)
			}
			value, err := os.ReadFile(filepath.Join(dir, name+".value"))
			if err != nil {
				t.Fatal(err)
			}
			v, err := Decode(meta, value)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if want, ok := expected[name]; ok {
				if err := matchJSON(v, want, "$"); err != nil {
					t.Fatalf("%v (decoded %s)", err, v)
				}
			} else {
				// No JSON: the name says what it is.
				if !strings.HasSuffix(name, "string") || v.Type() != variant.String || len(v.Value().(string)) <= 63 {
					t.Fatalf("%s: no JSON expectation and decoded %s is not a long string", name, v)
				}
				noJSON++
			}
			// Every vector also survives shredding with its own layout.
			l, _ := Analyze([]variant.Value{v}, DefaultAnalyzerConfig())
			row, err := Shred(l, v)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Reconstruct(l, row)
			if err != nil {
				t.Fatal(err)
			}
			if err := Equal(back, v); err != nil {
				t.Fatalf("shred round trip: %v", err)
			}
			pass++
		})
	}
	t.Logf("variant vectors: %d/%d pass: %d match data_dictionary.json, %d without a JSON entry checked by type", pass, len(names), pass-noJSON, noJSON)
}

// matchJSON compares a decoded value with parquet-testing's JSON rendering,
// which writes decimals as numbers, binary as base64 and temporal values as
// strings in several formats.
func matchJSON(v variant.Value, want any, path string) error {
	fail := func(format string, a ...any) error { return fmt.Errorf("%s: "+format, append([]any{path}, a...)...) }
	switch v.Type() {
	case variant.Null:
		if want != nil {
			return fail("null, want %v", want)
		}
	case variant.Object:
		m, ok := want.(map[string]any)
		obj := v.Value().(variant.ObjectValue)
		if !ok || int(obj.NumElements()) != len(m) {
			return fail("object %s, want %v", v, want)
		}
		for k, fv := range obj.Values() {
			w, ok := m[k]
			if !ok {
				return fail("unexpected field %q", k)
			}
			if err := matchJSON(fv, w, path+"."+k); err != nil {
				return err
			}
		}
	case variant.Array:
		a, ok := want.([]any)
		arr := v.Value().(variant.ArrayValue)
		if !ok || int(arr.Len()) != len(a) {
			return fail("array %s, want %v", v, want)
		}
		for i := range arr.Len() {
			e, _ := arr.Value(i)
			if err := matchJSON(e, a[i], fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case variant.Bool:
		if want != v.Value() {
			return fail("%v, want %v", v.Value(), want)
		}
	case variant.Int8, variant.Int16, variant.Int32, variant.Int64:
		n, ok := want.(json.Number)
		got := fmt.Sprint(v.Value())
		if !ok || n.String() != got {
			return fail("%s, want %v", got, want)
		}
	case variant.Float, variant.Double, variant.Decimal4, variant.Decimal8, variant.Decimal16:
		n, ok := want.(json.Number)
		if !ok {
			return fail("number, want %v", want)
		}
		w, _ := n.Float64()
		var got float64
		switch x := v.Value().(type) {
		case float32:
			// The JSON holds the float32 printed as a double; compare at
			// float32 precision.
			if float32(w) != x {
				return fail("%v, want %v", x, w)
			}
			return nil
		case float64:
			got = x
		default:
			u, scale, _ := decimalParts(v)
			got, _ = new(big.Float).Quo(new(big.Float).SetInt(u), new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))).Float64()
		}
		if math.Abs(got-w) > 1e-9*math.Max(1, math.Abs(w)) {
			return fail("%v, want %v", got, w)
		}
	case variant.String:
		if want != v.Value() {
			return fail("%q, want %q", v.Value(), want)
		}
	case variant.Binary:
		if want != base64.StdEncoding.EncodeToString(v.Value().([]byte)) {
			return fail("binary %x, want %v", v.Value(), want)
		}
	case variant.UUID:
		if want != v.Value().(uuid.UUID).String() {
			return fail("uuid %v, want %v", v.Value(), want)
		}
	case variant.Date:
		if want != v.Value().(arrow.Date32).FormattedString() {
			return fail("date %v, want %v", v.Value().(arrow.Date32).FormattedString(), want)
		}
	case variant.Time:
		// Rendered as HH:MM:SS:micros by the generator.
		us := int64(v.Value().(arrow.Time64))
		got := fmt.Sprintf("%02d:%02d:%02d:%06d", us/3_600_000_000, us/60_000_000%60, us/1_000_000%60, us%1_000_000)
		if want != got {
			return fail("time %s, want %v", got, want)
		}
	case variant.TimestampMicros, variant.TimestampMicrosNTZ, variant.TimestampNanos, variant.TimestampNanosNTZ:
		s, _ := want.(string)
		unit := arrow.Microsecond
		if t := v.Type(); t == variant.TimestampNanos || t == variant.TimestampNanosNTZ {
			unit = arrow.Nanosecond
		}
		got := v.Value().(arrow.Timestamp).ToTime(unit)
		w, err := parseTimestamp(s)
		if err != nil || !w.Equal(got) {
			return fail("timestamp %s, want %q (%v)", got, s, err)
		}
	default:
		return fail("unhandled type %s", typeName(v.Type()))
	}
	return nil
}

func parseTimestamp(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, strconv.ErrSyntax
}
