// load_flights.mjs — decode vega-datasets' flights-3m.parquet and write it to
// stdout as CSV for PostgreSQL's COPY ... (FORMAT csv).
//
// usage: node test/load_flights.mjs [--schema] [--limit N] [FILE.parquet]
//   --schema   print the file's columns, types and row count to stderr and exit
//   --limit N  write only the first N rows
//   FILE       default: $GPUDB_NPM_PREFIX/node_modules/vega-datasets/data/flights-3m.parquet
//
// The packages (hyparquet, hyparquet-compressors for ZSTD, vega-datasets) live
// outside the repository, under $GPUDB_NPM_PREFIX (default ~/.cache/gpudb/npm),
// where test/demo_flights.sh installs them.
//
// The file (written by Polars) has five OPTIONAL columns:
//   date         INT64 TIMESTAMP(MICROS, isAdjustedToUTC=false) -> timestamp
//   delay        INT64 (minutes, -1116..1688, no NULLs)         -> integer
//   distance     INT64 (miles, 21..4962, no NULLs)              -> integer
//   origin       BYTE_ARRAY UTF8 (IATA code)                    -> text
//   destination  BYTE_ARRAY UTF8 (IATA code)                    -> text
// Output columns are in that order; NULL is an empty unquoted field.

import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const prefix = process.env.GPUDB_NPM_PREFIX || join(homedir(), '.cache', 'gpudb', 'npm')
const require = createRequire(join(prefix, 'package.json'))
const load = async (name) => import(pathToFileURL(require.resolve(name)).href)

const COLUMNS = ['date', 'delay', 'distance', 'origin', 'destination']

let schemaOnly = false
let limit = Infinity
let file = join(prefix, 'node_modules', 'vega-datasets', 'data', 'flights-3m.parquet')
const argv = process.argv.slice(2)
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--schema') schemaOnly = true
  else if (argv[i] === '--limit') limit = Number(argv[++i])
  else if (argv[i].startsWith('-')) { console.error(`load_flights: unknown option ${argv[i]}`); process.exit(2) }
  else file = argv[i]
}
if (!(limit >= 0)) { console.error('load_flights: --limit needs a number'); process.exit(2) }

const { parquetMetadata, parquetRead } = await load('hyparquet')
const { compressors } = await load('hyparquet-compressors')

const buf = readFileSync(file)
const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)
const metadata = parquetMetadata(ab)
const leaves = metadata.schema.slice(1)

if (schemaOnly) {
  const out = [`${file}: ${metadata.num_rows} rows in ${metadata.row_groups.length} row groups (created by ${metadata.created_by})`]
  for (const s of leaves) {
    const lt = s.logical_type ? ` ${JSON.stringify(s.logical_type)}` : ''
    out.push(`  ${s.name}: ${s.type} ${s.repetition_type}${lt}`)
  }
  console.error(out.join('\n'))
  process.exit(0)
}

// Refuse a file that is not the one this loader (and the demo's table) expects.
const names = leaves.map(s => s.name)
if (names.join(',') !== COLUMNS.join(',')) {
  console.error(`load_flights: expected columns ${COLUMNS.join(',')}, found ${names.join(',')}`)
  process.exit(1)
}

const pad = (n, w = 2) => String(n).padStart(w, '0')

// TIMESTAMP(MICROS) without time zone: render the wall-clock value exactly,
// as PostgreSQL's timestamp input reads it (microseconds kept when present).
function timestampFromMicroseconds(micros) {
  const us = BigInt(micros)
  let ms = us / 1000n
  let frac = us % 1000n
  if (frac < 0n) { frac += 1000n; ms -= 1n }
  const d = new Date(Number(ms))
  let s = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
          `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  const sub = d.getUTCMilliseconds() * 1000 + Number(frac)
  if (sub) s += '.' + pad(sub, 6)
  return s
}

function csvText(v) {
  if (v === null || v === undefined) return ''
  const s = String(v)
  // Quote anything COPY could misread: delimiter, quote, newlines, backslash,
  // leading/trailing space, and the empty string (unquoted empty means NULL).
  if (s === '' || /[",\r\n\\]|^\s|\s$/.test(s)) return '"' + s.replace(/"/g, '""') + '"'
  return s
}
const csvPlain = v => (v === null || v === undefined) ? '' : String(v)
const fmt = [csvPlain, csvPlain, csvPlain, csvText, csvText]

// Write with back-pressure so memory stays bounded however fast COPY reads.
function write(chunk) {
  return process.stdout.write(chunk) ? Promise.resolve()
    : new Promise(resolve => process.stdout.once('drain', resolve))
}
process.stdout.on('error', e => {
  if (e.code === 'EPIPE') process.exit(1)
  throw e
})

const total = Math.min(Number(metadata.num_rows), limit)
let groupStart = 0
for (const rg of metadata.row_groups) {
  const groupRows = Number(rg.num_rows)
  const rowStart = groupStart
  const rowEnd = Math.min(groupStart + groupRows, total)
  groupStart += groupRows
  if (rowStart >= rowEnd) break
  let rows
  await parquetRead({
    file: ab, metadata, compressors, columns: COLUMNS, rowStart, rowEnd,
    parsers: { timestampFromMicroseconds },
    onComplete: r => { rows = r },
  })
  const lines = []
  for (const row of rows) {
    lines.push(fmt[0](row[0]) + ',' + fmt[1](row[1]) + ',' + fmt[2](row[2]) + ',' +
               fmt[3](row[3]) + ',' + fmt[4](row[4]))
    if (lines.length === 65536) { await write(lines.join('\n') + '\n'); lines.length = 0 }
  }
  if (lines.length) await write(lines.join('\n') + '\n')
}
