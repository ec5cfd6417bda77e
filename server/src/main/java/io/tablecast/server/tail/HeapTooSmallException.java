package io.tablecast.server.tail;

/**
 * The cached tables' images do not fit in the heap: the message names the tables, the memory they
 * need, what the heap can give and the setting to change. The snapshot that met it is dropped
 * whole: no table is served half loaded.
 */
public final class HeapTooSmallException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  HeapTooSmallException(String message) {
    super(message);
  }

  HeapTooSmallException(String message, Throwable cause) {
    super(message, cause);
  }
}
