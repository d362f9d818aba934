// Package restserver serves the Iceberg REST catalog protocol over any
// iceberg-go catalog.Catalog, so that iceberg-go's REST client (catalog/rest)
// can be exercised against a real catalog in tests: New(cat) is an
// http.Handler for httptest.NewServer.
//
// It serves what iceberg-go's client needs for tables and namespaces:
//
//	GET    /v1/config
//	GET    /v1/namespaces                         (?parent=, pageToken, pageSize)
//	POST   /v1/namespaces
//	GET    /v1/namespaces/{namespace}
//	HEAD   /v1/namespaces/{namespace}
//	DELETE /v1/namespaces/{namespace}
//	POST   /v1/namespaces/{namespace}/properties
//	GET    /v1/namespaces/{namespace}/tables      (pageToken, pageSize)
//	POST   /v1/namespaces/{namespace}/tables      (stage-create too)
//	GET    /v1/namespaces/{namespace}/tables/{table}
//	HEAD   /v1/namespaces/{namespace}/tables/{table}
//	POST   /v1/namespaces/{namespace}/tables/{table}   (commit)
//	DELETE /v1/namespaces/{namespace}/tables/{table}   (?purgeRequested=)
//	POST   /v1/tables/rename
//
// and advertises exactly these in /v1/config's "endpoints", so the client
// uses HEAD for existence checks and never calls what is not served (views,
// register, multi-table transactions, metrics, server-side scan planning,
// credentials). There is no prefix and no authentication; no storage
// credentials are vended (the client reads the files with its own FileIO,
// which for file:// locations is the local file system); a load ignores
// snapshots=refs and returns every snapshot.
//
// A namespace in a path is its levels joined by the unit separator 0x1F
// (URL-escaped %1F), as the REST spec and iceberg-go's client encode it; in
// the parent query parameter likewise.
//
// Errors are the REST error model, {"error":{"message","type","code"}}, with
// the spec's status codes: 400 BadRequestException for a malformed request,
// 404 NoSuchTableException / NoSuchNamespaceException, 409
// AlreadyExistsException, NamespaceNotEmptyException and
// CommitFailedException, 413 for a body over the size limit, 422 for a
// property both updated and removed, 500 for anything the server cannot
// classify (for a commit iceberg-go's client reads 500 as "state unknown",
// which is then true).
//
// A commit decodes the requirements and updates with iceberg-go's own
// decoders (table.Requirements, table.Updates), checks the requirements
// against the backing catalog's current metadata and applies the updates
// as a dry run, then delegates to the backing catalog's CommitTable. The
// requirement check is the server's because a catalog's CommitTable need
// not say which of its errors is a failed requirement (iceberg-go's SQL
// catalog returns the requirement's plain error), and the REST client can
// only retry a 409. Commits to one table through one handler are
// serialized, so two REST clients racing through it see a clean 409; a
// writer that commits to the backing catalog directly is caught after the
// fact by re-checking the requirements when the backing commit fails.
package restserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// DefaultMaxBodyBytes is the largest request body the server reads.
const DefaultMaxBodyBytes = 16 << 20

// nsSep joins namespace levels in paths and in the parent parameter.
const nsSep = "\x1f"

// Option configures the server.
type Option func(*server)

// MaxBodyBytes limits request bodies (default DefaultMaxBodyBytes); a
// larger body is answered 413.
func MaxBodyBytes(n int64) Option { return func(s *server) { s.maxBody = n } }

// Warehouse is the warehouse location under which a stage-create places a
// table that neither the request nor its namespace's "location" property
// locates: <warehouse>/<ns>.db/<table>, as iceberg-go's catalogs do. A
// plain create leaves locations to the backing catalog.
func Warehouse(loc string) Option { return func(s *server) { s.warehouse = loc } }

// ErrorLog receives panics recovered from handlers (default: the standard
// logger).
func ErrorLog(l *log.Logger) Option { return func(s *server) { s.log = l } }

