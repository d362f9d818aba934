// Package table puts the lab's rows into Apache Iceberg tables and reads them
// back: a table is created in an iceberg-go catalog from a schemaspec schema,
// rows are written through the registry's data writer and committed one
// snapshot per append, and a scan is iceberg-go's planning followed by one
// registry read per planned task, as Spark's BaseRowReader does.
//
// The catalog is any iceberg-go catalog, chosen by properties alone; without
// any, an embedded SQL catalog on SQLite (uptrace/bun's sqliteshim, pure Go
// on linux/amd64) under ./warehouse, so a table needs no server.
package table

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	_ "github.com/apache/iceberg-go/catalog/rest" // registers rest, http, https
	catsql "github.com/apache/iceberg-go/catalog/sql"
	itable "github.com/apache/iceberg-go/table"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// Catalog properties the lab reads itself; every other key goes to
// iceberg-go's catalog.Load unchanged.
const (
	// PropName is the catalog's name (default "lab"); the SQL catalog keys
	// its rows by it, so two names in one database are two catalogs.
	PropName = "name"
	// PropType selects the iceberg-go catalog: sql, rest, glue, hive, ...
	// (only those this program links register; see OpenCatalog).
	PropType = "type"
	// PropWarehouse is the warehouse: for the embedded catalog a local
	// directory (default ./warehouse) or file:// URI.
	PropWarehouse = "warehouse"
	PropURI       = "uri"
)

// DefaultWarehouse is where the embedded catalog lives when no property
// names one.
const DefaultWarehouse = "warehouse"

// embeddedDBName is the SQLite file of the embedded catalog, in the warehouse.
const embeddedDBName = "catalog.db"

// ErrNoCatalog is returned when the embedded catalog is opened to read and
// its database does not exist.
var ErrNoCatalog = errors.New("no catalog")

// ErrNoSuchTable is returned (wrapped, naming the table) for a table the
// catalog does not hold.
var ErrNoSuchTable = catalog.ErrNoSuchTable

// noSuchTable names the table and the catalog; it is ErrNoSuchTable.
type noSuchTable struct{ table, catalog string }

func (e *noSuchTable) Error() string {
	return fmt.Sprintf("table %s does not exist in %s", e.table, e.catalog)
}
func (e *noSuchTable) Unwrap() error { return ErrNoSuchTable }

// Catalog is an opened iceberg-go catalog.
type Catalog struct {
	cat catalog.Catalog
	// desc says which catalog this is, for errors: "embedded SQL catalog
	// warehouse/catalog.db" or "rest catalog http://...".
	desc string
	// embedded is the warehouse directory of the embedded catalog; "" for others.
	embedded string
}

// OpenOption changes how OpenCatalog opens a catalog.
type OpenOption func(*openConfig)

type openConfig struct{ create bool }

// CreateIfMissing lets OpenCatalog create the embedded catalog's warehouse
// and database. Without it a missing database is ErrNoCatalog: a command
// that only reads should not leave a warehouse behind in whatever directory
// it ran in.
func CreateIfMissing() OpenOption { return func(c *openConfig) { c.create = true } }

// OpenCatalog opens the catalog props describe.
//
// With no "type" and no "uri", or with type=sql and no "uri", it is the
// embedded SQL catalog on SQLite: database <warehouse>/catalog.db, warehouse
// "warehouse" (a local directory, default ./warehouse). Any other
// properties go to iceberg-go's catalog.Load, which picks the catalog by
// "type" (or by the scheme of "uri": http and https are REST), so
//
//	type=rest,uri=http://localhost:8181,warehouse=s3://bucket/wh
//
// opens a REST catalog. This program links the sql and rest catalogs.
// catalog.Load also reads ~/.iceberg-go.yaml (or $GOICEBERG_HOME) for a
// catalog of the given name, under the properties given here.
func OpenCatalog(ctx context.Context, props map[string]string, opts ...OpenOption) (*Catalog, error) {
	var cfg openConfig
	for _, o := range opts {
		o(&cfg)
	}
	p := iceberg.Properties(maps.Clone(props))
	if p == nil {
		p = iceberg.Properties{}
	}
	name := p.Get(PropName, "lab")
	delete(p, PropName)
	typ := strings.ToLower(p.Get(PropType, ""))
	if (typ == "" || typ == "sql") && p.Get(PropURI, "") == "" {
		return openEmbedded(ctx, name, p, cfg)
	}
	desc := describeCatalog(typ, p)
	if typ != "" && !slices.Contains(catalog.GetRegisteredCatalogs(), typ) {
		known := catalog.GetRegisteredCatalogs()
		slices.Sort(known)
		return nil, fmt.Errorf("%s: %w (this program knows %s)", desc, catalog.ErrCatalogNotFound, strings.Join(known, ", "))
	}
	cat, err := catalog.Load(ctx, name, p)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", desc, err)
	}
	return &Catalog{cat: cat, desc: desc}, nil
}

