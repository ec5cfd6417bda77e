// Figure 1's client side, the same in Node (latency-client.mjs) and in the browser
// (latency-page.html): mirrors one table with client-js and, for each batch the mirror applies,
// sends one line per changed row with the row's version and this client's wall clock (ms) when
// the mirror's `batch` listener ran, after a {"ready":ROWS} line once the first snapshot is in, and
// an {"error":...} line if the mirror fails (bench/src/main/java/io/tablecast/bench/VersionLine.java
// reads them).
//
// A batch's lines go out as one text, joined by newlines: the browser's WebSocket sends each
// message through the network process, and one message per row held Chromium to about 4,000 rows
// a second, so that at 10,000 changes a second the figure measured the way out, not the client
// (docs/BENCHMARKS.md).

/**
 * @param {import('../../client-js/src/tablecast.js').TablecastClient} client
 * @param {string} table schema.table
 * @param {(lines: string) => void} send given one or more lines, joined by newlines
 */
export async function mirrorVersions(client, table, send) {
  const mirror = client.mirror(table);
  mirror.addEventListener('batch', (e) => {
    const at = performance.timeOrigin + performance.now();
    const lines = [];
    for (const change of e.detail.changes) {
      if (change.newRow) lines.push(`{"version":${JSON.stringify(change.newRow.version)},"at":${at}}`);
    }
    if (lines.length > 0) send(lines.join('\n'));
  });
  // a line without a version: the bench stops the run and shows it
  mirror.addEventListener('error', (e) => send(JSON.stringify({ error: `${e.detail.code}: ${e.detail.message}` })));
  await mirror.ready;
  send(JSON.stringify({ ready: mirror.size }));
}
