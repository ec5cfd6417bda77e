package io.tablecast.server.hub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.shape.RowPredicate;
import java.math.BigDecimal;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The values the subqueries of sessions' shapes give ({@code column IN (SELECT c FROM t WHERE
 * ...)}), kept as their tables change: for each, how many of the other table's rows the session may
 * see hold each value, and which values came or went in the batch being sent, so that a row can be
 * tested against the other table as it was before the batch and as it is after. One set per
 * subquery and principal row filter, shared by the sessions that ask it. Hub thread only.
 */
final class SubqueryMemberships {

  private record Key(RowPredicate.Subquery subquery, String filterColumn, JsonNode filterValue) {}

  private final TableImages images;
  private final Map<Key, Values> live = new HashMap<>();

  SubqueryMemberships(TableImages images) {
    this.images = images;
  }

  /** The values of {@code subquery} for a session of {@code policy}, read from the image now. */
  RowPredicate.Membership membership(RowPredicate.Subquery subquery, SessionPolicy policy) {
    Key key = new Key(subquery, policy.filterColumn(), policy.filterValue());
    return live.computeIfAbsent(key, k -> new Values(k, policy));
  }

  /** A batch's changes were applied to the images: the values follow them. */
  void applied(Collection<Message.Change> changes) {
    for (Values v : live.values()) {
      v.added.clear();
      v.removed.clear();
    }
    if (live.isEmpty()) {
      return;
    }
    for (Message.Change c : changes) {
      for (Values v : live.values()) {
        if (v.key.subquery().table().equals(c.table())) {
          v.change(c.before(), c.after());
        }
      }
    }
  }

  /** The images were replaced whole: every set is read again from them. */
  void imagesReplaced() {
    live.values().forEach(Values::read);
  }

  /** Drops the sets no session's shape uses any more. */
  void retainUsedBy(Collection<Subscriber> sessions) {
    Set<RowPredicate.Membership> used = new HashSet<>();
    for (Subscriber s : sessions) {
      for (SessionPolicy.Shape shape : s.policy().shapes().values()) {
        if (shape.filter() != null) {
          shape.filter().subqueries().forEach(q -> used.add(q.membership()));
        }
      }
    }
    live.values().removeIf(v -> !used.contains(v));
  }

  /** A value as a set holds it: numbers without trailing zeros, so that 1.0 and 1 are one. */
  static Comparable<?> normalized(Comparable<?> value) {
    return value instanceof BigDecimal d ? d.stripTrailingZeros() : value;
  }

  /** One subquery's values. */
  final class Values implements RowPredicate.Membership {
    final Key key;
    private final SessionPolicy rowFilter;
    private final Map<Comparable<?>, Integer> counts = new HashMap<>();

    /** Values that came and went in the batch being sent. */
    final Set<Comparable<?>> added = new HashSet<>();

    final Set<Comparable<?>> removed = new HashSet<>();

    Values(Key key, SessionPolicy policy) {
      this.key = key;
      this.rowFilter = new SessionPolicy(null, policy.filterColumn(), policy.filterValue(), null);
      read();
    }

    /** Counts the values of the other table's image as it is now. */
    private void read() {
      counts.clear();
      added.clear();
      removed.clear();
      TableImage image = images.get(key.subquery().table());
      if (image != null) {
        for (byte[] row : image.copyRows()) {
          Comparable<?> v = valueOf(PackedRow.of(image.form(), row));
          if (v != null) {
            counts.merge(v, 1, Integer::sum);
          }
        }
      }
    }

    @Override
    public boolean contains(Comparable<?> value, boolean before) {
      Comparable<?> v = normalized(value);
      if (before) {
        if (added.contains(v)) {
          return false;
        }
        if (removed.contains(v)) {
          return true;
        }
      }
      return counts.containsKey(v);
    }

    /** Values whose membership changed in the batch being sent. */
    boolean changed(Comparable<?> value) {
      Comparable<?> v = normalized(value);
      return added.contains(v) || removed.contains(v);
    }

    boolean anyChange() {
      return !added.isEmpty() || !removed.isEmpty();
    }

    /** The value a row of the other table gives, or null when it gives none. */
    private Comparable<?> valueOf(ObjectNode row) {
      if (row == null || !rowFilter.matches(row)) {
        return null;
      }
      RowPredicate.Subquery q = key.subquery();
      if (q.filter() != null && !q.filter().matches(row::get)) {
        return null;
      }
      JsonNode node = row.get(q.column());
      Comparable<?> v =
          node == null || node.isNull()
              ? null
              : io.tablecast.server.shape.Comparison.valueOf(q.kind(), node);
      return v == null ? null : normalized(v);
    }

    private void change(ObjectNode before, ObjectNode after) {
      Comparable<?> gone = valueOf(before);
      Comparable<?> come = valueOf(after);
      if (gone != null && gone.equals(come)) {
        return;
      }
      if (gone != null && counts.merge(gone, -1, Integer::sum) <= 0) {
        counts.remove(gone);
        if (!added.remove(gone)) {
          removed.add(gone);
        }
      }
      if (come != null && counts.merge(come, 1, Integer::sum) == 1) {
        if (!removed.remove(come)) {
          added.add(come);
        }
      }
    }
  }
}
