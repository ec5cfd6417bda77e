// A fake server for each test of a file: started before the test, closed after it together with the
// client the test made (set `fake.client`), so that a failing test leaves nothing open for the next.
import { beforeEach, afterEach } from 'node:test';
import WebSocket from 'ws';
import { TablecastClient } from '../src/tablecast.js';
import { startFakeServer } from './fake-server.mjs';

/** Registers the hooks; the returned object holds this test's `server` and, once made, its `client`. */
export function fakeServerPerTest() {
  const fake = { server: undefined, client: undefined };
  beforeEach(async () => {
    fake.server = await startFakeServer();
  });
  afterEach(async () => {
    fake.client?.close();
    fake.client = undefined;
    await fake.server.close();
  });
  /** A client of this test's server (the one closed after it): a test token, fast retries, `extra`. */
  fake.newClient = (extra = {}) => {
    fake.client = new TablecastClient({
      url: fake.server.url,
      clientName: 'test',
      token: 'tok',
      WebSocket,
      backoff: { minMs: 5, maxMs: 20 },
      ...extra,
    });
    return fake.client;
  };
  return fake;
}
