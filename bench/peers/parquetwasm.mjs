// parquet-wasm: arrow-rs's Parquet reader compiled to WebAssembly. Its table
// crosses into JavaScript as an Arrow IPC stream, read with apache-arrow.
// op read {file, limit?} -> {peer, columns:[{name,type}], rows:[{...}], num_rows, timings_ms}
// op write {file, columns:[{name, kind, values}], options?} -> {peer, file}
//   arrow-rs writes an Arrow table built with apache-arrow (the reverse
//   compatibility matrix's writer). Kinds as hyparquetwriter.mjs, plus
//   struct_ab ({a: int32, b: string}) and fsl_float (FixedSizeList<float, dim>).
//   options: {compression: SNAPPY|ZSTD|UNCOMPRESSED, dictionary, version: 1|2,
//   page_size, row_group_size, bss_columns:[...] (top-level columns only,
//   see writerProps), bss_all} (arrow-rs's defaults where unset).
// op write_vectors {file, sidecar, n, dim, options?} -> {peer, file}
//   One column emb, FixedSizeList<float32, dim> (no nulls), from the raw
//   little-endian float32 rows of the sidecar file, without passing the
//   values through JSON; options as for write.
import { readFile, writeFile } from 'node:fs/promises';
import {
  readParquet, ParquetFile, writeParquet, Table as WasmTable, WriterPropertiesBuilder,
  Compression, Encoding, WriterVersion,
} from 'parquet-wasm';
import {
  tableFromIPC, tableToIPC, makeTable, vectorFromArray, Field, Int32, Int64, Uint8, Uint16,
  Uint32, Uint64, Float32, Float64, Utf8, Binary, Bool, List, Struct, FixedSizeList,
  makeData, makeVector,
} from 'apache-arrow';
import { main, required, jsonSafe, now } from './common.mjs';

function arrowType(c) {
  switch (c.kind) {
    case 'int64': return new Int64();
    case 'int32': return new Int32();
    case 'uint8': return new Uint8();
    case 'uint16': return new Uint16();
    case 'uint32': return new Uint32();
    case 'uint64': return new Uint64();
    case 'float32': return new Float32();
    case 'float64': return new Float64();
    case 'string': return new Utf8();
    case 'binary': return new Binary();
    case 'bool': return new Bool();
    case 'list_int32': return new List(new Field('item', new Int32(), true));
    case 'list_float': return new List(new Field('item', new Float32(), true));
    case 'fsl_float': return new FixedSizeList(c.dim, new Field('item', new Float32(), true));
    case 'struct_ab': return new Struct([new Field('a', new Int32(), true), new Field('b', new Utf8(), true)]);
  }
  throw new Error(`unknown kind ${c.kind}`);
}

function convert(kind, v) {
  if (v === null) return null;
  switch (kind) {
    case 'int64': case 'uint64': return BigInt(v);
    case 'binary': return Uint8Array.from(Buffer.from(v, 'hex'));
    default: return v;
  }
}

function writerProps(o) {
  let props = new WriterPropertiesBuilder();
  if (o.compression) props = props.setCompression(Compression[o.compression]);
  if (o.dictionary !== undefined) props = props.setDictionaryEnabled(o.dictionary);
  if (o.version === 2) props = props.setWriterVersion(WriterVersion.V2);
  if (o.page_size) props = props.setDataPageSizeLimit(o.page_size);
  if (o.row_group_size) props = props.setMaxRowGroupSize(o.row_group_size);
  // parquet-wasm 0.8.0 takes a column path as one string and makes it a
  // one-part path, so a nested leaf ('emb.list.item') never matches and the
  // setting is dropped without an error: bss_columns reaches top-level
  // columns only. bss_all sets the file's default encoding instead, which
  // reaches every leaf (write_vectors' one column).
  for (const col of o.bss_columns ?? []) props = props.setColumnEncoding(col, Encoding.BYTE_STREAM_SPLIT);
  if (o.bss_all) props = props.setEncoding(Encoding.BYTE_STREAM_SPLIT);
  return props.build();
}

async function writeTable(file, table, options) {
  const bytes = writeParquet(WasmTable.fromIPCStream(tableToIPC(table, 'stream')), writerProps(options ?? {}));
  await writeFile(file, bytes);
  return { peer: 'parquet-wasm', file };
}

await main({
  async write(req) {
    required(req, 'file', 'columns');
    const vectors = {};
    for (const c of req.columns) vectors[c.name] = vectorFromArray(c.values.map((v) => convert(c.kind, v)), arrowType(c));
    return writeTable(req.file, makeTable(vectors), req.options);
  },

  async write_vectors(req) {
    required(req, 'file', 'sidecar', 'n', 'dim');
    const raw = await readFile(req.sidecar);
    const n = req.n, dim = req.dim;
    if (raw.length !== n * dim * 4) throw new Error(`sidecar ${req.sidecar}: ${raw.length} bytes, want ${n} × ${dim} float32`);
    const floats = new Float32Array(raw.buffer, raw.byteOffset, n * dim);
    const child = makeData({ type: new Float32(), length: n * dim, data: floats });
    const type = new FixedSizeList(dim, new Field('item', new Float32(), false));
    const emb = makeVector(makeData({ type, length: n, nullCount: 0, child }));
    return writeTable(req.file, makeTable({ emb }), req.options);
  },

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