type server struct {
	cat       catalog.Catalog
	maxBody   int64
	warehouse string
	log       *log.Logger

	mux       *http.ServeMux
	endpoints []string

	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

// New serves the Iceberg REST catalog protocol over cat.
func New(cat catalog.Catalog, opts ...Option) http.Handler {
	s := &server{cat: cat, maxBody: DefaultMaxBodyBytes, log: log.Default(), mux: http.NewServeMux(), locks: map[string]*sync.Mutex{}}
	for _, o := range opts {
		o(s)
	}
	const ns, tbl = "/v1/namespaces/{namespace}", "/v1/namespaces/{namespace}/tables/{table}"
	for _, r := range []struct {
		method, path string
		h            func(http.ResponseWriter, *http.Request) error
	}{
		{http.MethodGet, "/v1/namespaces", s.listNamespaces},
		{http.MethodPost, "/v1/namespaces", s.createNamespace},
		{http.MethodGet, ns, s.loadNamespace},
		{http.MethodHead, ns, s.namespaceExists},
		{http.MethodDelete, ns, s.dropNamespace},
		{http.MethodPost, ns + "/properties", s.updateNamespaceProperties},
		{http.MethodGet, ns + "/tables", s.listTables},
		{http.MethodPost, ns + "/tables", s.createTable},
		{http.MethodGet, tbl, s.loadTable},
		{http.MethodHead, tbl, s.tableExists},
		{http.MethodPost, tbl, s.commitTable},
		{http.MethodDelete, tbl, s.dropTable},
		{http.MethodPost, "/v1/tables/rename", s.renameTable},
	} {
		s.mux.Handle(r.method+" "+r.path, s.wrap(r.h))
		// The spec names endpoints with the catalog prefix in the path.
		s.endpoints = append(s.endpoints, r.method+" /v1/{prefix}"+strings.TrimPrefix(r.path, "/v1"))
	}
	s.mux.Handle("GET /v1/config", s.wrap(s.config))
	s.mux.Handle("/", s.wrap(s.noRoute))
	return s.mux
}

// noRoute answers what no endpoint serves: 405 for a path served with other
// methods, 404 otherwise.
func (s *server) noRoute(w http.ResponseWriter, r *http.Request) error {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		return &apiError{http.StatusMethodNotAllowed, "MethodNotAllowedException", fmt.Sprintf("%s %s: this endpoint takes %s", r.Method, r.URL.Path, strings.Join(allow, ", "))}
	}
	return &apiError{http.StatusNotFound, "NoSuchEndpointException", fmt.Sprintf("this server has no endpoint %s %s", r.Method, r.URL.Path)}
}

// apiError is a REST error response.
type apiError struct {
	status int
	typ    string
	msg    string
}

func (e *apiError) Error() string { return e.typ + ": " + e.msg }

func badRequest(format string, args ...any) error {
	return &apiError{http.StatusBadRequest, "BadRequestException", fmt.Sprintf(format, args...)}
}

func commitFailed(err error) error {
	return &apiError{http.StatusConflict, "CommitFailedException", err.Error()}
}

// classify maps iceberg-go's catalog errors to the REST error model.
func classify(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	e := &apiError{http.StatusInternalServerError, "InternalServerError", err.Error()}
	switch {
	case errors.Is(err, catalog.ErrNoSuchNamespace):
		e.status, e.typ = http.StatusNotFound, "NoSuchNamespaceException"
	case errors.Is(err, catalog.ErrNoSuchTable):
		e.status, e.typ = http.StatusNotFound, "NoSuchTableException"
	case errors.Is(err, catalog.ErrTableAlreadyExists), errors.Is(err, catalog.ErrNamespaceAlreadyExists),
		errors.Is(err, catalog.ErrViewAlreadyExists):
		e.status, e.typ = http.StatusConflict, "AlreadyExistsException"
	case errors.Is(err, catalog.ErrNamespaceNotEmpty):
		e.status, e.typ = http.StatusConflict, "NamespaceNotEmptyException"
	case errors.Is(err, table.ErrCommitFailed):
		e.status, e.typ = http.StatusConflict, "CommitFailedException"
	case errors.Is(err, iceberg.ErrInvalidArgument), errors.Is(err, table.ErrInvalidRequirement),
		errors.Is(err, iceberg.ErrInvalidSchema), errors.Is(err, iceberg.ErrInvalidFormatVersion):
		e.status, e.typ = http.StatusBadRequest, "BadRequestException"
	case errors.Is(err, iceberg.ErrNotImplemented):
		e.status, e.typ = http.StatusNotImplemented, "UnsupportedOperationException"
	}
	return e
}

