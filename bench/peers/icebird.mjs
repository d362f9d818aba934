// icebird: a pure-JavaScript Iceberg reader (hyparquet underneath, its own
// pinned copy). It reads a table from its metadata.json alone: the manifest
// list and manifests (Avro), then every data file (Parquet), applying
// delete files, and maps Parquet columns to the current schema by field id.
//
// op read {metadata, limit?}
//   metadata (or file): the table's metadata.json, a local path or a
//   file:// URI. read_many {files:[...]} reads many tables (common.mjs).
//   -> {peer, version, columns:[{name,type}], rows:[{...}], num_rows, timings_ms}
//   columns are the current schema's top-level fields with their Iceberg
//   types (a nested type as its JSON); rows are icebird's objects in the
//   common JSON form (common.mjs jsonSafe), in icebird's order.
//
// icebird reads everything through the global fetch (metadata, manifests)
// and hyparquet's asyncBufferFromUrl (data files, which uses the global
// fetch too). Node's fetch knows no file: URLs, so this script installs a
// fetch for local files only (anything else is refused: a peer run never
// touches the network), answering Range requests with 206 as an object
// store does.
//
// The zlib workaround. Iceberg writes its manifests as Avro object
// containers with codec "deflate", which Avro defines as raw DEFLATE
// (RFC 1951, no zlib or gzip framing). icebird 0.3.1 passes each block to
// hyparquet-compressors' gunzip without an output size, which mis-decodes
// the raw deflate of iceberg-go's manifests: when the buffer it grows is
// larger than what it decoded (nearly always), it takes the rest for
// another gzip member, skips an 8-byte gzip trailer raw deflate does not
// have and reads past the end ("RangeError: offset is out of bounds";
// TestTableIcebirdNeedsZlib in spec/compat checks it still does). So the
// local fetch hands icebird every Avro file with its blocks already
// inflated by Node's zlib (inflateRawSync) and the header's avro.codec
// rewritten to "null": the same records, decoded by icebird's own Avro
// reader, with only the decompression done by Node. LAB_ICEBIRD_RAW_AVRO=1 turns the workaround
// off, to check whether a newer icebird still needs it.
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import zlib from 'node:zlib';
import { icebergRead } from 'icebird';
import { main, required, jsonSafe, now } from './common.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const version = JSON.parse(readFileSync(join(here, 'node_modules', 'icebird', 'package.json'), 'utf8')).version;
const rawAvro = process.env.LAB_ICEBIRD_RAW_AVRO === '1';

function localPath(url) {
  const s = String(url);
  if (s.startsWith('file:')) return fileURLToPath(s);
  if (s.startsWith('/')) return s;
  return undefined;
}

// Avro's binary encoding of longs: zigzag, then base-128 varint.
function readLong(buf, pos) {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos.at >= buf.length) throw new Error('avro: truncated varint');
    const byte = buf[pos.at++];
    result |= BigInt(byte & 0x7f) << shift;
    if (!(byte & 0x80)) break;
    shift += 7n;
  }
  return Number((result >> 1n) ^ -(result & 1n));
}

function writeLong(out, n) {
  let z = (BigInt(n) << 1n) ^ (BigInt(n) >> 63n);
  const bytes = [];
  do {
    let b = Number(z & 0x7fn);
    z >>= 7n;
    if (z !== 0n) b |= 0x80;
    bytes.push(b);
  } while (z !== 0n);
  out.push(Buffer.from(bytes));
}

function readBytes(buf, pos) {
  const n = readLong(buf, pos);
  if (n < 0 || pos.at + n > buf.length) throw new Error('avro: bad length');
  const b = buf.subarray(pos.at, pos.at + n);
  pos.at += n;
  return b;
}

function writeBytes(out, b) {
  writeLong(out, b.length);
  out.push(Buffer.from(b));
}

