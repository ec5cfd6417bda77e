// The error type of the Tablecast JavaScript client. Internal module: import the package entry
// point (tablecast.js), which re-exports TablecastError.

/** An error reported by the server (`code` is an ErrorCode name) or by the client itself. */
export class TablecastError extends Error {
  constructor(message, { code = null, table = null } = {}) {
    super(message);
    this.name = 'TablecastError';
    this.code = code;
    this.table = table;
  }
}