// wrap turns a handler's error into the REST error model, and a panic into
// a 500, never a dropped connection.
func (s *server) wrap(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Printf("restserver: panic in %s %s: %v\n%s", r.Method, r.URL.Path, p, debug.Stack())
				writeError(w, r, &apiError{http.StatusInternalServerError, "InternalServerError", fmt.Sprintf("panic: %v", p)})
			}
		}()
		if err := h(w, r); err != nil {
			writeError(w, r, classify(err))
		}
	})
}

func writeError(w http.ResponseWriter, r *http.Request, e *apiError) {
	type body struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    int    `json:"code"`
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(e.status)
		return
	}
	writeJSON(w, e.status, map[string]body{"error": {Message: e.msg, Type: e.typ, Code: e.status}})
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
	return nil
}

// decode reads one JSON value of at most maxBody bytes into dst.
func (s *server) decode(w http.ResponseWriter, r *http.Request, dst any) error {
	body := http.MaxBytesReader(w, r.Body, s.maxBody)
	dec := json.NewDecoder(body)
	err := dec.Decode(dst)
	if err == nil {
		var extra json.RawMessage
		if err = dec.Decode(&extra); err == io.EOF {
			return nil
		} else if err == nil {
			return badRequest("malformed request body: more than one JSON value")
		}
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &apiError{http.StatusRequestEntityTooLarge, "BadRequestException", fmt.Sprintf("request body is larger than %d bytes", tooBig.Limit)}
	}
	if err == io.EOF {
		return badRequest("malformed request body: empty")
	}
	return badRequest("malformed request body: %v", err)
}

// namespace parses the {namespace} path segment.
func namespace(r *http.Request) (table.Identifier, error) {
	ns, err := parseNamespace(r.PathValue("namespace"))
	if err != nil {
		return nil, badRequest("namespace in path: %v", err)
	}
	return ns, nil
}

func parseNamespace(s string) (table.Identifier, error) {
	if s == "" {
		return nil, errors.New("empty namespace")
	}
	levels := strings.Split(s, nsSep)
	if slices.Contains(levels, "") {
		return nil, fmt.Errorf("namespace %q has an empty level", strings.ReplaceAll(s, nsSep, "%1F"))
	}
	return levels, nil
}

// validNamespace checks a namespace given in a request body.
func validNamespace(what string, ns []string) error {
	if len(ns) == 0 {
		return badRequest("%s is empty", what)
	}
	if slices.Contains(ns, "") {
		return badRequest("%s %q has an empty level", what, strings.Join(ns, "."))
	}
	return nil
}

// tableIdent is the {namespace}/tables/{table} of a path.
func tableIdent(r *http.Request) (table.Identifier, error) {
	ns, err := namespace(r)
	if err != nil {
		return nil, err
	}
	name := r.PathValue("table")
	if name == "" {
		return nil, badRequest("empty table name in path")
	}
	return append(ns, name), nil
}

// identifier is the spec's TableIdentifier.
type identifier struct {
	Namespace []string `json:"namespace"`
	Name      string   `json:"name"`
}

func (id *identifier) ident(what string) (table.Identifier, error) {
	if id == nil {
		return nil, badRequest("%s is missing", what)
	}
	if err := validNamespace(what+" namespace", id.Namespace); err != nil {
		return nil, err
	}
	if id.Name == "" {
		return nil, badRequest("%s has no name", what)
	}
	return append(slices.Clone(id.Namespace), id.Name), nil
}

