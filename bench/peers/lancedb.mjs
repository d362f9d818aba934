// LanceDB (@lancedb/lancedb): a Lance dataset built from the lab's raw
// float32 sidecar, searched flat (no vector index), and read by offsets.
//
// op build  {sidecar, n, dim, dir?, table?="vectors"}
//   -> {peer, dir, table, n, dim, timings_ms:{read, build}}
//   The sidecar is n*dim float32 little-endian values, row-major; row i gets id i.
//   Without dir a new temporary directory is made (the caller removes it).
// op search {dir, table?, metric, k, queries:[[...]]}
//   -> {peer, metric, k, version, runs:[{mode:"flat", load_ms, total_ms, results:[{ids, scores, ms}]}]}
//   load_ms is opening the table. Scores follow duckdb.mjs: cosine similarity, inner product, squared L2.
// op take   {dir, table?, offsets:[...], vectors?=true, runs?=1}
//   -> {peer, ids, vectors?, timings_ms:{open, take}, take_ms:[...]}, rows in
//   LanceDB's order (ascending offsets, not the request's order); ids say
//   which row is which. The take runs `runs` times on the table opened once;
//   take_ms holds each run's time, timings_ms.take the first.
import { readFileSync } from 'node:fs';
import { readFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { createRequire } from 'node:module';

// LanceDB loads apache-arrow as CommonJS and checks `instanceof Table`; an
// ESM import would be a second copy of the classes and fail that check.
const { Field, FixedSizeList, Float32, Table, makeData, makeVector } = createRequire(import.meta.url)('apache-arrow');
import { main, required, now } from './common.mjs';

// LanceDB reports distances; turn them into the common scores.
const scoreOf = {
  cosine: (d) => 1 - d, // cosine distance = 1 - similarity
  dot: (d) => 1 - d, // LanceDB's dot "distance" is 1 - inner product
  l2: (d) => d, // already the squared Euclidean distance
};

// The installed package's version, for the report (the lockfile pins it).
function lancedbVersion() {
  try {
    return JSON.parse(readFileSync(new URL('./node_modules/@lancedb/lancedb/package.json', import.meta.url))).version;
  } catch {
    return undefined;
  }
}

async function openTable(req) {
  required(req, 'dir');
  const db = await lancedb.connect(req.dir);
  return db.openTable(req.table ?? 'vectors');
}

function vectorTable(values, n, dim) {
  const floatData = makeData({ type: new Float32(), length: n * dim, data: values });
  const listType = new FixedSizeList(dim, new Field('item', new Float32(), true));
  const ids = new BigInt64Array(n);
  for (let i = 0; i < n; i++) ids[i] = BigInt(i);
  return new Table({
    id: makeVector(ids),
    vector: makeVector(makeData({ type: listType, length: n, child: floatData })),
  });
}

await main({
  async build(req) {
    required(req, 'sidecar', 'n', 'dim');
    const n = Number(req.n), dim = Number(req.dim);
    const t0 = now();
    const buf = await readFile(req.sidecar);
    if (buf.byteLength !== n * dim * 4) {
      throw new Error(`sidecar ${req.sidecar} has ${buf.byteLength} bytes, want n*dim*4 = ${n * dim * 4}`);
    }
    // Copy into an aligned buffer: a Buffer's offset need not be a multiple of 4.
    const values = new Float32Array(n * dim);
    new Uint8Array(values.buffer).set(buf);
    const t1 = now();
    const dir = req.dir ?? await mkdtemp(join(tmpdir(), 'lab-lancedb-'));
    const db = await lancedb.connect(dir);
    const name = req.table ?? 'vectors';
    await db.createTable(name, vectorTable(values, n, dim), { mode: 'overwrite' });
    const t2 = now();
    return { peer: 'lancedb', dir, table: name, n, dim, timings_ms: { read: t1 - t0, build: t2 - t1 } };
  },

  async search(req) {
    required(req, 'metric', 'k', 'queries');
    const score = scoreOf[req.metric];
    if (!score) throw new Error(`unknown metric ${JSON.stringify(req.metric)}; known: ${Object.keys(scoreOf).join(', ')}`);
    const t0 = now();
    const table = await openTable(req);
    const load_ms = now() - t0;
    const results = [];
    const t1 = now();
    for (const q of req.queries) {
      const s = now();
      const rows = await table.vectorSearch(Float32Array.from(q))
        .distanceType(req.metric)
        .bypassVectorIndex()
        .select(['id', '_distance'])
        .limit(Number(req.k))
        .toArray();
      const ms = now() - s;
      results.push({ ids: rows.map((r) => Number(r.id)), scores: rows.map((r) => score(r._distance)), ms });
    }
    return { peer: 'lancedb', metric: req.metric, k: Number(req.k), version: lancedbVersion(), runs: [{ mode: 'flat', load_ms, total_ms: now() - t1, results }] };
  },

  async take(req) {
    required(req, 'offsets');
    const t0 = now();
    const table = await openTable(req);
    const t1 = now();
    const withVectors = req.vectors ?? true;
    const offsets = req.offsets.map(Number);
    const take_ms = [];
    let rows;
    for (let run = 0; run < Math.max(1, Number(req.runs ?? 1)); run++) {
      const s = now();
      rows = await table.takeOffsets(offsets)
        .select(withVectors ? ['id', 'vector'] : ['id'])
        .toArray();
      take_ms.push(now() - s);
    }
    const out = { peer: 'lancedb', ids: rows.map((r) => Number(r.id)), timings_ms: { open: t1 - t0, take: take_ms[0] }, take_ms };
    if (withVectors) out.vectors = rows.map((r) => Array.from(r.vector));
    return out;
  },
});
