package registry

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Key is the registry's key: a file format and a row type.
type Key struct {
	Format  FileFormat
	RowType reflect.Type
}

func (k Key) String() string { return fmt.Sprintf("(%s, %s)", k.Format, k.RowType) }

// Registry maps (FileFormat, row type) to one format model.
type Registry struct {
	mu     sync.RWMutex
	models map[Key]Model
}

// New returns an empty registry. Most programs use Default.
func New() *Registry { return &Registry{models: map[Key]Model{}} }

// Default is the process-wide registry that format packages fill from init().
var Default = New()

// Register adds a model under its (format, row type) pair. A second model
// for a pair already taken is refused, naming both models and the pair.
func (r *Registry) Register(m Model) error {
	if m == nil {
		return fmt.Errorf("register: nil format model")
	}
	if m.RowType() == nil {
		return fmt.Errorf("register %s: model has no row type", m.Name())
	}
	key := Key{Format: m.Format(), RowType: m.RowType()}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.models[key]; ok {
		return fmt.Errorf("Cannot register format model %s for format %s and type %s: already registered to %s",
			m.Name(), key.Format, key.RowType, old.Name())
	}
	r.models[key] = m
	return nil
}

// MustRegister registers m in Default and panics on a duplicate; for init().
func MustRegister(m Model) {
	if err := Default.Register(m); err != nil {
		panic(err)
	}
}

// Lookup returns the model for a pair, or the error Iceberg gives for a
// missing one.
func (r *Registry) Lookup(format FileFormat, rowType reflect.Type) (Model, error) {
	r.mu.RLock()
	m, ok := r.models[Key{Format: format, RowType: rowType}]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("Format model is not registered for format %s and type %s", format, rowType)
	}
	return m, nil
}

// Pairs lists the registered keys, sorted by format then row type name.
func (r *Registry) Pairs() []Key {
	r.mu.RLock()
	keys := make([]Key, 0, len(r.models))
	for k := range r.models {
		keys = append(keys, k)
	}
	r.mu.RUnlock()
	slices.SortFunc(keys, func(a, b Key) int {
		if a.Format != b.Format {
			return int(a.Format) - int(b.Format)
		}
		return strings.Compare(a.RowType.String(), b.RowType.String())
	})
	return keys
}

// Models lists the registered models in Pairs order.
func (r *Registry) Models() []Model {
	keys := r.Pairs()
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Model, len(keys))
	for i, k := range keys {
		out[i] = r.models[k]
	}
	return out
}

// ModelFor returns the typed model for (format, D) in reg.
func ModelFor[D any](reg *Registry, format FileFormat) (FormatModel[D], error) {
	rt := reflect.TypeFor[D]()
	m, err := reg.Lookup(format, rt)
	if err != nil {
		return nil, err
	}
	typed, ok := m.(FormatModel[D])
	if !ok {
		return nil, fmt.Errorf("format model %s registered for format %s and type %s does not handle rows of type %s",
			m.Name(), format, rt, rt)
	}
	return typed, nil
}
