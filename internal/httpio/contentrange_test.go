package httpio

import (
	"fmt"
	"testing"
)

func TestParseContentRange(t *testing.T) {
	tests := []struct {
		in                 string
		first, last, total int64
		ok                 bool
	}{
		{"bytes 0-0/1", 0, 0, 1, true},
		{"bytes 10-19/1000", 10, 19, 1000, true},
		{"bytes 10-19/*", 10, 19, -1, true},
		{"bytes 9223372036854775806-9223372036854775806/9223372036854775807", 1<<63 - 2, 1<<63 - 2, 1<<63 - 1, true},
		{"", 0, 0, 0, false},
		{"bytes */1000", 0, 0, 0, false},
		{"bytes 10-19", 0, 0, 0, false},
		{"bytes 19-10/1000", 0, 0, 0, false},
		{"bytes 10-1000/1000", 0, 0, 0, false},
		{"bytes +10-19/1000", 0, 0, 0, false},
		{"bytes 10--19/1000", 0, 0, 0, false},
		{"bytes 10-19/-1", 0, 0, 0, false},
		{"bytes 10-19/1000 ", 0, 0, 0, false},
		{"Bytes 10-19/1000", 0, 0, 0, false},
		{"bytes=10-19/1000", 0, 0, 0, false},
		{"bytes 0-99999999999999999999/*", 0, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			first, last, total, err := parseContentRange(tt.in)
			if (err == nil) != tt.ok || first != tt.first || last != tt.last || total != tt.total {
				t.Errorf("parseContentRange(%q) = %d, %d, %d, %v; want %d, %d, %d, ok=%v", tt.in, first, last, total, err, tt.first, tt.last, tt.total, tt.ok)
			}
		})
	}
}

func TestParseUnsatisfiedRange(t *testing.T) {
	tests := []struct {
		in    string
		total int64
		ok    bool
	}{
		{"bytes */0", 0, true},
		{"bytes */1000", 1000, true},
		{"bytes */*", 0, false},
		{"bytes 0-0/1", 0, false},
		{"bytes */-1", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		total, err := parseUnsatisfiedRange(tt.in)
		if (err == nil) != tt.ok || total != tt.total {
			t.Errorf("parseUnsatisfiedRange(%q) = %d, %v; want %d, ok=%v", tt.in, total, err, tt.total, tt.ok)
		}
	}
}

// FuzzParseContentRange checks that whatever a server sends, an accepted
// range is well formed and is exactly what its canonical spelling says.
func FuzzParseContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-0/1", "bytes 10-19/*", "bytes */0", "bytes 1-0/2", "bytes 0-9/5", "bytes -1-2/3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		first, last, total, err := parseContentRange(s)
		if err != nil {
			return
		}
		if first < 0 || last < first || (total != -1 && last >= total) || total < -1 {
			t.Fatalf("%q accepted as %d-%d/%d", s, first, last, total)
		}
		canon := fmt.Sprintf("bytes %d-%d/%d", first, last, total)
		if total == -1 {
			canon = fmt.Sprintf("bytes %d-%d/*", first, last)
		}
		if canon != s {
			// Only leading zeros may differ.
			a, b, c, err := parseContentRange(canon)
			if err != nil || a != first || b != last || c != total {
				t.Fatalf("%q: canonical %q reads back as %d-%d/%d, %v", s, canon, a, b, c, err)
			}
		}
	})
}
