package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Hears the answer to a {@code fetch} request ({@link ServerSession#fetch}), on the connection's
 * event loop, in the stream's order: every batch before the answer has been applied, none after it.
 * Internal.
 */
public interface FetchHandler {

  /** The rows found of the keys asked (a key without a row is not there), as JSON images. */
  void answered(List<ObjectNode> rows);

  /** The request cannot be answered: why. */
  void failed(String why);
}
