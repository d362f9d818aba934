// hyparquet-writer: a pure-JavaScript Parquet writer (the reverse
// compatibility matrix's writer; hyparquet.mjs is its reader).
// op write {file, rows, columns:[{name, kind, values}], options?}
//   -> {peer, file}
//   kinds: int64 and uint64 (values as decimal strings), int32, uint8,
//   uint16, uint32, float32, float64, string, binary (values as hex), bool,
//   list_int32, list_float (arrays, null elements allowed). options:
//   {codec, page_size, row_group_size, encodings:{column: ENCODING}}.
import { parquetWriteFile, schemaFromColumnData } from 'hyparquet-writer';
import { main, required } from './common.mjs';

const basic = {
  int64: 'INT64', int32: 'INT32', float32: 'FLOAT', float64: 'DOUBLE',
  string: 'STRING', binary: 'BYTE_ARRAY', bool: 'BOOLEAN',
  uint8: 'INT32', uint16: 'INT32', uint32: 'INT32', uint64: 'INT64',
};
const unsigned = { uint8: 'UINT_8', uint16: 'UINT_16', uint32: 'UINT_32', uint64: 'UINT_64' };

function convert(kind, v) {
  if (v === null) return null;
  switch (kind) {
    case 'int64': case 'uint64': return BigInt(v); // unsigned: hyparquet-writer stores the bits

    case 'binary': return Uint8Array.from(Buffer.from(v, 'hex'));
    default: return v;
  }
}

await main({
  async write(req) {
    required(req, 'file', 'columns');
    const opts = req.options ?? {};
    const columnData = req.columns.map((c) => {
      const col = { name: c.name, data: c.values.map((v) => convert(c.kind, v)) };
      if (basic[c.kind] && !unsigned[c.kind]) col.type = basic[c.kind];
      if (opts.encodings?.[c.name]) col.encoding = opts.encodings[c.name];
      return col;
    });
    // Unsigned and list columns need schema elements of their own.
    const schemaOverrides = {};
    for (const c of req.columns) {
      if (unsigned[c.kind]) {
        schemaOverrides[c.name] = { name: c.name, type: basic[c.kind], converted_type: unsigned[c.kind], repetition_type: 'OPTIONAL' };
      }
    }
    let schema = schemaFromColumnData({ columnData, schemaOverrides });
    const lists = req.columns.filter((c) => c.kind === 'list_int32' || c.kind === 'list_float');
    if (lists.length) {
      // schemaFromColumnData cannot infer lists: build the 3-level LIST groups.
      schema = [{ name: 'root', num_children: req.columns.length }];
      for (const c of req.columns) {
        if (c.kind === 'list_int32' || c.kind === 'list_float') {
          schema.push({ name: c.name, repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST' });
          schema.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
          schema.push({ name: 'element', repetition_type: 'OPTIONAL', type: c.kind === 'list_int32' ? 'INT32' : 'FLOAT' });
        } else {
          const el = schemaOverrides[c.name] ?? schemaFromColumnData({ columnData: columnData.filter((d) => d.name === c.name) })[1];
          schema.push(el);
        }
      }
    }
    // hyparquet-writer takes either column types or a schema: the schema.
    for (const col of columnData) delete col.type;
    const options = { filename: req.file, columnData, schema };
    if (opts.codec) options.codec = opts.codec;
    if (opts.page_size) options.pageSize = opts.page_size;
    if (opts.row_group_size) options.rowGroupSize = opts.row_group_size;
    await parquetWriteFile(options);
    return { peer: 'hyparquet-writer', file: req.file };
  },
});