func describeCatalog(typ string, p iceberg.Properties) string {
	if typ == "" {
		typ = "catalog"
	} else {
		typ += " catalog"
	}
	if uri := p.Get(PropURI, ""); uri != "" {
		return typ + " " + uri
	}
	return typ
}

// openEmbedded opens the SQL catalog on SQLite in a local warehouse.
func openEmbedded(ctx context.Context, name string, p iceberg.Properties, cfg openConfig) (*Catalog, error) {
	wh := p.Get(PropWarehouse, DefaultWarehouse)
	dir := strings.TrimPrefix(wh, "file://")
	if strings.Contains(dir, "://") {
		return nil, fmt.Errorf("embedded SQL catalog: warehouse %q must be a local directory or file:// URI; for object storage use another catalog (type=rest, ...)", wh)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("embedded SQL catalog: warehouse %q: %w", wh, err)
	}
	db := filepath.Join(dir, embeddedDBName)
	desc := "embedded SQL catalog " + db
	if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
		if !cfg.create {
			return nil, fmt.Errorf("%w: %s does not exist (lab table create makes it; --catalog names another catalog)", ErrNoCatalog, db)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("%s: %w", desc, err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", desc, err)
	}
	p[PropType] = "sql"
	// Commits wait for a concurrent writer (another lab process) instead of
	// failing with SQLITE_BUSY; WAL with synchronous=NORMAL syncs once per
	// checkpoint rather than per commit: a crash can lose the last commits,
	// never corrupt the catalog, and each one points at complete metadata.
	p[PropURI] = "file:" + db + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	p[PropWarehouse] = "file://" + dir
	if p.Get(catsql.DriverKey, "") == "" {
		p[catsql.DriverKey] = sqliteshim.ShimName
	}
	if p.Get(catsql.DialectKey, "") == "" {
		p[catsql.DialectKey] = string(catsql.SQLite)
	}
	cat, err := catalog.Load(ctx, name, p)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", desc, err)
	}
	return &Catalog{cat: cat, desc: desc, embedded: dir}, nil
}

// Close releases the catalog's resources (the SQLite handle, HTTP clients).
func (c *Catalog) Close() error {
	if cl, ok := c.cat.(catalog.Closer); ok {
		return cl.Close()
	}
	return nil
}

// String says which catalog this is.
func (c *Catalog) String() string { return c.desc }

// Iceberg is the underlying iceberg-go catalog.
func (c *Catalog) Iceberg() catalog.Catalog { return c.cat }

// ParseIdentifier splits "NS.NAME" (or "A.B.NAME", a nested namespace) into
// an iceberg-go identifier; a name without a namespace is an error.
func ParseIdentifier(s string) (itable.Identifier, error) {
	parts := strings.Split(strings.TrimSpace(s), ".")
	if len(parts) < 2 {
		return nil, fmt.Errorf("table %q: want NAMESPACE.NAME, e.g. lab.events", s)
	}
	for _, part := range parts {
		if part == "" {
			return nil, fmt.Errorf("table %q: empty name part", s)
		}
	}
	return itable.Identifier(parts), nil
}

// ParseNamespace splits "A" or "A.B" into a namespace identifier.
func ParseNamespace(s string) (itable.Identifier, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ".")
	for _, part := range parts {
		if part == "" {
			return nil, fmt.Errorf("namespace %q: empty name part", s)
		}
	}
	return itable.Identifier(parts), nil
}

