package parquet

import (
	"bytes"
	"errors"
	"testing"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/variant"
)

// exactFixture is a plan that shreds the fast corpus's fields, and the
// corpus, whose values seed the fuzzer and lend it their metadata.
type exactFixture struct {
	plan   *writePlan
	corpus []pvariant.Value
}

func newExactFixture(t testing.TB) exactFixture {
	t.Helper()
	values := fastCorpus(t, 120)
	cfg := variant.DefaultAnalyzerConfig()
	cfg.MinFieldFrequency = 0 // shred the rare typed fields too
	layout, _ := variant.Analyze(values, cfg)
	if layout == nil {
		t.Fatal("no layout")
	}
	plan, err := planWrite(idVariantSchema(), map[string]*variant.Layout{"v": layout})
	if err != nil {
		t.Fatal(err)
	}
	return exactFixture{plan: plan, corpus: values}
}

// walk runs the fast path on unvalidated bytes, as variantValue does for a
// value of at most variant.DepthFreeBytes, and returns the columns it wrote.
func (x exactFixture) walk(meta pvariant.Metadata, b []byte) ([][]pq.Value, error) {
	s := newShredder(x.plan)
	n := x.plan.root.children[1]
	s.fast.entry = s.metas.get(meta.Bytes())
	if s.fast.entry.err != nil {
		return nil, s.fast.entry.err
	}
	meta = s.fast.entry.meta
	err := guard("walk", "shred", func() error { return s.shredFast(n.variant.top, meta, b, 0, n.def, 0) })
	return s.cols, err
}

// checkExact: the fast path refuses exactly what arrow-go's validation
// refuses, and writes what the slow path (variant.Shred of the validated
// value) writes for what both accept.
func (x exactFixture) checkExact(t *testing.T, meta pvariant.Metadata, b []byte) {
	t.Helper()
	if len(b) > variant.DepthFreeBytes {
		return // validated whole before the walk
	}
	v, arrowErr := variant.DecodeValue(meta, b)
	cols, fastErr := x.walk(meta, b)
	if p := (*recoveredPanic)(nil); errors.As(fastErr, &p) {
		t.Fatalf("%x: the fast path panicked: %v", b, fastErr)
	}
	if (arrowErr == nil) != (fastErr == nil) {
		t.Fatalf("%x: arrow-go says %v, the fast path %v", b, arrowErr, fastErr)
	}
	if arrowErr != nil {
		return
	}
	slow := shredAll(t, x.plan, idVariantSchema(), []pvariant.Value{v}, true)
	// shredAll's columns also hold the id and metadata, which walk leaves out.
	for c, want := range slow {
		got := cols[c]
		if c == x.plan.root.children[0].col || c == x.plan.root.children[1].variant.meta {
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("%x: column %d: %d values fast, %d slow", b, c, len(got), len(want))
		}
		for k := range got {
			a, w := got[k], want[k]
			if a.RepetitionLevel() != w.RepetitionLevel() || a.DefinitionLevel() != w.DefinitionLevel() || a.IsNull() != w.IsNull() ||
				(!a.IsNull() && !bytes.Equal(a.Bytes(), w.Bytes())) {
				t.Fatalf("%x: column %d value %d: fast %v (r%d d%d), slow %v (r%d d%d)", b, c, k, a, a.RepetitionLevel(), a.DefinitionLevel(), w, w.RepetitionLevel(), w.DefinitionLevel())
			}
		}
	}
}

// TestExactWalkAcceptsTheCorpus: every valid value of the corpus, and each
// of its truncations, gets the same verdict from the fast path's walk as
// from arrow-go.
func TestExactWalkAcceptsTheCorpus(t *testing.T) {
	x := newExactFixture(t)
	for _, v := range x.corpus {
		b := v.Bytes()
		x.checkExact(t, v.Metadata(), b)
		for _, n := range []int{0, 1, len(b) / 2, len(b) - 1} {
			x.checkExact(t, v.Metadata(), b[:n:n])
		}
		// A byte more: trailing bytes are refused by both.
		x.checkExact(t, v.Metadata(), append(bytes.Clone(b), 0))
	}
}

// sortedMeta is a metadata with sorted_strings set (version 1, one-byte
// offsets) and the keys "id" and "user", ids 0 and 1: the dictionary other
// writers than arrow-go's Builder write, whose objects the walk matches to
// the layout by id.
var sortedMeta = []byte{0x11, 2, 0, 2, 6, 'i', 'd', 'u', 's', 'e', 'r'}

// brokenContainers are objects and arrays under a metadata whose "id" and
// "user" have ids id and user that break one rule each, and valid ones
// (one with its values out of field order); valid names those.
func brokenContainers(id, user byte) (cases map[string][]byte, valid map[string]bool) {
	int8v := func(n byte) []byte { return []byte{3 << 2, n} }
	obj := func(ids []byte, offs []byte, data ...byte) []byte {
		b := []byte{2, byte(len(ids))} // one-byte ids and offsets
		b = append(b, ids...)
		b = append(b, offs...)
		return append(b, data...)
	}
	cases = map[string][]byte{
		"valid":                 obj([]byte{id}, []byte{0, 2}, int8v(7)...),
		"valid, two fields":     obj([]byte{id, user}, []byte{0, 2, 4}, append(int8v(1), int8v(2)...)...),
		"names out of order":    obj([]byte{user, id}, []byte{0, 2, 4}, append(int8v(1), int8v(2)...)...),
		"a repeated name":       obj([]byte{id, id}, []byte{0, 2, 4}, append(int8v(1), int8v(2)...)...),
		"a gap before a field":  obj([]byte{id}, []byte{1, 3}, append([]byte{0}, int8v(7)...)...),
		"overlapping fields":    obj([]byte{id, user}, []byte{0, 0, 2}, int8v(7)...),
		"trailing data":         obj([]byte{id}, []byte{0, 3}, append(int8v(7), 0)...),
		"field id out of range": obj([]byte{250}, []byte{0, 2}, int8v(7)...),
		"values out of order":   obj([]byte{id, user}, []byte{2, 0, 4}, append(int8v(1), int8v(2)...)...),
		"array not from zero":   {3, 1, 1, 3, 0, 3 << 2, 5},
		"array falling offsets": {3, 2, 0, 2, 1, 3 << 2, 5},
		"empty array element":   {3, 2, 0, 0, 2, 3 << 2, 5},
		"unknown primitive":     obj([]byte{id}, []byte{0, 1}, 63<<2),
	}
	return cases, map[string]bool{"valid": true, "valid, two fields": true, "values out of order": true}
}

