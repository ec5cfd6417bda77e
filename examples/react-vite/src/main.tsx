// The page: one TablecastClient for the whole application, created outside React (it lives as
// long as the page), and a live table. `?table=schema.table` picks the table (default
// public.products); the WebSocket is the serving host's /ws unless `?ws=ws://host:port/ws` says
// otherwise (with `npm run dev`, Vite forwards /ws to the Tablecast server: vite.config.ts).
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { TablecastClient } from '@tablecast/client';
import { LiveTableView } from './LiveTableView';
import './style.css';

const params = new URLSearchParams(location.search);
const table = params.get('table') ?? 'public.products';
const url = params.get('ws') ?? `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;

const client = new TablecastClient({ url, clientName: 'react-vite-example' });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <LiveTableView client={client} table={table} />
  </StrictMode>,
);
