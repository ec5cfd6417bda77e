package io.tablecast.server.hub;

import io.tablecast.server.image.TableImage;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.tail.CommittedBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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

  /**
   * A copy of every image of {@code images} (rows are shared and immutable) at {@code position};
   * empty while a table is stale or its image invalid: it may differ from the table, and a
   * checkpoint must not hand that on. Hub thread.
   */
  static Optional<ImageCopy> of(TableImages images, StaleTables stale, long position) {
    List<String> names = images.names();
    if (stale.count() > 0 || names.stream().anyMatch(images::isInvalid)) {
      return Optional.empty();
    }
    List<CommittedBatch.TableRead> tables = new ArrayList<>();
    for (String name : names) {
      TableImage image = images.get(name);
      tables.add(
          new CommittedBatch.TableRead(
              image.schema(), image.copyRows(), CommittedBatch.Purpose.RESYNC));
    }
    return Optional.of(new ImageCopy(position, tables));
  }
}
