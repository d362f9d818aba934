// Shared plumbing for the peer scripts: one JSON request on stdin, one JSON
// result on stdout, errors on stderr with a non-zero exit. The Go package
// peers (run.go) is the other side of this contract.
import { performance } from 'node:perf_hooks';

export async function readRequest() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new Error('empty request on stdin');
  return JSON.parse(text);
}

// main runs handler(request) and prints its result, or the error on stderr.
// The explicit exit matters: native add-ons (DuckDB, LanceDB) can keep
// threads alive that would otherwise hold the process open.
export async function main(handlers) {
  try {
    const req = await readRequest();
    const handler = handlers[req.op] ?? (req.op === 'read_many' && handlers.read ? readMany(handlers.read) : undefined);
    if (!handler) {
      throw new Error(`unknown op ${JSON.stringify(req.op)}; known: ${Object.keys(handlers).join(', ')}`);
    }
    const result = await handler(req);
    process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0));
  } catch (err) {
    process.stderr.write(`error: ${err && err.stack ? err.stack : err}\n`, () => process.exit(1));
  }
}

// readMany is the read_many op every script with a read op gets:
//   {files:[...], ...read options} -> {results:[{file, result} | {file, error, stack} | {file, not_run:true}]}
// One process reads many files, which saves a process start per file. Each
// file's failure is reported in its entry. After an error that looks like a
// panic inside a WebAssembly or native library, whose state may now be
// broken, the remaining files are not read (not_run): the caller reads them
// in a fresh process.
export function readMany(read) {
  return async (req) => {
    required(req, 'files');
    const results = [];
    let broken = false;
    for (const file of req.files) {
      if (broken) {
        results.push({ file, not_run: true });
        continue;
      }
      try {
        results.push({ file, result: await read({ ...req, op: 'read', file }) });
      } catch (err) {
        const stack = String(err && err.stack ? err.stack : err);
        results.push({ file, error: String(err), stack });
        broken = /RuntimeError|panicked at|unreachable/.test(stack);
      }
    }
    return { results };
  };
}

export function required(req, ...names) {
  for (const name of names) {
    if (req[name] === undefined || req[name] === null) throw new Error(`request is missing "${name}"`);
  }
}

export const now = () => performance.now();

// jsonSafe turns a reader's value into the lab's common JSON form, so values
// from different readers compare directly: 64-bit integers as decimal
// strings, bytes as lowercase hex, non-finite floats as "NaN"/"Infinity"/
// "-Infinity", dates as ISO strings, typed arrays and lists as arrays,
// structs and maps as objects.
export function jsonSafe(v) {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'bigint':
      return v.toString();
    case 'number':
      return Number.isFinite(v) ? v : String(v);
    case 'string':
    case 'boolean':
      return v;
  }
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
  if (ArrayBuffer.isView(v)) return Array.from(v, jsonSafe);
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), jsonSafe(x)]));
  if (typeof v[Symbol.iterator] === 'function' && typeof v.toArray === 'function' && v[Symbol.toStringTag] !== 'Row') {
    // an apache-arrow Vector (a list cell); its struct and map rows, which
    // iterate as [key, value] pairs, take the toJSON branch below
    return Array.from(v, jsonSafe);
  }
  if (typeof v.toJSON === 'function') {
    const j = v.toJSON();
    if (j !== v) return jsonSafe(j);
  }
  const out = {};
  for (const [k, x] of Object.entries(v)) out[k] = jsonSafe(x);
  return out;
}