func identString(id itable.Identifier) string { return strings.Join(id, ".") }

// Load opens a table.
func (c *Catalog) Load(ctx context.Context, ident itable.Identifier) (*Table, error) {
	t, err := c.cat.LoadTable(ctx, ident)
	if err != nil {
		if errors.Is(err, catalog.ErrNoSuchTable) || errors.Is(err, catalog.ErrNoSuchNamespace) {
			return nil, &noSuchTable{identString(ident), c.desc}
		}
		return nil, fmt.Errorf("table %s: load from %s: %w", identString(ident), c.desc, err)
	}
	return &Table{cat: c, tbl: t, ident: ident}, nil
}

// List returns the tables of a namespace, or of every namespace when ns is
// empty, sorted.
func (c *Catalog) List(ctx context.Context, ns itable.Identifier) ([]itable.Identifier, error) {
	namespaces := []itable.Identifier{ns}
	if len(ns) == 0 {
		var err error
		if namespaces, err = c.allNamespaces(ctx, nil); err != nil {
			return nil, err
		}
	}
	var out []itable.Identifier
	for _, n := range namespaces {
		for id, err := range c.cat.ListTables(ctx, n) {
			if err != nil {
				if errors.Is(err, catalog.ErrNoSuchNamespace) {
					return nil, fmt.Errorf("namespace %s: %w in %s", identString(n), catalog.ErrNoSuchNamespace, c.desc)
				}
				return nil, fmt.Errorf("list tables of %s in %s: %w", identString(n), c.desc, err)
			}
			out = append(out, id)
		}
	}
	slices.SortFunc(out, func(a, b itable.Identifier) int { return strings.Compare(identString(a), identString(b)) })
	return out, nil
}

// allNamespaces walks the namespace tree under parent.
func (c *Catalog) allNamespaces(ctx context.Context, parent itable.Identifier) ([]itable.Identifier, error) {
	children, err := c.cat.ListNamespaces(ctx, parent)
	if err != nil {
		return nil, fmt.Errorf("list namespaces in %s: %w", c.desc, err)
	}
	var out []itable.Identifier
	for _, ns := range children {
		out = append(out, ns)
		// Catalogs differ in whether a listing is recursive; only a child
		// strictly below ns is walked again.
		if len(ns) > len(parent) {
			sub, err := c.allNamespaces(ctx, ns)
			if err != nil {
				return nil, err
			}
			for _, s := range sub {
				if !slices.ContainsFunc(out, func(o itable.Identifier) bool { return slices.Equal(o, s) }) {
					out = append(out, s)
				}
			}
		}
	}
	return out, nil
}

// Drop removes a table from the catalog. With purge its files are deleted
// too, where the catalog can (catalog.PurgeableTable); otherwise they stay.
func (c *Catalog) Drop(ctx context.Context, ident itable.Identifier, purge bool) error {
	var err error
	if purge {
		p, ok := c.cat.(catalog.PurgeableTable)
		if !ok {
			return fmt.Errorf("table %s: %s cannot purge files; drop without purge and delete them yourself", identString(ident), c.desc)
		}
		err = p.PurgeTable(ctx, ident)
	} else {
		err = c.cat.DropTable(ctx, ident)
	}
	if err != nil {
		if errors.Is(err, catalog.ErrNoSuchTable) || errors.Is(err, catalog.ErrNoSuchNamespace) {
			return &noSuchTable{identString(ident), c.desc}
		}
		return fmt.Errorf("drop table %s in %s: %w", identString(ident), c.desc, err)
	}
	return nil
}

// ensureNamespace creates ns (and its parents) when the catalog lacks it.
func (c *Catalog) ensureNamespace(ctx context.Context, ns itable.Identifier) error {
	for i := 1; i <= len(ns); i++ {
		part := ns[:i]
		ok, err := c.cat.CheckNamespaceExists(ctx, part)
		if err != nil {
			return fmt.Errorf("namespace %s in %s: %w", identString(part), c.desc, err)
		}
		if ok {
			continue
		}
		if err := c.cat.CreateNamespace(ctx, part, nil); err != nil && !errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
			return fmt.Errorf("create namespace %s in %s: %w", identString(part), c.desc, err)
		}
	}
	return nil
}
