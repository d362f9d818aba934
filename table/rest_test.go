package table

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	itable "github.com/apache/iceberg-go/table"

	"github.com/coltype-lab/lab/table/internal/restserver"
)

// openRESTCatalog starts the REST test server over an embedded SQL catalog
// in a temporary warehouse, and opens a catalog through iceberg-go's REST
// client against it, as lab table --catalog type=rest,uri=... would. It
// returns the REST catalog and the embedded one behind the server.
func openRESTCatalog(t testing.TB) (rc, backing *Catalog) {
	rc, backing, _ = openRESTCatalogCounting(t)
	return rc, backing
}

// openRESTCatalogCounting is openRESTCatalog that also counts the server's
// 409 answers to commits.
func openRESTCatalogCounting(t testing.TB) (rc, backing *Catalog, conflicts *atomic.Int64) {
	t.Helper()
	backing, wh := openTestCatalog(t)
	rc, conflicts = openRESTOver(t, backing.Iceberg(), wh)
	return rc, backing, conflicts
}

// openRESTOver serves cat, whose warehouse is wh, and opens it through
// the REST client; conflicts counts the server's 409 answers to commits.
func openRESTOver(t testing.TB, cat catalog.Catalog, wh string) (rc *Catalog, conflicts *atomic.Int64) {
	t.Helper()
	conflicts = new(atomic.Int64)
	h := restserver.New(cat, restserver.Warehouse("file://"+wh))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		if r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/tables/") && sw.status == http.StatusConflict {
			conflicts.Add(1)
		}
	}))
	t.Cleanup(srv.Close)
	rc, err := OpenCatalog(context.Background(), map[string]string{PropType: "rest", PropURI: srv.URL, PropWarehouse: "file://" + wh})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close() })
	if _, ok := rc.Iceberg().(*rest.Catalog); !ok {
		t.Fatalf("type=rest opened a %T", rc.Iceberg())
	}
	return rc, conflicts
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func mustIdent(t testing.TB, s string) itable.Identifier {
	t.Helper()
	id, err := ParseIdentifier(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func identStrings(ids []itable.Identifier) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = identString(id)
	}
	return out
}