// TestExactWalkRefusesBrokenContainers: each broken container is refused
// by the walk as by arrow-go, under arrow-go's unsorted dictionary (names
// compared) and under a sorted one (ids compared).
func TestExactWalkRefusesBrokenContainers(t *testing.T) {
	x := newExactFixture(t)
	var meta pvariant.Metadata
	idOf := func(key string) int {
		for id := range 64 {
			if k, err := meta.KeyAt(uint32(id)); err == nil && k == key {
				return id
			}
		}
		return -1
	}
	for _, v := range x.corpus {
		if meta = v.Metadata(); idOf("id") >= 0 && idOf("user") >= 0 {
			break
		}
	}
	id, user := byte(idOf("id")), byte(idOf("user"))
	if id == 255 || user == 255 || id > user {
		t.Fatalf("no metadata with keys id and user, in that order: ids %d, %d", id, user)
	}
	sorted, err := variant.DecodeMetadata(sortedMeta)
	if err != nil || !sorted.SortedAndUnique() {
		t.Fatalf("sorted metadata: %v", err)
	}
	for dict, m := range map[string]struct {
		meta     pvariant.Metadata
		id, user byte
	}{"unsorted": {meta, id, user}, "sorted": {sorted, 0, 1}} {
		cases, valid := brokenContainers(m.id, m.user)
		for name, b := range cases {
			t.Run(dict+"/"+name, func(t *testing.T) {
				// Each case breaks the rule it names, by arrow-go's verdict.
				if _, err := variant.DecodeValue(m.meta, b); (err == nil) != valid[name] {
					t.Fatalf("%x: arrow-go says %v", b, err)
				}
				x.checkExact(t, m.meta, b)
			})
		}
	}
}

// repeatedMeta is an unsorted metadata whose key "id" appears twice (ids
// 1 and 2) after "user" (id 0): names compare equal through two ids.
var repeatedMeta = []byte{0x01, 3, 0, 4, 6, 8, 'u', 's', 'e', 'r', 'i', 'd', 'i', 'd'}

// TestExactWalkRepeatedKeys: under a dictionary that repeats a key, an
// object naming it through both ids is refused by the walk as by arrow-go,
// and one naming it once is accepted by both.
func TestExactWalkRepeatedKeys(t *testing.T) {
	x := newExactFixture(t)
	meta, err := variant.DecodeMetadata(repeatedMeta)
	if err != nil {
		t.Fatal(err)
	}
	for b, valid := range map[string]bool{
		string([]byte{2, 1, 1, 0, 2, 3 << 2, 7}):                   true,  // {id: 7}
		string([]byte{2, 1, 2, 0, 2, 3 << 2, 7}):                   true,  // {id: 7}, the other id
		string([]byte{2, 2, 1, 2, 0, 2, 4, 3 << 2, 7, 3 << 2, 8}):  false, // {id: 7, id: 8}
		string([]byte{2, 2, 1, 0, 0, 2, 4, 3 << 2, 7, 3 << 2, 8}):  true,  // {id: 7, user: 8}
		string([]byte{2, 2, 0, 1, 0, 2, 4, 3 << 2, 7, 3 << 2, 8}):  false, // "user" before "id"
		string([]byte{2, 2, 1, 0, 0, 2, 4, 3 << 2, 7, 12 << 2, 8}): false, // a truncated timestamp
	} {
		if _, err := variant.DecodeValue(meta, []byte(b)); (err == nil) != valid {
			t.Fatalf("%x: arrow-go says %v", b, err)
		}
		x.checkExact(t, meta, []byte(b))
	}
}

// FuzzExactMatchesArrow mutates the corpus's values: the fast path's walk
// and arrow-go's validation must agree on every one.
func FuzzExactMatchesArrow(f *testing.F) {
	x := newExactFixture(f)
	for i, v := range x.corpus {
		if i%4 == 0 {
			f.Add(uint8(i), v.Bytes())
		}
	}
	cases, _ := brokenContainers(0, 1)
	for _, b := range cases {
		f.Add(uint8(255), b)
	}
	sorted, err := variant.DecodeMetadata(sortedMeta)
	if err != nil {
		f.Fatal(err)
	}
	repeated, err := variant.DecodeMetadata(repeatedMeta)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(254), []byte{2, 2, 1, 2, 0, 2, 4, 3 << 2, 7, 3 << 2, 8})
	// which picks a corpus value's metadata, the sorted one (255) or the
	// one with a repeated key (254).
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		meta := x.corpus[int(which)%len(x.corpus)].Metadata()
		switch which {
		case 255:
			meta = sorted
		case 254:
			meta = repeated
		}
		x.checkExact(t, meta, b)
	})
}
