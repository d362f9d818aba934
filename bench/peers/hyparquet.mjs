// hyparquet: a pure-JavaScript Parquet reader.
// op read {file, limit?, binary_as_bytes?} -> {peer, columns:[{name,type}], rows:[{...}], num_rows, timings_ms}
//   binary_as_bytes: report BYTE_ARRAY columns without a STRING annotation as
//   bytes (hyparquet's utf8: false) instead of hyparquet's default, which
//   decodes them as UTF-8 text.
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
    const rows = await parquetReadObjects({ file, metadata, rowStart: 0, rowEnd, utf8: !req.binary_as_bytes });
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
