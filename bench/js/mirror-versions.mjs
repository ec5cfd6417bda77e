// Figure 1's client side, the same in Node (latency-client.mjs) and in the browser
// (latency-page.html): mirrors one table with client-js and sends one line per changed row with
// the row's version and this client's wall clock (ms) when its change listener ran, after a
// {"ready":ROWS} line once the first snapshot is in, and an {"error":...} line if the mirror fails
// (bench/src/main/java/io/tablecast/bench/VersionLine.java reads them).

/**
 * @param {import('../../client-js/src/tablecast.js').TablecastClient} client
 * @param {string} table schema.table
 * @param {(line: string) => void} send
 */
export async function mirrorVersions(client, table, send) {
  const mirror = client.mirror(table);
  mirror.addEventListener('change', (e) => {
    const at = performance.timeOrigin + performance.now();
    const row = e.detail.newRow;
    if (row) send(`{"version":${JSON.stringify(row.version)},"at":${at}}`);
  });
  // a line without a version: the bench stops the run and shows it
  mirror.addEventListener('error', (e) => send(JSON.stringify({ error: `${e.detail.code}: ${e.detail.message}` })));
  await mirror.ready;
  send(JSON.stringify({ ready: mirror.size }));
}
