// DuckDB through its Node API (@duckdb/node-api).
//
// op read {file, limit?}
//   -> {peer, columns:[{name,type}], rows:[{...}], num_rows, timings_ms}
// op exec {sql:[...]}
//   -> {peer, version, results:[[[...]]]}: runs the statements in order on
//   one in-memory database; results holds each statement's rows, each value
//   as the common JSON form makes it. The reverse compatibility matrix
//   writes its files with COPY and reads DuckDB's own answer back with
//   to_json, all in one process.
// op topk {file, column, id_column?="id", row_ids?=false, dim, metric, k, queries:[[...]], modes?=["parquet","memory"], threads?}
//   -> {peer, metric, k, version, runs:[{mode, load_ms, total_ms, results:[{ids, scores, ms}]}]}
//   row_ids makes the ids the file's row numbers (read_parquet's
//   file_row_number) for files without an id column. Mode "parquet" reads the
//   file for every query; "memory" first loads it into a FLOAT[dim] table
//   (load_ms) and queries that.
//
// Metrics and their scores (the same in every peer script):
//   cosine: cosine similarity, higher first      (array_cosine_similarity)
//   dot:    inner product, higher first          (array_inner_product)
//   l2:     squared Euclidean distance, lower first (array_distance squared;
//           FAISS and LanceDB report the squared distance natively)
import { DuckDBInstance } from '@duckdb/node-api';
import { main, required, jsonSafe, now } from './common.mjs';

const sqlString = (s) => `'${String(s).replaceAll("'", "''")}'`;
const sqlIdent = (s) => `"${String(s).replaceAll('"', '""')}"`;

async function connect(req) {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  if (req.threads) await conn.run(`SET threads = ${Number(req.threads)}`);
  return conn;
}

function vectorLiteral(q, dim) {
  if (!Array.isArray(q) || q.length !== dim) {
    throw new Error(`query vector has ${Array.isArray(q) ? q.length : typeof q} values, want dim ${dim}`);
  }
  // A JavaScript number holds a float32 exactly; the cast rounds back to the same float32.
  return `[${q.map((x) => { const v = Number(x); if (!Number.isFinite(v)) throw new Error(`query value ${x} is not finite`); return v; }).join(',')}]::FLOAT[${dim}]`;
}

const metrics = {
  cosine: { expr: (v, q) => `array_cosine_similarity(${v}, ${q})`, order: 'DESC' },
  dot: { expr: (v, q) => `array_inner_product(${v}, ${q})`, order: 'DESC' },
  l2: { expr: (v, q) => `pow(array_distance(${v}, ${q}), 2)`, order: 'ASC' },
};

async function runQueries(conn, source, vec, id, req) {
  const m = metrics[req.metric];
  const results = [];
  const t0 = now();
  for (const q of req.queries) {
    const sql = `SELECT ${id} AS id, ${m.expr(vec, vectorLiteral(q, req.dim))} AS score FROM ${source} ` +
      `ORDER BY score ${m.order}, id ASC LIMIT ${Number(req.k)}`;
    const s = now();
    const reader = await conn.runAndReadAll(sql);
    const ms = now() - s;
    const rows = reader.getRowsJS();
    results.push({ ids: rows.map((r) => Number(r[0])), scores: rows.map((r) => Number(r[1])), ms });
  }
  return { results, total_ms: now() - t0 };
}

await main({
  async read(req) {
    required(req, 'file');
    const conn = await connect(req);
    const t0 = now();
    const src = `read_parquet(${sqlString(req.file)})`;
    const count = await conn.runAndReadAll(`SELECT count(*) FROM ${src}`);
    const limit = req.limit != null ? ` LIMIT ${Number(req.limit)}` : '';
    const reader = await conn.runAndReadAll(`SELECT * FROM ${src}${limit}`);
    const t1 = now();
    const names = reader.columnNames();
    const types = reader.columnTypes();
    const rows = reader.getRowObjectsJS().map(jsonSafe);
    return {
      peer: 'duckdb',
      columns: names.map((name, i) => ({ name, type: types[i].toString() })),
      rows,
      num_rows: Number(count.getRowsJS()[0][0]),
      timings_ms: { read: t1 - t0, convert: now() - t1 },
    };
  },

  async exec(req) {
    required(req, 'sql');
    const conn = await connect(req);
    const version = String((await conn.runAndReadAll('SELECT version()')).getRowsJS()[0][0]);
    const results = [];
    for (const sql of req.sql) {
      const reader = await conn.runAndReadAll(String(sql));
      results.push(reader.getRowsJS().map((r) => r.map(jsonSafe)));
    }
    return { peer: 'duckdb', version, results };
  },

  async topk(req) {
    required(req, 'file', 'column', 'dim', 'metric', 'k', 'queries');
    if (!metrics[req.metric]) throw new Error(`unknown metric ${JSON.stringify(req.metric)}; known: ${Object.keys(metrics).join(', ')}`);
    const dim = Number(req.dim);
    const rowIDs = req.row_ids === true;
    const id = rowIDs ? 'file_row_number' : sqlIdent(req.id_column ?? 'id');
    const parquet = `read_parquet(${sqlString(req.file)}${rowIDs ? ', file_row_number = true' : ''})`;
    // The cast makes a LIST column (how Parquet stores vectors) a fixed-size
    // ARRAY, which the array_* functions need; on a FLOAT[dim] column it is a no-op.
    const vec = `CAST(${sqlIdent(req.column)} AS FLOAT[${dim}])`;
    const conn = await connect(req);
    const version = String((await conn.runAndReadAll('SELECT version()')).getRowsJS()[0][0]);
    const runs = [];
    for (const mode of req.modes ?? ['parquet', 'memory']) {
      if (mode === 'parquet') {
        const r = await runQueries(conn, parquet, vec, id, req);
        runs.push({ mode, load_ms: 0, ...r });
      } else if (mode === 'memory') {
        const t0 = now();
        await conn.run(`CREATE OR REPLACE TABLE vectors AS SELECT ${id} AS id, ${vec} AS vec FROM ${parquet}`);
        const load_ms = now() - t0;
        const r = await runQueries(conn, 'vectors', 'vec', 'id', req);
        runs.push({ mode, load_ms, ...r });
      } else {
        throw new Error(`unknown mode ${JSON.stringify(mode)}; known: parquet, memory`);
      }
    }
    return { peer: 'duckdb', metric: req.metric, k: Number(req.k), version, runs };
  },
});
