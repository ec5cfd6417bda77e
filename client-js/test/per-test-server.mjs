// A fake server for each test of a file: started before the test, closed after it together with the
// client the test made (set `fake.client`), so that a failing test leaves nothing open for the next.
import { beforeEach, afterEach } from 'node:test';
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
  return fake;
}
