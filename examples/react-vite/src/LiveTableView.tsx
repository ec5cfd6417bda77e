// A table that follows its database table. The DOM hooks (ids and data- attributes) are the ones
// of examples/web, so one browser driver (client-js/test-browser/live-table.e2e.mjs) checks both.
import type { ColumnValue, TablecastClient } from '@tablecast/client';
import { useTable } from './useTable';

function cellText(value: ColumnValue | undefined): string {
  if (value === null || value === undefined) return 'null';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function LiveTableView({ client, table }: { client: TablecastClient; table: string }) {
  const { status, connection, rows, columns, stale, error, connectionError } = useTable(client, table);
  const badge = status === 'failed' ? 'error' : connection;
  return (
    <main>
      <h1>
        {table} <span id="status" data-state={badge}>{badge}</span>{' '}
        <span id="count" data-count={rows.size}>{status === 'ready' ? `${rows.size} rows` : ''}</span>
      </h1>
      <p id="message" role="alert">
        {[
          error ? `${error.code ?? 'ERROR'}: ${error.message}` : '',
          stale ? `stale: ${stale}` : '',
          connectionError ?? '',
        ].filter((line) => line !== '').join('\n')}
      </p>
      <table id="live" data-ready={status === 'ready'} hidden={status !== 'ready'}>
        <thead>
          <tr>{columns.map((c) => <th key={c.name} title={c.dbType}>{c.name}</th>)}</tr>
        </thead>
        <tbody>
          {[...rows].map(([key, row]) => (
            <tr key={key} data-key={key}>
              {columns.map((c) => (
                <td key={c.name} data-col={c.name} className={row[c.name] === null ? 'null' : undefined}>
                  {cellText(row[c.name])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}
