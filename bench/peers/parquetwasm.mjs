// parquet-wasm: arrow-rs's Parquet reader compiled to WebAssembly. Its table
// crosses into JavaScript as an Arrow IPC stream, read with apache-arrow.
// op read {file, limit?} -> {peer, columns:[{name,type}], rows:[{...}], num_rows, timings_ms}
import { readFile } from 'node:fs/promises';
import { readParquet, ParquetFile } from 'parquet-wasm';
import { tableFromIPC } from 'apache-arrow';
import { main, required, jsonSafe, now } from './common.mjs';

await main({
  async read(req) {
    required(req, 'file');
    const t0 = now();
    const bytes = new Uint8Array(await readFile(req.file));
    const wasmTable = readParquet(bytes, req.limit != null ? { limit: req.limit } : undefined);
    const table = tableFromIPC(wasmTable.intoIPCStream());
    const t1 = now();
    // readParquet's table holds only the rows read; the footer has the file's count.
    const numRows = (await ParquetFile.fromFile(new Blob([bytes]))).metadata().fileMetadata().numRows();
    const columns = table.schema.fields.map((f) => ({ name: f.name, type: String(f.type) }));
    const n = req.limit != null ? Math.min(req.limit, table.numRows) : table.numRows;
    const rows = [];
    for (let i = 0; i < n; i++) {
      const row = {};
      for (const f of table.schema.fields) row[f.name] = jsonSafe(table.getChild(f.name).get(i));
      rows.push(row);
    }
    const t2 = now();
    return {
      peer: 'parquet-wasm',
      columns,
      rows,
      num_rows: Number(numRows),
      timings_ms: { read: t1 - t0, convert: t2 - t1 },
    };
  },
});
