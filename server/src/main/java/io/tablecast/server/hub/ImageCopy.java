package io.tablecast.server.hub;

import io.tablecast.server.tail.CommittedBatch;
import java.util.List;

/**
 * Every table's image at one position ({@link ChangeHub#copyImages()}): each as a whole-table read
 * in the row form of its schema, so that a server can load it as it loads a snapshot.
 *
 * @param position the position of the last batch the images hold
 * @param tables one read per cached table, in snapshot order
 */
public record ImageCopy(long position, List<CommittedBatch.TableRead> tables) {
  public ImageCopy {
    tables = List.copyOf(tables);
  }
}
