// Figure 1's client side, the same in Node (latency-client.mjs) and in the browser
// (latency-page.html): mirrors one table with client-js and sends one line per changed row with
// the row's version and this client's wall clock (ms) when its change listener ran, after a
// {"ready":ROWS} line once the first snapshot is in, and an {"error":...} line if the mirror fails
// (bench/src/main/java/io/tablecast/bench/VersionLine.java reads them).
//
// The lines of one task (a batch's changes are dispatched in one) go out as one text, joined by
// newlines, in a microtask right after it: the browser's WebSocket sends each message through the
// network process, and one message per row held Chromium to about 4,000 rows a second, so that at
// 10,000 changes a second the figure measured the way out, not the client (docs/BENCHMARKS.md).

/**
 * @param {import('../../client-js/src/tablecast.js').TablecastClient} client
 * @param {string} table schema.table
 * @param {(lines: string) => void} send given one or more lines, joined by newlines
 */
export async function mirrorVersions(client, table, send) {
  let pending = [];
  const flush = () => {
    const lines = pending;
    pending = [];
    send(lines.join('\n'));
  };
  const out = (line) => {
    if (pending.push(line) === 1) queueMicrotask(flush);
  };
  const mirror = client.mirror(table);
  mirror.addEventListener('change', (e) => {
    const at = performance.timeOrigin + performance.now();
    const row = e.detail.newRow;
    if (row) out(`{"version":${JSON.stringify(row.version)},"at":${at}}`);
  });
  // a line without a version: the bench stops the run and shows it
  mirror.addEventListener('error', (e) => out(JSON.stringify({ error: `${e.detail.code}: ${e.detail.message}` })));
  await mirror.ready;
  out(JSON.stringify({ ready: mirror.size }));
}
