// Why a WebSocket to a Tablecast server ended before the server's welcome, in words a user can act
// on: the reason the platform gave (Node's `ws` gives one, a browser gives none), with what it
// usually means for a Tablecast server. Internal module of the Reconnector; the Java client's
// counterpart is `Reconnector.describe` (`ConnectionListener.connectFailed`).

/**
 * What the platform said about a socket's failure, from its `error` event: the message of `ws`'s
 * ErrorEvent or of the Error it carries, or null (browsers say nothing, for privacy).
 */
export function socketErrorText(ev) {
  const text = ev?.message || ev?.error?.message || ev?.error?.cause?.message;
  return typeof text === 'string' && text.trim() !== '' ? text.trim() : null;
}

/**
 * The sentence for an attempt on `url` that ended before the welcome. `opened`: the WebSocket
 * opened (so the server spoke HTTP and upgraded); `errorText`: what its `error` event said, or
 * null; `closeEvent`: its `close` event.
 */
export function connectFailure(url, opened, errorText, closeEvent) {
  if (opened) {
    return `${url} closed the connection before the welcome${closeDetail(closeEvent)}`;
  }
  if (errorText === null) {
    return `cannot connect to ${url}${closeDetail(closeEvent)} (a browser gives no reason here: its console does)`;
  }
  return `cannot connect to ${url}: ${meaning(url, errorText)}`;
}

/** ` (close code 1006)`, with the reason when the peer gave one. */
function closeDetail(ev) {
  if (typeof ev?.code !== 'number') return '';
  const reason = typeof ev.reason === 'string' && ev.reason !== '' ? `: ${ev.reason}` : '';
  return ` (close code ${ev.code}${reason})`;
}

/** The platform's words, with what they mean for a Tablecast server where that is known. */
function meaning(url, text) {
  const status = /Unexpected server response: (\d{3})/.exec(text);
  if (status) return `the server answered HTTP ${status[1]} instead of a WebSocket upgrade${httpStatusHint(url, Number(status[1]))}`;
  if (/ECONNREFUSED/.test(text)) return `connection refused (${text}): is the server running and listening on that port?`;
  if (/ENOTFOUND|EAI_AGAIN/.test(text)) return `unknown host (${text})`;
  if (/ETIMEDOUT/.test(text)) return `connection timed out (${text})`;
  const tls = /wrong version number|packet length too long/i.exec(text) ?? /EPROTO/.exec(text);
  if (tls && url.startsWith('wss:')) {
    return `the server did not answer in TLS (${tls[0]}): connect with ws:// or turn TLS on at the server`;
  }
  if (/Parse Error|Expected HTTP/i.test(text)) {
    return `it does not answer in HTTP, so it is not a Tablecast server's port (${text})`;
  }
  return firstLine(text);
}

function httpStatusHint(url, status) {
  switch (status) {
    case 404: {
      const path = pathOf(url);
      return path === '/ws'
        ? ': nothing takes WebSocket sessions there; is it a Tablecast server?'
        : `: a Tablecast server takes WebSocket sessions at /ws, not ${path}`;
    }
    case 400:
      return url.startsWith('ws:')
        ? ': a Tablecast server that requires TLS answers a plaintext connection so: connect with wss://'
        : '';
    case 503:
      return ': a Tablecast server answers so while it starts (reading its tables) and at its max_connections; the client retries';
    default:
      return '';
  }
}

function pathOf(url) {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

function firstLine(text) {
  return text.split('\n')[0];
}