func toIdentifier(id table.Identifier) identifier {
	return identifier{Namespace: slices.Clone([]string(id[:len(id)-1])), Name: id[len(id)-1]}
}

// page cuts a sorted listing by the pageToken and pageSize parameters; the
// token is the offset of the next page.
func page[T any](r *http.Request, all []T) ([]T, string, error) {
	q := r.URL.Query()
	start := 0
	if tok := q.Get("pageToken"); tok != "" {
		n, err := strconv.Atoi(tok)
		if err != nil || n < 0 || n > len(all) {
			return nil, "", badRequest("pageToken %q is not a token this server gave", tok)
		}
		start = n
	}
	end := len(all)
	if ps := q.Get("pageSize"); ps != "" {
		n, err := strconv.Atoi(ps)
		if err != nil || n < 1 {
			return nil, "", badRequest("pageSize %q is not a positive integer", ps)
		}
		end = min(end, start+n)
	}
	next := ""
	if end < len(all) {
		next = strconv.Itoa(end)
	}
	return all[start:end], next, nil
}

func (s *server) config(w http.ResponseWriter, _ *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]any{
		"defaults":  map[string]string{},
		"overrides": map[string]string{},
		"endpoints": s.endpoints,
	})
}

// Namespaces.

func (s *server) listNamespaces(w http.ResponseWriter, r *http.Request) error {
	var parent table.Identifier
	if p := r.URL.Query().Get("parent"); p != "" {
		var err error
		if parent, err = parseNamespace(p); err != nil {
			return badRequest("parent: %v", err)
		}
	}
	all, err := s.cat.ListNamespaces(r.Context(), parent)
	if err != nil {
		return err
	}
	// The spec lists one level: the children of parent. Catalogs differ
	// (the SQL catalog lists every descendant), so descendants are cut to
	// the child they are under.
	var children [][]string
	seen := map[string]bool{}
	for _, ns := range all {
		if len(ns) <= len(parent) || !slices.Equal(ns[:len(parent)], parent) {
			continue
		}
		child := slices.Clone([]string(ns[:len(parent)+1]))
		if key := strings.Join(child, nsSep); !seen[key] {
			seen[key] = true
			children = append(children, child)
		}
	}
	slices.SortFunc(children, func(a, b []string) int { return slices.Compare(a, b) })
	got, next, err := page(r, children)
	if err != nil {
		return err
	}
	rsp := map[string]any{"namespaces": nonNil(got)}
	if next != "" {
		rsp["next-page-token"] = next
	}
	return writeJSON(w, http.StatusOK, rsp)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func nonNilProps(p iceberg.Properties) iceberg.Properties {
	if p == nil {
		return iceberg.Properties{}
	}
	return p
}

func (s *server) createNamespace(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Namespace  []string           `json:"namespace"`
		Properties iceberg.Properties `json:"properties"`
	}
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	if err := validNamespace("namespace", req.Namespace); err != nil {
		return err
	}
	if err := s.cat.CreateNamespace(r.Context(), req.Namespace, req.Properties); err != nil {
		return err
	}
	props, err := s.cat.LoadNamespaceProperties(r.Context(), req.Namespace)
	if err != nil {
		props = req.Properties
	}
	return writeJSON(w, http.StatusOK, map[string]any{"namespace": req.Namespace, "properties": nonNilProps(props)})
}

func (s *server) loadNamespace(w http.ResponseWriter, r *http.Request) error {
	ns, err := namespace(r)
	if err != nil {
		return err
	}
	props, err := s.cat.LoadNamespaceProperties(r.Context(), ns)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"namespace": ns, "properties": nonNilProps(props)})
}

