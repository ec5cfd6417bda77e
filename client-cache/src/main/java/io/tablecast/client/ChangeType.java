package io.tablecast.client;

/** What happened to a row of a mirror, as {@link ChangeEvent#op()} tells. */
public enum ChangeType {
  /** The key was absent and now has a row. */
  INSERT,
  /** The row of the key changed. */
  UPDATE,
  /** The key's row is gone. */
  DELETE
}
