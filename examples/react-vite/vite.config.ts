// Vite's configuration. `npm run build` writes dist/, which any static file server can serve,
// the Tablecast server included (static_dir: examples/react-vite/dist); the page then opens its
// WebSocket on the server that served it. `npm run dev` serves the sources with hot reload and
// forwards /ws to a Tablecast server: TABLECAST_URL, default http://127.0.0.1:7070.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const tablecast = process.env.TABLECAST_URL ?? 'http://127.0.0.1:7070';

export default defineConfig({
  plugins: [react()],
  // relative asset URLs: dist/ works under any path prefix, e.g. behind a reverse proxy
  base: './',
  server: { proxy: { '/ws': { target: tablecast, ws: true } } },
  preview: { proxy: { '/ws': { target: tablecast, ws: true } } },
});
