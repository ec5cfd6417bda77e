// What parsing messages with parseJson (integers beyond 2^53 kept exact) costs beside JSON.parse,
// on one snapshot message of 5,000 rows: without a run of 16 digits (the common case), and with a
// 64-bit id in every row. Run: node bench/parse-json.mjs (medians of 9 rounds of 50 parses, the two alternated).
import { parseJson } from '../src/json-values.js';

const rows = [];
for (let i = 0; i < 5000; i++) {
  rows.push({ id: 1_000_000 + i, name: `product ${i}`, price: '12.3400', region: 'eu',
    ts: '2024-02-29T13:45:30.123456Z', qty: i * 7 });
}
const plain = JSON.stringify({ type: 'snapshot_rows', table: 'shop.products', rows });
const large = plain.replace(/"id":(\d+)/g, (m, d) => `"id":${BigInt(d) + 9007199254740993n}`);

/** Median milliseconds per parse of `text` by JSON.parse and by parseJson, rounds alternated. */
function medians(text) {
  const times = { parse: [], exact: [] };
  for (let i = 0; i < 20; i++) JSON.parse(text) && parseJson(text);
  for (let r = 0; r < 9; r++) {
    for (const [name, parse] of [['parse', JSON.parse], ['exact', parseJson]]) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < 50; i++) parse(text);
      times[name].push(Number(process.hrtime.bigint() - start) / 1e6 / 50);
    }
  }
  const median = (xs) => xs.sort((a, b) => a - b)[4].toFixed(2);
  return [median(times.parse), median(times.exact)];
}

for (const [label, text] of [['no long integers', plain], ['a 64-bit id per row', large]]) {
  const [parse, exact] = medians(text);
  console.log(`${label} (${(text.length / 1e6).toFixed(2)} MB): JSON.parse ${parse} ms, parseJson ${exact} ms`);
}
