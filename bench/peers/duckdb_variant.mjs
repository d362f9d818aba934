// DuckDB's side of the variant benchmark (bench/variant.go), through its
// Node API (@duckdb/node-api).
//
// op variant {jsonl, out, path_sql, filter_sql, files:[...], runs?=3}
//   -> {peer, version, write_ms, write_error?, schema:[...], files:[{file, full_ms, path_ms, count_ms, count, error?}]}
//   Writes the JSON lines of jsonl as a VARIANT column v (with id) to out
//   with COPY (zstd; DuckDB shreds VARIANT on its own), then times on each
//   of out and files (best of runs): the full read (every variant
//   materialized into a temporary table), the one-path read
//   (SELECT sum(<path_sql>)) and the filtered count
//   (SELECT count(*) WHERE <filter_sql>), v being the variant column.
//   A failure on one file is that file's error.
import { DuckDBInstance } from '@duckdb/node-api';
import { main, required, now } from './common.mjs';

const sqlString = (s) => `'${String(s).replaceAll("'", "''")}'`;

async function best(runs, fn) {
  let ms = Infinity;
  let out;
  for (let i = 0; i < runs; i++) {
    const t0 = now();
    out = await fn();
    ms = Math.min(ms, now() - t0);
  }
  return { ms, out };
}

await main({
  async variant(req) {
    required(req, 'jsonl', 'out', 'path_sql', 'filter_sql');
    const runs = Number(req.runs ?? 3);
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    const version = String((await conn.runAndReadAll('SELECT version()')).getRowsJS()[0][0]);
    const result = { peer: 'duckdb', version, files: [] };
    try {
      await conn.run(`CREATE TABLE events AS SELECT row_number() OVER () - 1 AS id, json::VARIANT AS v FROM read_json_objects(${sqlString(req.jsonl)})`);
      const w = await best(runs, () => conn.run(`COPY events TO ${sqlString(req.out)} (FORMAT parquet, COMPRESSION zstd)`));
      result.write_ms = w.ms;
      const schema = await conn.runAndReadAll(`SELECT name, type FROM parquet_schema(${sqlString(req.out)})`);
      result.schema = schema.getRowsJS().map((r) => `${r[0]}:${r[1] ?? 'group'}`);
    } catch (err) {
      result.write_error = String(err);
    }
    for (const file of [req.out, ...(req.files ?? [])]) {
      const src = `read_parquet(${sqlString(file)})`;
      const entry = { file };
      try {
        entry.full_ms = (await best(runs, () => conn.run(`CREATE OR REPLACE TEMP TABLE full_read AS SELECT * FROM ${src}`))).ms;
        await conn.run('DROP TABLE IF EXISTS full_read');
        const p = await best(runs, () => conn.runAndReadAll(`SELECT sum(${req.path_sql}) FROM ${src}`));
        entry.path_ms = p.ms;
        entry.path_sum = String(p.out.getRowsJS()[0][0]);
        const c = await best(runs, () => conn.runAndReadAll(`SELECT count(*) FROM ${src} WHERE ${req.filter_sql}`));
        entry.count_ms = c.ms;
        entry.count = Number(c.out.getRowsJS()[0][0]);
      } catch (err) {
        entry.error = String(err);
      }
      result.files.push(entry);
    }
    return result;
  },
});
