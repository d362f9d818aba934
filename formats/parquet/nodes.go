package parquet

import (
	"reflect"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
)

// groupNode is a Parquet group whose children keep the order they were given.
// parquet-go's Group is a Go map and sorts its fields by name, which would
// reorder Iceberg columns; the column order of a file is part of what the
// lab promises to reproduce.
type groupNode struct {
	typ    pq.Type
	fields []pq.Field
}

var (
	plainGroupType = pq.Group{}.Type()
	listGroupType  = pq.List(pq.Leaf(pq.BooleanType)).Type()
	mapGroupType   = pq.Map(pq.Leaf(pq.BooleanType), pq.Leaf(pq.BooleanType)).Type()
)

func newGroup(typ pq.Type, fields ...pq.Field) *groupNode {
	return &groupNode{typ: typ, fields: fields}
}

func (g *groupNode) ID() int                     { return 0 }
func (g *groupNode) String() string              { return "group" }
func (g *groupNode) Type() pq.Type               { return g.typ }
func (g *groupNode) Optional() bool              { return false }
func (g *groupNode) Repeated() bool              { return false }
func (g *groupNode) Required() bool              { return true }
func (g *groupNode) Leaf() bool                  { return false }
func (g *groupNode) Fields() []pq.Field          { return g.fields }
func (g *groupNode) Encoding() encoding.Encoding { return nil }
func (g *groupNode) Compression() compress.Codec { return nil }

// GoType is only consulted by parquet-go's reflection paths, which this
// package never uses: rows are built value by value.
func (g *groupNode) GoType() reflect.Type { return reflect.TypeFor[map[string]any]() }

// namedField names a node inside its parent group.
type namedField struct {
	pq.Node
	name string
}

func field(name string, n pq.Node) pq.Field { return &namedField{Node: n, name: name} }

func (f *namedField) Name() string { return f.name }

// Value is part of parquet-go's reflection API, unused here; it returns the
// invalid reflect.Value instead of panicking.
func (f *namedField) Value(reflect.Value) reflect.Value { return reflect.Value{} }

// bareType drops parquet-go's logical annotation from a physical type.
// parquet-go annotates INT32/INT64 as INT(32|64, signed); Iceberg writes them
// unannotated, and so does this package.
type bareType struct{ pq.Type }

func (bareType) LogicalType() *format.LogicalType         { return nil }
func (bareType) ConvertedType() *deprecated.ConvertedType { return nil }

// noConvertedType keeps a logical type but drops the legacy converted type.
// The converted types TIME_MICROS and TIMESTAMP_MICROS mean "adjusted to
// UTC", so writing them for Iceberg's time and timestamp (without zone)
// would tell legacy readers the wrong thing.
type noConvertedType struct{ pq.Type }

func (noConvertedType) ConvertedType() *deprecated.ConvertedType { return nil }

func bareLeaf(t pq.Type) pq.Node { return pq.Leaf(bareType{t}) }
