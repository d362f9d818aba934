// hyparquet: a pure-JavaScript Parquet reader.
// op read {file, limit?} -> {peer, columns:[{name,type}], rows:[{...}], num_rows, timings_ms}
import { readFile } from 'node:fs/promises';
import { parquetMetadata, parquetSchema, parquetReadObjects } from 'hyparquet';
import { main, required, jsonSafe, now } from './common.mjs';

function typeName(el) {
  const parts = [];
  if (el.type) parts.push(el.type);
  if (el.logical_type) parts.push(el.logical_type.type);
  else if (el.converted_type) parts.push(el.converted_type);
  if (!el.type && !el.logical_type && !el.converted_type) parts.push('GROUP');
  return parts.join(' ');
}

await main({
  async read(req) {
    required(req, 'file');
    const t0 = now();
    const buf = await readFile(req.file);
    const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const metadata = parquetMetadata(file);
    const t1 = now();
    const columns = parquetSchema(metadata).children.map((c) => ({ name: c.element.name, type: typeName(c.element) }));
    const numRows = Number(metadata.num_rows);
    const rowEnd = req.limit != null ? Math.min(req.limit, numRows) : numRows;
    const rows = await parquetReadObjects({ file, metadata, rowStart: 0, rowEnd });
    const t2 = now();
    return {
      peer: 'hyparquet',
      columns,
      rows: rows.map(jsonSafe),
      num_rows: numRows,
      timings_ms: { open: t1 - t0, read: t2 - t1 },
    };
  },
});