// inflateAvro returns an Avro object container file with every deflate
// block inflated by Node's zlib and the codec set to "null"; any other file
// (or codec) comes back unchanged.
export function inflateAvro(buf) {
  if (buf.length < 4 || buf.readUInt32BE(0) !== 0x4f626a01) return buf; // not "Obj\x01"
  const pos = { at: 4 };
  const meta = [];
  for (let count = readLong(buf, pos); count !== 0; count = readLong(buf, pos)) {
    if (count < 0) {
      count = -count;
      readLong(buf, pos); // the block's byte size
    }
    for (let i = 0; i < count; i++) meta.push([readBytes(buf, pos).toString('utf8'), readBytes(buf, pos)]);
  }
  const codec = meta.find(([k]) => k === 'avro.codec');
  if (!codec || codec[1].toString('utf8') !== 'deflate') return buf;
  const sync = buf.subarray(pos.at, pos.at + 16);
  pos.at += 16;
  const out = [Buffer.from('Obj\x01', 'latin1')];
  writeLong(out, meta.length);
  for (const [k, v] of meta) {
    writeBytes(out, Buffer.from(k, 'utf8'));
    writeBytes(out, k === 'avro.codec' ? Buffer.from('null', 'utf8') : v);
  }
  writeLong(out, 0);
  out.push(Buffer.from(sync));
  while (pos.at < buf.length) {
    const records = readLong(buf, pos);
    const block = readBytes(buf, pos);
    const blockSync = buf.subarray(pos.at, pos.at + 16);
    pos.at += 16;
    if (!blockSync.equals(sync)) throw new Error('avro: a block does not end with the file\'s sync marker');
    writeLong(out, records);
    writeBytes(out, zlib.inflateRawSync(block));
    out.push(Buffer.from(sync));
  }
  return Buffer.concat(out);
}

const files = new Map();

async function localFile(path) {
  let body = files.get(path);
  if (!body) {
    let buf = await readFile(path);
    if (!rawAvro && path.endsWith('.avro')) buf = inflateAvro(buf);
    body = buf;
    files.set(path, body);
  }
  return body;
}

globalThis.fetch = async (url, init) => {
  const path = localPath(typeof url === 'string' || url instanceof URL ? url : url.url);
  if (!path) throw new Error(`icebird peer: refusing to fetch ${url}: only local files are read`);
  let body;
  try {
    body = await localFile(path);
  } catch (err) {
    if (err.code === 'ENOENT') return new Response(null, { status: 404, statusText: 'Not Found' });
    throw err;
  }
  const headers = new Headers(init?.headers);
  const range = /^bytes=(\d+)-(\d*)$/.exec(headers.get('Range') ?? '');
  if (init?.method === 'HEAD') {
    return new Response(null, { status: 200, headers: { 'Content-Length': String(body.length) } });
  }
  if (range) {
    const start = Number(range[1]);
    const end = range[2] === '' ? body.length : Math.min(Number(range[2]) + 1, body.length);
    return new Response(body.subarray(start, end), { status: 206 });
  }
  return new Response(body, { status: 200 });
};

function typeName(t) {
  return typeof t === 'string' ? t : JSON.stringify(t);
}

await main({
  async read(req) {
    const location = req.metadata ?? req.file;
    if (location == null) required(req, 'metadata');
    const path = localPath(location) ?? location;
    const t0 = now();
    const metadata = JSON.parse((await readFile(path)).toString('utf8'));
    const schema = metadata.schemas.find((s) => s['schema-id'] === metadata['current-schema-id']);
    if (!schema) throw new Error(`${path}: no current schema`);
    const rows = await icebergRead({
      tableUrl: String(metadata.location),
      metadata,
      rowEnd: req.limit != null ? Number(req.limit) : Infinity,
    });
    const t1 = now();
    return {
      peer: 'icebird',
      version,
      columns: schema.fields.map((f) => ({ name: f.name, type: typeName(f.type) })),
      rows: rows.map(jsonSafe),
      num_rows: rows.length,
      timings_ms: { read: t1 - t0, convert: now() - t1 },
    };
  },
});