func (s *server) namespaceExists(w http.ResponseWriter, r *http.Request) error {
	ns, err := namespace(r)
	if err != nil {
		return err
	}
	ok, err := s.cat.CheckNamespaceExists(r.Context(), ns)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %s", catalog.ErrNoSuchNamespace, strings.Join(ns, "."))
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *server) dropNamespace(w http.ResponseWriter, r *http.Request) error {
	ns, err := namespace(r)
	if err != nil {
		return err
	}
	if err := s.cat.DropNamespace(r.Context(), ns); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *server) updateNamespaceProperties(w http.ResponseWriter, r *http.Request) error {
	ns, err := namespace(r)
	if err != nil {
		return err
	}
	var req struct {
		Removals []string           `json:"removals"`
		Updates  iceberg.Properties `json:"updates"`
	}
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	for _, k := range req.Removals {
		if _, ok := req.Updates[k]; ok {
			return &apiError{http.StatusUnprocessableEntity, "UnprocessableEntityException", fmt.Sprintf("property %q is both updated and removed", k)}
		}
	}
	sum, err := s.cat.UpdateNamespaceProperties(r.Context(), ns, req.Removals, req.Updates)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string][]string{
		"updated": nonNil(sum.Updated), "removed": nonNil(sum.Removed), "missing": nonNil(sum.Missing),
	})
}

// Tables.