// TestRESTRoundTrip: create, append, scan, describe, files, list, rename and
// drop through iceberg-go's REST client and the test server.
func TestRESTRoundTrip(t *testing.T) {
	ctx := context.Background()
	rc, backing := openRESTCatalog(t)
	spec := mustSpec(t, multimodal)
	tbl := createTable(t, rc, "lab.mm", CreateOptions{Spec: spec, Partition: "region"})
	if !strings.HasPrefix(rc.String(), "rest catalog http://127.0.0.1:") {
		t.Errorf("catalog %q", rc.String())
	}
	if v := tbl.FormatVersion(); v != 3 {
		t.Fatalf("format version %d, want 3", v)
	}
	props := tbl.Iceberg().Properties()
	for k, want := range map[string]string{
		PropFileColumns: "img", PropVectorColumns: "emb:vector<float32,4>",
		"write.metadata.metrics.column.emb": "counts",
	} {
		if props[k] != want {
			t.Errorf("property %s = %q, want %q", k, props[k], want)
		}
	}
	// The create request carried schema and partition spec whole: the
	// table is what the embedded catalog makes of the same options.
	local := createTable(t, backing, "lab.local", CreateOptions{Spec: spec, Partition: "region"})
	if !tbl.Iceberg().Schema().Equals(local.Iceberg().Schema()) {
		t.Errorf("schema through REST:\n%s\nembedded:\n%s", tbl.Iceberg().Schema(), local.Iceberg().Schema())
	}
	if got, want := tbl.Iceberg().Spec().String(), local.Iceberg().Spec().String(); got != want {
		t.Errorf("partition spec through REST %s, embedded %s", got, want)
	}
	if !strings.HasSuffix(tbl.Location(), "/lab.db/mm") || !strings.HasPrefix(tbl.Location(), "file://") {
		t.Errorf("location %s", tbl.Location())
	}

	c1 := appendJSON(t, tbl, multimodalRows[:2]...)
	c2 := appendJSON(t, tbl, multimodalRows[2])
	if c1.SnapshotID == 0 || c2.SnapshotID == 0 || c1.SnapshotID == c2.SnapshotID || c1.Records != 2 || c2.Records != 1 {
		t.Fatalf("commits %+v, %+v", c1, c2)
	}
	got, tasks := scanJSON(t, tbl, ScanOptions{})
	if !slices.Equal(got, multimodalRows) {
		t.Errorf("scan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(multimodalRows, "\n"))
	}
	if tasks != 3 { // eu and us in the first append, eu in the second
		t.Errorf("%d tasks, want 3", tasks)
	}
	got, _ = scanJSON(t, tbl, ScanOptions{SnapshotID: c1.SnapshotID})
	if !slices.Equal(got, multimodalRows[:2]) {
		t.Errorf("snapshot %d:\n%s", c1.SnapshotID, strings.Join(got, "\n"))
	}

	// The commits went through the server into the embedded catalog.
	behind, err := backing.Load(ctx, mustIdent(t, "lab.mm"))
	if err != nil {
		t.Fatal(err)
	}
	if behind.Iceberg().MetadataLocation() != tbl.Iceberg().MetadataLocation() {
		t.Errorf("embedded catalog at %s, REST client at %s", behind.Iceberg().MetadataLocation(), tbl.Iceberg().MetadataLocation())
	}
	if s := behind.Iceberg().CurrentSnapshot(); s == nil || s.SnapshotID != c2.SnapshotID {
		t.Errorf("embedded catalog's current snapshot %v, want %d", s, c2.SnapshotID)
	}
	// A fresh load through REST sees the same.
	reloaded, err := rc.Load(ctx, mustIdent(t, "lab.mm"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := scanJSON(t, reloaded, ScanOptions{}); !slices.Equal(got, multimodalRows) {
		t.Errorf("scan after reload: %v", got)
	}

	d, err := reloaded.Describe()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Snapshots) != 2 || d.NextRowID != 3 || d.FormatVersion != 3 || d.CurrentSnapshotID == nil || *d.CurrentSnapshotID != c2.SnapshotID {
		t.Errorf("describe: %d snapshots, next row id %d, v%d, current %v", len(d.Snapshots), d.NextRowID, d.FormatVersion, d.CurrentSnapshotID)
	}
	if !slices.Equal(d.Columns["file"], []string{"img"}) || !slices.Equal(d.Columns["vector"], []string{"emb:vector<float32,4>"}) || len(d.Columns) != 2 {
		t.Errorf("describe: columns %v, want file img and vector emb:vector<float32,4>", d.Columns)
	}
	files, err := reloaded.Files(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var records int64
	rowIDs := map[int64]bool{}
	for _, f := range files {
		records += f.Records
		if f.FirstRowID == nil {
			t.Errorf("file %s has no first_row_id", f.Path)
			continue
		}
		for r := *f.FirstRowID; r < *f.FirstRowID+f.Records; r++ {
			if rowIDs[r] {
				t.Errorf("row id %d is in two files", r)
			}
			rowIDs[r] = true
		}
		if _, err := os.Stat(strings.TrimPrefix(f.Path, "file://")); err != nil {
			t.Errorf("file %s: %v", f.Path, err)
		}
	}
	if len(files) != 3 || records != 3 || len(rowIDs) != 3 {
		t.Errorf("%d files, %d records, %d row ids; want 3 of each", len(files), records, len(rowIDs))
	}

	// Nested namespaces travel as levels joined by 0x1F.
	nested := createTable(t, rc, "a.b.t", CreateOptions{Spec: mustSpec(t, "id:long!")})
	appendJSON(t, nested, `{"id":7}`)
	if got, _ := scanJSON(t, nested, ScanOptions{}); !slices.Equal(got, []string{`{"id":7}`}) {
		t.Errorf("nested table: %v", got)
	}
	ids, err := rc.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.b.t", "lab.local", "lab.mm"}; !slices.Equal(identStrings(ids), want) {
		t.Errorf("list: %v, want %v", identStrings(ids), want)
	}
	ids, err = rc.List(ctx, itable.Identifier{"lab"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"lab.local", "lab.mm"}; !slices.Equal(identStrings(ids), want) {
		t.Errorf("list lab: %v, want %v", identStrings(ids), want)
	}
	// One page at a time: the server's page tokens.
	pctx := rc.Iceberg().(*rest.Catalog).SetPageSize(ctx, 1)
	ids, err = rc.List(pctx, itable.Identifier{"lab"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"lab.local", "lab.mm"}; !slices.Equal(identStrings(ids), want) {
		t.Errorf("list lab by pages of 1: %v, want %v", identStrings(ids), want)
	}
	nss, err := rc.Iceberg().ListNamespaces(pctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := identStrings(nss); !slices.Equal(got, []string{"a", "lab"}) {
		t.Errorf("top-level namespaces %v, want [a lab]", got)
	}
	nss, err = rc.Iceberg().ListNamespaces(ctx, itable.Identifier{"a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := identStrings(nss); !slices.Equal(got, []string{"a.b"}) {
		t.Errorf("namespaces under a: %v, want [a.b]", got)
	}

	// Rename, then drop: without purge the files stay, with purge they go.
	renamed, err := rc.Iceberg().RenameTable(ctx, mustIdent(t, "lab.local"), mustIdent(t, "a.local"))
	if err != nil {
		t.Fatal(err)
	}
	if identString(renamed.Identifier()) != "a.local" || renamed.Location() != local.Location() {
		t.Errorf("renamed to %v at %s", renamed.Identifier(), renamed.Location())
	}
	if err := rc.Drop(ctx, mustIdent(t, "a.local"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(strings.TrimPrefix(local.Iceberg().MetadataLocation(), "file://")); err != nil {
		t.Errorf("drop without purge removed the metadata: %v", err)
	}
	if err := rc.Drop(ctx, mustIdent(t, "lab.mm"), true); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, err := os.Stat(strings.TrimPrefix(f.Path, "file://")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("purged table's file %s: %v", f.Path, err)
		}
	}
	for _, name := range []string{"lab.mm", "a.local"} {
		if _, err := rc.Load(ctx, mustIdent(t, name)); !errors.Is(err, ErrNoSuchTable) {
			t.Errorf("load %s after drop: %v", name, err)
		}
	}
	ids, err = rc.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.b.t"}; !slices.Equal(identStrings(ids), want) {
		t.Errorf("list after drops: %v, want %v", identStrings(ids), want)
	}
}

// TestRESTNamespaces: namespace properties, existence and the errors the
// client turns back into iceberg-go's.
func TestRESTNamespaces(t *testing.T) {
	ctx := context.Background()
	rc, _ := openRESTCatalog(t)
	cat := rc.Iceberg()
	ns := itable.Identifier{"n1"}
	if ok, err := cat.CheckNamespaceExists(ctx, ns); err != nil || ok {
		t.Fatalf("exists before create: %v, %v", ok, err)
	}
	if err := cat.CreateNamespace(ctx, ns, map[string]string{"owner": "lab", "x": "1"}); err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(ctx, ns, nil); !errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
		t.Errorf("create twice: %v", err)
	}
	if ok, err := cat.CheckNamespaceExists(ctx, ns); err != nil || !ok {
		t.Errorf("exists after create: %v, %v", ok, err)
	}
	sum, err := cat.UpdateNamespaceProperties(ctx, ns, []string{"x", "nope"}, map[string]string{"owner": "ml"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sum.Updated, []string{"owner"}) || !slices.Equal(sum.Removed, []string{"x"}) || !slices.Equal(sum.Missing, []string{"nope"}) {
		t.Errorf("update summary %+v", sum)
	}
	props, err := cat.LoadNamespaceProperties(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if props["owner"] != "ml" || props["x"] != "" {
		t.Errorf("properties %v", props)
	}
	if _, err := cat.LoadNamespaceProperties(ctx, itable.Identifier{"nope"}); !errors.Is(err, catalog.ErrNoSuchNamespace) {
		t.Errorf("load missing namespace: %v", err)
	}
	createTable(t, rc, "n1.t", CreateOptions{Spec: mustSpec(t, "id:long!")})
	if err := cat.DropNamespace(ctx, ns); !errors.Is(err, catalog.ErrNamespaceNotEmpty) {
		t.Errorf("drop non-empty namespace: %v", err)
	}
	if err := rc.Drop(ctx, mustIdent(t, "n1.t"), false); err != nil {
		t.Fatal(err)
	}
	if err := cat.DropNamespace(ctx, ns); err != nil {
		t.Errorf("drop empty namespace: %v", err)
	}
	if err := cat.DropNamespace(ctx, ns); !errors.Is(err, catalog.ErrNoSuchNamespace) {
		t.Errorf("drop missing namespace: %v", err)
	}
	if _, err := rc.List(ctx, itable.Identifier{"n1"}); !errors.Is(err, catalog.ErrNoSuchNamespace) {
		t.Errorf("list tables of a dropped namespace: %v", err)
	}
}

// TestRESTErrors: the bad-input errors of TestErrors, through REST.
func TestRESTErrors(t *testing.T) {
	ctx := context.Background()
	rc, _, conflicts := openRESTCatalogCounting(t)
	createTable(t, rc, "lab.e", CreateOptions{Spec: mustSpec(t, "id:long!")})

	t.Run("table not found", func(t *testing.T) {
		for _, name := range []string{"lab.nope", "nons.nope"} {
			id := mustIdent(t, name)
			_, err := rc.Load(ctx, id)
			if !errors.Is(err, ErrNoSuchTable) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "rest catalog") {
				t.Errorf("load %s: %v", name, err)
			}
			if err := rc.Drop(ctx, id, false); !errors.Is(err, ErrNoSuchTable) || !strings.Contains(err.Error(), name) {
				t.Errorf("drop %s: %v", name, err)
			}
			if err := rc.Drop(ctx, id, true); !errors.Is(err, ErrNoSuchTable) {
				t.Errorf("purge %s: %v", name, err)
			}
			if ok, err := rc.Iceberg().CheckTableExists(ctx, id); ok || err != nil {
				t.Errorf("exists %s: %v, %v", name, ok, err)
			}
		}
		if ok, err := rc.Iceberg().CheckTableExists(ctx, mustIdent(t, "lab.e")); !ok || err != nil {
			t.Errorf("exists lab.e: %v, %v", ok, err)
		}
	})

	t.Run("already exists", func(t *testing.T) {
		_, err := rc.Create(ctx, mustIdent(t, "lab.e"), CreateOptions{Spec: mustSpec(t, "id:long!")})
		if err == nil || !strings.Contains(err.Error(), "create table lab.e: it already exists in rest catalog") {
			t.Errorf("create an existing table: %v", err)
		}
		_, err = rc.Iceberg().CreateTable(ctx, mustIdent(t, "lab.e"), mustSpec(t, "id:long!").Schema)
		if !errors.Is(err, catalog.ErrTableAlreadyExists) {
			t.Errorf("iceberg-go create of an existing table: %v", err)
		}
		_, err = rc.Iceberg().CreateTable(ctx, mustIdent(t, "nons.x"), mustSpec(t, "id:long!").Schema)
		if !errors.Is(err, catalog.ErrNoSuchNamespace) {
			t.Errorf("create in a missing namespace: %v", err)
		}
	})

	t.Run("variant on v2", func(t *testing.T) {
		_, err := rc.Create(ctx, mustIdent(t, "lab.v2"), CreateOptions{Spec: mustSpec(t, multimodal), Properties: map[string]string{PropFormatVersion: "2"}})
		if err == nil || !strings.Contains(err.Error(), `column "doc" is variant, which needs format-version 3`) {
			t.Errorf("error %v", err)
		}
	})

	t.Run("stale commit", func(t *testing.T) {
		// Two handles loaded before either appends, as two processes would.
		h1, err := rc.Load(ctx, mustIdent(t, "lab.e"))
		if err != nil {
			t.Fatal(err)
		}
		h2, err := rc.Load(ctx, mustIdent(t, "lab.e"))
		if err != nil {
			t.Fatal(err)
		}
		base := h2.Iceberg().CurrentSnapshot()

		// Without the lab's retry, the stale commit is a 409 the client
		// reads as table.ErrCommitFailed, and nothing changes.
		c1 := appendJSON(t, h1, `{"id":1}`, `{"id":2}`)
		var baseID *int64
		if base != nil {
			baseID = &base.SnapshotID
		}
		_, _, err = rc.Iceberg().CommitTable(ctx, mustIdent(t, "lab.e"),
			[]itable.Requirement{itable.AssertRefSnapshotID("main", baseID)},
			[]itable.Update{itable.NewSetPropertiesUpdate(map[string]string{"stale": "yes"})})
		if !errors.Is(err, itable.ErrCommitFailed) || !errors.Is(err, rest.ErrCommitFailed) || !strings.Contains(err.Error(), "CommitFailedException") {
			t.Errorf("stale requirement: %v, want a CommitFailedException", err)
		}
		// The same through the table: iceberg-go's transaction on the
		// stale handle, which iceberg-go does not retry by default.
		tx := h2.Iceberg().NewTransaction()
		if err := tx.SetProperties(map[string]string{"stale": "yes"}); err != nil {
			t.Fatal(err)
		}
		dfs, err := h2.WriteRows(ctx, jsonRows(t, h2, `{"id":99}`))
		if err != nil {
			t.Fatal(err)
		}
		md := h2.Iceberg().Metadata()
		if dfs[0], err = withFirstRowID(dfs[0], md, md.NextRowID()); err != nil {
			t.Fatal(err)
		}
		if err := tx.AddDataFiles(ctx, dfs, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Commit(ctx); !errors.Is(err, itable.ErrCommitFailed) {
			t.Errorf("stale transaction: %v, want ErrCommitFailed", err)
		}
		for _, df := range dfs {
			_ = os.Remove(strings.TrimPrefix(df.FilePath(), "file://"))
		}
		now, err := rc.Load(ctx, mustIdent(t, "lab.e"))
		if err != nil {
			t.Fatal(err)
		}
		if now.Iceberg().Properties()["stale"] != "" {
			t.Error("a stale commit set a property")
		}
		if s := now.Iceberg().CurrentSnapshot(); s == nil || s.SnapshotID != c1.SnapshotID {
			t.Errorf("current snapshot %v after stale commits, want %d", s, c1.SnapshotID)
		}

		// With it, the stale append retries on the refreshed table and lands.
		before := conflicts.Load()
		c2, err := h2.AppendRows(ctx, jsonRows(t, h2, `{"id":3}`, `{"id":4}`))
		if err != nil {
			t.Fatalf("stale append: %v", err)
		}
		if n := conflicts.Load() - before; n != 1 {
			t.Errorf("the stale append met %d conflicts, want 1 (then a retry)", n)
		}
		if s := h2.Iceberg().CurrentSnapshot(); s == nil || s.ParentSnapshotID == nil || *s.ParentSnapshotID != c1.SnapshotID {
			t.Errorf("second append's snapshot %v is not on top of the first's, %d", s, c1.SnapshotID)
		}
		if err := h1.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		got, _ := scanJSON(t, h1, ScanOptions{})
		if want := []string{`{"id":1}`, `{"id":2}`, `{"id":3}`, `{"id":4}`}; !slices.Equal(got, want) {
			t.Errorf("after both appends: %v, want %v", got, want)
		}
		if *c2.Files[0].FirstRowID() != 2 {
			t.Errorf("retried append's first_row_id %d, want 2 (after the first append's 2 rows)", *c2.Files[0].FirstRowID())
		}
		if next := h1.Iceberg().Metadata().NextRowID(); next != 4 {
			t.Errorf("next-row-id %d, want 4", next)
		}
	})

	t.Run("concurrent appends", func(t *testing.T) {
		createTable(t, rc, "lab.race", CreateOptions{Spec: mustSpec(t, "id:long!")})
		const writers = 3
		errs := make(chan error, writers)
		for w := range writers {
			go func() {
				h, err := rc.Load(ctx, mustIdent(t, "lab.race"))
				if err == nil {
					row := `{"id":` + strconv.Itoa(w) + `}`
					_, err = h.AppendRows(ctx, jsonRows(t, h, row))
				}
				errs <- err
			}()
		}
		for range writers {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		h, err := rc.Load(ctx, mustIdent(t, "lab.race"))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := scanJSON(t, h, ScanOptions{}); !slices.Equal(got, []string{`{"id":0}`, `{"id":1}`, `{"id":2}`}) {
			t.Errorf("after %d racing appends: %v", writers, got)
		}
	})

	t.Run("stage create", func(t *testing.T) {
		// iceberg-go stages a create when given updates to commit with it.
		id := mustIdent(t, "lab.staged")
		created, err := rc.Iceberg().CreateTable(ctx, id, mustSpec(t, "id:long!,s:string").Schema,
			catalog.WithProperties(map[string]string{PropFormatVersion: "3"}),
			catalog.WithStagedUpdates(itable.NewSetPropertiesUpdate(map[string]string{"staged": "yes"})))
		if err != nil {
			t.Fatal(err)
		}
		h, err := rc.Load(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if h.Iceberg().Properties()["staged"] != "yes" || h.FormatVersion() != 3 || h.Iceberg().MetadataLocation() != created.MetadataLocation() {
			t.Errorf("staged table: properties %v, v%d, at %s (created at %s)", h.Iceberg().Properties(), h.FormatVersion(), h.Iceberg().MetadataLocation(), created.MetadataLocation())
		}
		if !strings.HasSuffix(h.Location(), "/lab.db/staged") {
			t.Errorf("staged table at %s", h.Location())
		}
		appendJSON(t, h, `{"id":1,"s":"x"}`)
		if got, _ := scanJSON(t, h, ScanOptions{}); !slices.Equal(got, []string{`{"id":1,"s":"x"}`}) {
			t.Errorf("staged table rows %v", got)
		}
		_, err = rc.Iceberg().CreateTable(ctx, id, mustSpec(t, "id:long!").Schema,
			catalog.WithStagedUpdates(itable.NewSetPropertiesUpdate(map[string]string{"staged": "again"})))
		if !errors.Is(err, catalog.ErrTableAlreadyExists) {
			t.Errorf("stage-create of an existing table: %v", err)
		}
	})
}

// racingCatalog runs race before the first CommitTable after it is set, as
// a writer of the backing catalog that is not the REST server would.
type racingCatalog struct {
	catalog.Catalog
	race atomic.Pointer[func()]
}

func (c *racingCatalog) CommitTable(ctx context.Context, id itable.Identifier, reqs []itable.Requirement, upds []itable.Update) (itable.Metadata, string, error) {
	if f := c.race.Swap(nil); f != nil {
		(*f)()
	}
	return c.Catalog.CommitTable(ctx, id, reqs, upds)
}

// TestRESTExternalWriter: a commit that loses, behind the server's back, to
// a writer of the backing catalog is a 409 too, though the SQL catalog's
// error for the failed requirement does not say so; the lab's retry lands it.
func TestRESTExternalWriter(t *testing.T) {
	ctx := context.Background()
	backing, wh := openTestCatalog(t)
	racing := &racingCatalog{Catalog: backing.Iceberg()}
	rc, conflicts := openRESTOver(t, racing, wh)
	tbl := createTable(t, rc, "lab.x", CreateOptions{Spec: mustSpec(t, "id:long!")})
	appendJSON(t, tbl, `{"id":1}`)

	var raceErr error
	race := func() {
		other, err := backing.Load(ctx, mustIdent(t, "lab.x"))
		if err == nil {
			_, err = other.AppendRows(ctx, jsonRows(t, other, `{"id":2}`))
		}
		raceErr = err
	}
	racing.race.Store(&race)
	if _, err := tbl.AppendRows(ctx, jsonRows(t, tbl, `{"id":3}`)); err != nil {
		t.Fatal(err)
	}
	if raceErr != nil {
		t.Fatalf("the other writer: %v", raceErr)
	}
	if racing.race.Load() != nil {
		t.Fatal("the other writer never ran")
	}
	if n := conflicts.Load(); n != 1 {
		t.Errorf("%d conflicts answered, want 1", n)
	}
	if got, _ := scanJSON(t, tbl, ScanOptions{}); !slices.Equal(got, []string{`{"id":1}`, `{"id":2}`, `{"id":3}`}) {
		t.Errorf("rows %v", got)
	}
}

// restError is the REST error model.
type restError struct {
	Error *struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    int    `json:"code"`
	} `json:"error"`
}

// TestRESTMalformed sends bad requests straight to the handler: each is a
// JSON error of the REST error model with the status it names, never a
// panic or a 500.
func TestRESTMalformed(t *testing.T) {
	backing, _ := openTestCatalog(t)
	createTable(t, backing, "lab.t", CreateOptions{Spec: mustSpec(t, "id:long!")})
	h := restserver.New(backing.Iceberg(), restserver.MaxBodyBytes(1<<10))
	const tbl = "/v1/namespaces/lab/tables/t"
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		typ, msg                 string
	}{
		{"truncated JSON", "POST", tbl, `{"updates":[`, 400, "BadRequestException", "malformed request body"},
		{"empty body", "POST", tbl, ``, 400, "BadRequestException", "empty"},
		{"two JSON values", "POST", tbl, `{}{}`, 400, "BadRequestException", "more than one JSON value"},
		{"not an object", "POST", tbl, `[1,2]`, 400, "BadRequestException", ""},
		{"unknown update", "POST", tbl, `{"updates":[{"action":"frobnicate"}]}`, 400, "BadRequestException", "frobnicate"},
		{"update without its field", "POST", tbl, `{"updates":[{"action":"add-snapshot"}]}`, 400, "BadRequestException", "snapshot"},
		{"update of the wrong shape", "POST", tbl, `{"updates":[{"action":"set-properties","updates":[1]}]}`, 400, "BadRequestException", ""},
		{"unknown requirement", "POST", tbl, `{"requirements":[{"type":"assert-nothing"}]}`, 400, "BadRequestException", "assert-nothing"},
		{"requirement without its field", "POST", tbl, `{"requirements":[{"type":"assert-table-uuid"}]}`, 400, "BadRequestException", "uuid"},
		{"identifier of another table", "POST", tbl, `{"identifier":{"namespace":["lab"],"name":"u"},"updates":[]}`, 400, "BadRequestException", "lab.u"},
		{"update the table rejects", "POST", tbl, `{"updates":[{"action":"set-current-schema","schema-id":42}]}`, 400, "BadRequestException", "42"},
		{"ref to a missing snapshot", "POST", tbl, `{"updates":[{"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":12345}]}`, 400, "BadRequestException", "12345"},
		// The SQL catalog's own error for this one wraps no sentinel: only
		// the server's dry run tells it from a commit of unknown state (500).
		{"snapshot the table rejects", "POST", tbl, `{"updates":[{"action":"add-snapshot","snapshot":{"snapshot-id":5,"sequence-number":1,"timestamp-ms":1,"manifest-list":"x","summary":{"operation":"append"}}}]}`, 400, "BadRequestException", "timestamp"},
		{"failed requirement", "POST", tbl, `{"requirements":[{"type":"assert-current-schema-id","current-schema-id":42}]}`, 409, "CommitFailedException", "42"},
		{"assert-create of an existing table", "POST", tbl, `{"requirements":[{"type":"assert-create"}]}`, 409, "CommitFailedException", "already exists"},
		{"commit to a missing table", "POST", "/v1/namespaces/lab/tables/nope", `{"updates":[]}`, 404, "NoSuchTableException", "nope"},
		{"body over the limit", "POST", tbl, `{"updates":[{"action":"set-properties","updates":{"k":"` + strings.Repeat("x", 2<<10) + `"}}]}`, 413, "BadRequestException", "larger than 1024 bytes"},
		{"create without schema", "POST", "/v1/namespaces/lab/tables", `{"name":"x"}`, 400, "BadRequestException", "schema is missing"},
		{"create without name", "POST", "/v1/namespaces/lab/tables", `{"schema":{"type":"struct","fields":[]}}`, 400, "BadRequestException", "name is missing"},
		{"create with a bad schema", "POST", "/v1/namespaces/lab/tables", `{"name":"x","schema":{"type":"struct","fields":[{"id":1,"name":"a","type":"nonsense","required":true}]}}`, 400, "BadRequestException", ""},
		{"create with a bad spec", "POST", "/v1/namespaces/lab/tables", `{"name":"x","schema":{"type":"struct","fields":[]},"partition-spec":{"fields":"no"}}`, 400, "BadRequestException", ""},
		{"create existing", "POST", "/v1/namespaces/lab/tables", `{"name":"t","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":true}]}}`, 409, "AlreadyExistsException", ""},
		{"namespace without levels", "POST", "/v1/namespaces", `{"namespace":[]}`, 400, "BadRequestException", "namespace is empty"},
		{"namespace with an empty level", "GET", "/v1/namespaces/lab%1F/tables", ``, 400, "BadRequestException", "empty level"},
		{"missing namespace", "GET", "/v1/namespaces/nope", ``, 404, "NoSuchNamespaceException", "nope"},
		{"bad page token", "GET", "/v1/namespaces/lab/tables?pageToken=x", ``, 400, "BadRequestException", "pageToken"},
		{"bad page size", "GET", "/v1/namespaces?pageSize=0", ``, 400, "BadRequestException", "pageSize"},
		{"bad purgeRequested", "DELETE", tbl + "?purgeRequested=maybe", ``, 400, "BadRequestException", "purgeRequested"},
		{"rename without source", "POST", "/v1/tables/rename", `{"destination":{"namespace":["lab"],"name":"u"}}`, 400, "BadRequestException", "source"},
		{"property updated and removed", "POST", "/v1/namespaces/lab/properties", `{"removals":["a"],"updates":{"a":"1"}}`, 422, "UnprocessableEntityException", `"a"`},
		{"unknown endpoint", "GET", "/v1/views", ``, 404, "NoSuchEndpointException", "/v1/views"},
		{"wrong method", "PUT", tbl, `{}`, 405, "MethodNotAllowedException", "GET, HEAD, POST, DELETE"},
		{"wrong method on config", "POST", "/v1/config", `{}`, 405, "MethodNotAllowedException", "GET, HEAD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Errorf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			var e restError
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == nil {
				t.Fatalf("body %q is not the REST error model: %v", rec.Body, err)
			}
			if e.Error.Code != tc.status || e.Error.Type != tc.typ || !strings.Contains(e.Error.Message, tc.msg) {
				t.Errorf("error %+v, want code %d, type %s, message with %q", *e.Error, tc.status, tc.typ, tc.msg)
			}
		})
	}
	// None of it changed the table.
	tb, err := backing.Load(context.Background(), mustIdent(t, "lab.t"))
	if err != nil {
		t.Fatal(err)
	}
	if tb.Iceberg().CurrentSnapshot() != nil || tb.Iceberg().Schema().ID != 0 || len(tb.Iceberg().Properties()) != len(tb.Iceberg().Metadata().Properties()) {
		t.Errorf("bad requests changed the table")
	}
	if _, ok := tb.Iceberg().Properties()["k"]; ok {
		t.Errorf("the oversized commit landed")
	}

	// HEAD answers with a status and no body.
	for path, want := range map[string]int{tbl: 204, "/v1/namespaces/lab/tables/nope": 404, "/v1/namespaces/lab": 204, "/v1/namespaces/nope": 404} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("HEAD", path, nil))
		if rec.Code != want || rec.Body.Len() != 0 {
			t.Errorf("HEAD %s: %d with %d bytes, want %d and none", path, rec.Code, rec.Body.Len(), want)
		}
	}

	// The config advertises the endpoints served, in the client's form.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/config?warehouse=x", nil))
	var cfg struct {
		Endpoints []string `json:"endpoints"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &cfg); err != nil || rec.Code != 200 {
		t.Fatalf("config: %d %s", rec.Code, rec.Body)
	}
	for _, want := range []string{"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}", "HEAD /v1/{prefix}/namespaces/{namespace}", "POST /v1/{prefix}/tables/rename"} {
		if !slices.Contains(cfg.Endpoints, want) {
			t.Errorf("config endpoints %v lack %s", cfg.Endpoints, want)
		}
	}
	if slices.ContainsFunc(cfg.Endpoints, func(e string) bool { return strings.Contains(e, "/views") || strings.Contains(e, "transactions") }) {
		t.Errorf("config advertises endpoints not served: %v", cfg.Endpoints)
	}
}
