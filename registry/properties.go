package registry

import (
	"fmt"
	"sort"
	"strings"
)

// Property namespaces. A writer property under a format's namespace
// (write.parquet., write.delete.parquet., write.avro., …) configures that
// format's writer; a key there that the model does not honour used to be
// ignored, so a typo or a setting the lab has not implemented produced a
// file other than the one asked for. Keys outside the namespaces (Iceberg
// table properties such as write.target-file-size-bytes, or the metrics
// settings the builders read) are not the model's to judge and pass.

// PropertySet is what one format model honours.
type PropertySet struct {
	// Model names the model in errors.
	Model string
	// Namespaces are the key prefixes the model owns.
	Namespaces []string
	// Known are the keys it honours; an entry ending in "." is a prefix
	// and matches every longer key that starts with it (Iceberg's
	// per-column keys, "write.parquet.bloom-filter-enabled.column.<col>"),
	// whose model then checks the rest of the key.
	Known []string
	// Elsewhere maps keys it does not honour to where they are honoured or
	// why not ("the parquet-arrow model honours it", "Iceberg's bloom
	// filters are not implemented"), for a better error; an entry ending in
	// "." or "-" is a prefix and matches every key that starts with it.
	Elsewhere map[string]string
}

// Check returns an error naming the first key, in sorted order, that lies
// in one of the set's namespaces and is not honoured.
func (s PropertySet) Check(props map[string]string) error {
	var unknown []string
	for key := range props {
		if s.owns(key) && !s.knows(key) {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	key := unknown[0]
	why, best := "it is not a property of this model", -1
	for k, w := range s.Elsewhere {
		prefix := strings.HasSuffix(k, ".") || strings.HasSuffix(k, "-")
		if (key == k || prefix && strings.HasPrefix(key, k)) && len(k) > best {
			why, best = w, len(k) // the most specific entry
		}
	}
	known := make([]string, len(s.Known))
	for i, k := range s.Known {
		if strings.HasSuffix(k, ".") {
			k += "<column>"
		}
		known[i] = k
	}
	sort.Strings(known)
	return &UnknownPropertyError{Key: key, Model: s.Model, Why: why, Known: known}
}

// UnknownPropertyError is a writer property the model does not honour: a
// usage error (the CLI exits 2 for it).
type UnknownPropertyError struct {
	Key, Model, Why string
	Known           []string
}

func (e *UnknownPropertyError) Error() string {
	return fmt.Sprintf("write property %s is not honoured by the %s model (%s); its properties are %s",
		e.Key, e.Model, e.Why, strings.Join(e.Known, ", "))
}

func (s PropertySet) owns(key string) bool {
	for _, ns := range s.Namespaces {
		if strings.HasPrefix(key, ns) {
			return true
		}
	}
	return false
}

func (s PropertySet) knows(key string) bool {
	for _, k := range s.Known {
		if key == k || strings.HasSuffix(k, ".") && len(key) > len(k) && strings.HasPrefix(key, k) {
			return true
		}
	}
	return false
}
