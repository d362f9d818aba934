package jsonrow

import (
	"fmt"
	"time"
)

// The JSON text of dates, times and timestamps (Iceberg's JSON
// single-value serialization, spec.md Appendix D), for record values and
// Variant values alike. None of their characters needs escaping, so they
// are appended between quotes as they are formatted.

func appendDate(dst []byte, t time.Time) []byte {
	dst = append(dst, '"')
	return append(t.AppendFormat(dst, "2006-01-02"), '"')
}

// appendTimeOfDay writes microseconds since midnight as HH:MM:SS.ffffff.
func appendTimeOfDay(dst []byte, us int64) []byte {
	return fmt.Appendf(dst, `"%02d:%02d:%02d.%06d"`, us/3600e6, us/60e6%60, us/1e6%60, us%1e6)
}

// appendTimestampMicros writes microseconds since the epoch in UTC, with
// "+00:00" when the timestamp has a zone.
func appendTimestampMicros(dst []byte, us int64, tz bool) []byte {
	return appendTimestamp(dst, time.UnixMicro(us), "2006-01-02T15:04:05.000000", tz)
}

// appendTimestampNanos is appendTimestampMicros for nanoseconds.
func appendTimestampNanos(dst []byte, ns int64, tz bool) []byte {
	return appendTimestamp(dst, time.Unix(0, ns), "2006-01-02T15:04:05.000000000", tz)
}

func appendTimestamp(dst []byte, t time.Time, layout string, tz bool) []byte {
	dst = t.UTC().AppendFormat(append(dst, '"'), layout)
	if tz {
		dst = append(dst, "+00:00"...)
	}
	return append(dst, '"')
}