func (s *server) listTables(w http.ResponseWriter, r *http.Request) error {
	ns, err := namespace(r)
	if err != nil {
		return err
	}
	var ids []identifier
	for id, err := range s.cat.ListTables(r.Context(), ns) {
		if err != nil {
			return err
		}
		if len(id) < 2 {
			continue
		}
		ids = append(ids, toIdentifier(id))
	}
	slices.SortFunc(ids, func(a, b identifier) int {
		if c := slices.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	got, next, err := page(r, ids)
	if err != nil {
		return err
	}
	rsp := map[string]any{"identifiers": nonNil(got)}
	if next != "" {
		rsp["next-page-token"] = next
	}
	return writeJSON(w, http.StatusOK, rsp)
}

// loadTableResult is the spec's LoadTableResult.
type loadTableResult struct {
	MetadataLocation string             `json:"metadata-location,omitempty"`
	Metadata         table.Metadata     `json:"metadata"`
	Config           iceberg.Properties `json:"config"`
}

func writeTable(w http.ResponseWriter, t *table.Table) error {
	return writeJSON(w, http.StatusOK, loadTableResult{MetadataLocation: t.MetadataLocation(), Metadata: t.Metadata(), Config: iceberg.Properties{}})
}

func (s *server) createTable(w http.ResponseWriter, r *http.Request) error {
	ns, err := namespace(r)
	if err != nil {
		return err
	}
	// The spec's CreateTableRequest. Partition spec and write order arrive
	// unbound: their source ids are the request schema's, resolved when the
	// catalog builds the table's metadata (table.NewMetadata).
	var req struct {
		Name          string                        `json:"name"`
		Location      string                        `json:"location"`
		Schema        *iceberg.Schema               `json:"schema"`
		PartitionSpec *iceberg.UnboundPartitionSpec `json:"partition-spec"`
		WriteOrder    *table.UnboundSortOrder       `json:"write-order"`
		StageCreate   bool                          `json:"stage-create"`
		Properties    iceberg.Properties            `json:"properties"`
	}
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	if req.Name == "" {
		return badRequest("create table: name is missing")
	}
	if req.Schema == nil {
		return badRequest("create table %s: schema is missing", req.Name)
	}
	ident := append(ns, req.Name)
	var spec *iceberg.PartitionSpec
	if req.PartitionSpec != nil {
		spec = &req.PartitionSpec.PartitionSpec
	}
	order := table.UnsortedSortOrder
	if req.WriteOrder != nil {
		order = req.WriteOrder.SortOrder
	}
	if req.StageCreate {
		return s.stageCreate(w, r, ident, req.Location, req.Schema, spec, order, req.Properties)
	}
	opts := []catalog.CreateTableOpt{catalog.WithSortOrder(order)}
	if spec != nil {
		opts = append(opts, catalog.WithPartitionSpec(spec))
	}
	if req.Location != "" {
		opts = append(opts, catalog.WithLocation(req.Location))
	}
	if req.Properties != nil {
		opts = append(opts, catalog.WithProperties(req.Properties))
	}
	t, err := s.cat.CreateTable(r.Context(), ident, req.Schema, opts...)
	if err != nil {
		return err
	}
	return writeTable(w, t)
}

// stageCreate answers a stage-create: the metadata the table would have,
// committed to nothing; the client creates the table by committing it with
// an assert-create requirement.
func (s *server) stageCreate(w http.ResponseWriter, r *http.Request, ident table.Identifier, loc string,
	schema *iceberg.Schema, spec *iceberg.PartitionSpec, order table.SortOrder, props iceberg.Properties,
) error {
	ctx := r.Context()
	ns, name := ident[:len(ident)-1], ident[len(ident)-1]
	nsProps, err := s.cat.LoadNamespaceProperties(ctx, ns)
	if err != nil {
		return err
	}
	if ok, err := s.cat.CheckTableExists(ctx, ident); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("%w: %s", catalog.ErrTableAlreadyExists, strings.Join(ident, "."))
	}
	if loc == "" {
		switch {
		case nsProps["location"] != "":
			loc, err = url.JoinPath(nsProps["location"], name)
		case s.warehouse != "":
			loc, err = url.JoinPath(s.warehouse, strings.Join(ns, ".")+".db", name)
		default:
			return badRequest("stage-create %s: no location: give one, or a location property on namespace %s", strings.Join(ident, "."), strings.Join(ns, "."))
		}
		if err != nil {
			return badRequest("stage-create %s: location: %v", strings.Join(ident, "."), err)
		}
	}
	md, err := table.NewMetadata(schema, spec, order, strings.TrimSuffix(loc, "/"), props)
	if err != nil {
		return badRequest("stage-create %s: %v", strings.Join(ident, "."), err)
	}
	return writeJSON(w, http.StatusOK, loadTableResult{Metadata: md, Config: iceberg.Properties{}})
}

func (s *server) loadTable(w http.ResponseWriter, r *http.Request) error {
	ident, err := tableIdent(r)
	if err != nil {
		return err
	}
	t, err := s.cat.LoadTable(r.Context(), ident)
	if err != nil {
		return err
	}
	return writeTable(w, t)
}

func (s *server) tableExists(w http.ResponseWriter, r *http.Request) error {
	ident, err := tableIdent(r)
	if err != nil {
		return err
	}
	ok, err := s.cat.CheckTableExists(r.Context(), ident)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %s", catalog.ErrNoSuchTable, strings.Join(ident, "."))
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *server) dropTable(w http.ResponseWriter, r *http.Request) error {
	ident, err := tableIdent(r)
	if err != nil {
		return err
	}
	purge := false
	if v := r.URL.Query().Get("purgeRequested"); v != "" {
		if purge, err = strconv.ParseBool(v); err != nil {
			return badRequest("purgeRequested=%q is not a boolean", v)
		}
	}
	if purge {
		p, ok := s.cat.(catalog.PurgeableTable)
		if !ok {
			return &apiError{http.StatusNotImplemented, "UnsupportedOperationException", fmt.Sprintf("the backing %s catalog cannot purge tables", s.cat.CatalogType())}
		}
		err = p.PurgeTable(r.Context(), ident)
	} else {
		err = s.cat.DropTable(r.Context(), ident)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *server) renameTable(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Source      *identifier `json:"source"`
		Destination *identifier `json:"destination"`
	}
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	from, err := req.Source.ident("source")
	if err != nil {
		return err
	}
	to, err := req.Destination.ident("destination")
	if err != nil {
		return err
	}
	if _, err := s.cat.RenameTable(r.Context(), from, to); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// commitRequest is the spec's CommitTableRequest.
type commitRequest struct {
	Identifier   *identifier        `json:"identifier"`
	Requirements table.Requirements `json:"requirements"`
	Updates      table.Updates      `json:"updates"`
}

func (s *server) commitTable(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	ident, err := tableIdent(r)
	if err != nil {
		return err
	}
	// The body is decoded twice: once for the dry run, once for the
	// commit, so that nothing the dry run does to an update reaches the
	// backing catalog.
	raw := json.RawMessage{}
	if err := s.decode(w, r, &raw); err != nil {
		return err
	}
	var req, dry commitRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return badRequest("commit to %s: %v", strings.Join(ident, "."), err)
	}
	if err := json.Unmarshal(raw, &dry); err != nil {
		return badRequest("commit to %s: %v", strings.Join(ident, "."), err)
	}
	if req.Identifier != nil {
		id, err := req.Identifier.ident("identifier")
		if err != nil {
			return err
		}
		if !slices.Equal(id, ident) {
			return badRequest("commit: identifier %s is not the table of the path, %s", strings.Join(id, "."), strings.Join(ident, "."))
		}
	}
	creates := slices.ContainsFunc(req.Requirements, func(q table.Requirement) bool { return q.GetType() == "assert-create" })

	lock := s.tableLock(ident)
	lock.Lock()
	defer lock.Unlock()

	current, err := s.current(ctx, ident, creates)
	if err != nil {
		return err
	}
	if err := validate(req.Requirements, current); err != nil {
		return commitFailed(fmt.Errorf("commit to %s: %w", strings.Join(ident, "."), err))
	}
	if err := dryRun(current, dry.Updates); err != nil {
		return badRequest("commit to %s: %v", strings.Join(ident, "."), err)
	}

	md, loc, err := s.cat.CommitTable(ctx, ident, req.Requirements, req.Updates)
	if err != nil {
		if errors.Is(err, table.ErrCommitFailed) {
			return commitFailed(err)
		}
		// Another writer of the backing catalog may have moved the table
		// since the check: its CommitTable then fails the requirement,
		// with an error that need not say so.
		if now, lerr := s.current(ctx, ident, creates); lerr == nil {
			if verr := validate(req.Requirements, now); verr != nil {
				return commitFailed(fmt.Errorf("commit to %s: %w (%w)", strings.Join(ident, "."), verr, err))
			}
		}
		return err
	}
	return writeJSON(w, http.StatusOK, struct {
		MetadataLocation string         `json:"metadata-location"`
		Metadata         table.Metadata `json:"metadata"`
	}{loc, md})
}

// current is the table's metadata in the backing catalog; nil when the
// table does not exist and the commit creates it.
func (s *server) current(ctx context.Context, ident table.Identifier, creates bool) (*table.Table, error) {
	t, err := s.cat.LoadTable(ctx, ident)
	if err == nil {
		return t, nil
	}
	if creates && errors.Is(err, catalog.ErrNoSuchTable) {
		return nil, nil
	}
	return nil, err
}

func validate(reqs table.Requirements, current *table.Table) error {
	var md table.Metadata
	if current != nil {
		md = current.Metadata()
	}
	for _, q := range reqs {
		if err := q.Validate(md); err != nil {
			return err
		}
	}
	return nil
}

// dryRun applies updates to the current metadata (to an empty table's for
// a create), to tell a bad update (400) from a failed commit.
func dryRun(current *table.Table, updates table.Updates) error {
	var base table.Metadata
	loc := ""
	if current != nil {
		base, loc = current.Metadata(), current.MetadataLocation()
	} else {
		var err error
		if base, err = table.NewMetadata(iceberg.NewSchema(0), nil, table.UnsortedSortOrder, "", nil); err != nil {
			return err
		}
	}
	_, err := table.UpdateTableMetadata(base, updates, loc)
	return err
}

func (s *server) tableLock(ident table.Identifier) *sync.Mutex {
	key := strings.Join(ident, nsSep)
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.locks[key]
	if !ok {
		l = &sync.Mutex{}
		s.locks[key] = l
	}
	return l
}
