package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * MySQL/MariaDB: which rows of cached tables a delete or an update of a parent row changes through
 * foreign-key actions, as paths of foreign keys from the parent (the "root", whose trigger records
 * them) to a cached table, several levels deep. InnoDB performs a cascaded change of a child as a
 * delete or an update of that child, so a path continues from a deleted child through the
 * children's ON DELETE actions, and from an updated one through the ON UPDATE actions of the keys
 * that reference a changed column. InnoDB's own limits bound the paths:
 *
 * <ul>
 *   <li>a cascaded update of a table that the same cascade already updates fails the statement (it
 *       acts as RESTRICT; so a self-referencing ON UPDATE CASCADE or SET NULL never changes a row):
 *       such paths are left out;
 *   <li>cascades nest at most 15 levels deep (a deeper one fails the statement): so does a path,
 *       which also ends the unrolling of a cycle of ON DELETE CASCADE through several tables.
 * </ul>
 *
 * A self-referencing ON DELETE CASCADE (a subtree deleted level by level, as deep as the data goes)
 * is one step with a recursive closure rather than a path per depth.
 *
 * <p>What cannot be captured is collected in {@link #problems()}: the SET DEFAULT action (InnoDB
 * never performs it: MariaDB stores it as RESTRICT and MySQL refuses it, so it can only appear from
 * another engine), and more than {@link #MAX_PATHS} paths from one parent.
 */
final class CascadePaths {
  /** InnoDB's limit on nested foreign-key actions (more fail the statement). */
  static final int MAX_DEPTH = 15;

  /**
   * Most paths from one parent and event: a schema with more is refused rather than given a huge
   * trigger.
   */
  static final int MAX_PATHS = 64;

  /** The statement on the parent whose row change the paths follow. */
  enum Event {
    DELETE,
    UPDATE
  }

  /**
   * How the rows a cascade reaches in one table change: deleted, or some columns updated (to the
   * parent's new values, or to NULL). {@code columns} null: any referenced column (the root of an
   * update, whose changed columns are known only at run time).
   */
  record Change(boolean deleted, Set<String> columns, boolean toNull) {
    static final Change DELETED = new Change(true, Set.of(), false);
    static final Change ROOT_UPDATE = new Change(false, null, false);
  }

  /**
   * One level of a path: the foreign key followed into its child and the change that makes there.
   * {@code loops}: for deleted rows, the child's self-referencing ON DELETE CASCADE keys, followed
   * recursively (the subtrees, a closure over the data); otherwise empty.
   */
  record Step(ForeignKey via, Change change, List<ForeignKey> loops) {
    TableId table() {
      return via.child();
    }
  }

  /** A path from a row change of {@code root} to the rows of a cached table ({@link #target()}). */
  record Path(TableId root, Event event, List<Step> steps) {
    Path {
      steps = List.copyOf(steps);
    }

    Step last() {
      return steps.get(steps.size() - 1);
    }

    TableId target() {
      return last().table();
    }

    /**
     * Whether the target rows can be found only after the change (their referencing columns took
     * the parent's new values): recorded by an AFTER UPDATE trigger. Otherwise (deletes, and
     * updates that set NULL) they are found by their values before it, by a BEFORE trigger.
     */
    boolean foundAfter() {
      return event == Event.UPDATE && !last().change().toNull();
    }

    /** The foreign keys the path follows, loops included, in order. */
    List<String> constraints() {
      Set<String> names = new LinkedHashSet<>();
      for (Step s : steps) {
        names.add(s.via().name());
        s.loops().forEach(l -> names.add(l.name()));
      }
      return List.copyOf(names);
    }
  }

  private final ForeignKeyGraph graph;
  private final Set<TableId> cached;
  private final Map<TableId, Map<Event, List<Path>>> byRoot = new LinkedHashMap<>();
  private final Map<String, Set<TableId>> problems = new LinkedHashMap<>();

  private CascadePaths(ForeignKeyGraph graph, Set<TableId> cached) {
    this.graph = graph;
    this.cached = cached;
  }

  /** Every path from a parent in {@code graph} to one of the {@code cached} tables. */
  static CascadePaths of(ForeignKeyGraph graph, Set<TableId> cached) {
    CascadePaths p = new CascadePaths(graph, Set.copyOf(cached));
    for (TableId root : graph.parents()) {
      for (Event event : Event.values()) {
        Change start = event == Event.DELETE ? Change.DELETED : Change.ROOT_UPDATE;
        List<Path> found = new ArrayList<>();
        p.walk(root, event, root, start, new ArrayList<>(), found);
        if (!found.isEmpty()) {
          p.byRoot.computeIfAbsent(root, r -> new LinkedHashMap<>()).put(event, found);
        }
      }
    }
    return p;
  }

  /** The tables whose triggers must record cascaded changes, in catalog order. */
  Set<TableId> roots() {
    return Collections.unmodifiableSet(byRoot.keySet());
  }

  /**
   * The paths from a change of {@code root} by {@code event}; empty when it changes no cached
   * table.
   */
  List<Path> from(TableId root, Event event) {
    return byRoot.getOrDefault(root, Map.of()).getOrDefault(event, List.of());
  }

  /** What cannot be captured, each naming the constraint(s); empty when everything can. */
  List<CaptureStatus.Problem> problems() {
    List<CaptureStatus.Problem> out = new ArrayList<>();
    problems.forEach((message, tables) -> out.add(new CaptureStatus.Problem(message, tables)));
    return out;
  }

  /** Records a problem, with the cached tables among {@code path}'s and {@code also}. */
  private void problem(String message, List<Step> path, TableId... also) {
    Set<TableId> tables = problems.computeIfAbsent(message, m -> new LinkedHashSet<>());
    path.forEach(s -> addIfCached(tables, s.table()));
    for (TableId t : also) {
      addIfCached(tables, t);
    }
  }

  private void addIfCached(Set<TableId> tables, TableId t) {
    if (cached.contains(t)) {
      tables.add(t);
    }
  }

  private void walk(
      TableId root, Event event, TableId table, Change change, List<Step> path, List<Path> found) {
    for (ForeignKey fk : graph.into(table)) {
      Change next = next(change, fk);
      if (next == null) {
        continue;
      }
      if ((change.deleted() ? fk.onDelete() : fk.onUpdate()) == ForeignKey.Rule.SET_DEFAULT) {
        problem(
            "foreign key "
                + fk.describe()
                + " has the action SET DEFAULT, which InnoDB never performs; "
                + "a table that reports it is not InnoDB, or the catalog is wrong: change it to SET NULL, CASCADE or "
                + "RESTRICT",
            path,
            root,
            fk.child());
        continue;
      }
      if (!next.deleted() && updatedOnPath(root, event, path, fk.child())) {
        // InnoDB: a cascaded update of a table the same cascade already updates acts as
        // RESTRICT (the statement fails), so self-referencing ON UPDATE CASCADE / SET NULL never
        // changes a row
        continue;
      }
      if (fk.selfReferencing() && next.equals(change) && !path.isEmpty()) {
        continue; // the current step's closure follows this key already
      }
      if (path.size() >= MAX_DEPTH) {
        continue; // InnoDB fails a deeper cascade: it cannot change anything
      }
      path.add(new Step(fk, next, next.deleted() ? loops(fk.child()) : List.of()));
      if (cached.contains(fk.child())) {
        if (found.size() == MAX_PATHS) {
          problem(
              "the foreign keys with actions below "
                  + root
                  + " reach cached tables along more than "
                  + MAX_PATHS
                  + " paths on "
                  + event
                  + ", too many for one trigger; change some of them to RESTRICT / "
                  + "NO ACTION, or cache fewer of the tables they reach",
              path,
              targets(found).toArray(new TableId[0]));
          path.clear(); // stops every level of this walk: the parent is refused anyway
          return;
        }
        found.add(new Path(root, event, path));
      }
      walk(root, event, fk.child(), next, path, found);
      if (path.isEmpty()) {
        return;
      }
      path.remove(path.size() - 1);
    }
  }

  /**
   * Whether the cascade along {@code path} from an {@code event} of {@code root} updates {@code
   * table}.
   */
  private static boolean updatedOnPath(TableId root, Event event, List<Step> path, TableId table) {
    if (event == Event.UPDATE && root.equals(table)) {
      return true;
    }
    return path.stream().anyMatch(s -> !s.change().deleted() && s.table().equals(table));
  }

  /**
   * The change {@code fk}'s action makes in its child when its parent rows change by {@code
   * change}, or null.
   */
  private static Change next(Change change, ForeignKey fk) {
    if (change.deleted()) {
      return switch (fk.onDelete()) {
        case CASCADE -> Change.DELETED;
        case SET_NULL, SET_DEFAULT -> new Change(false, Set.copyOf(fk.childColumns()), true);
        default -> null;
      };
    }
    if (change.columns() != null && Collections.disjoint(change.columns(), fk.parentColumns())) {
      return null; // the columns it references do not change
    }
    return switch (fk.onUpdate()) {
      case CASCADE -> new Change(false, Set.copyOf(fk.childColumns()), change.toNull());
      case SET_NULL, SET_DEFAULT -> new Change(false, Set.copyOf(fk.childColumns()), true);
      default -> null;
    };
  }

  /**
   * The self-referencing keys of {@code table} that delete the children of deleted rows: a subtree.
   */
  private List<ForeignKey> loops(TableId table) {
    List<ForeignKey> out = new ArrayList<>();
    for (ForeignKey fk : graph.into(table)) {
      if (fk.selfReferencing() && fk.onDelete() == ForeignKey.Rule.CASCADE) {
        out.add(fk);
      }
    }
    return out;
  }

  /** The distinct tables among {@code paths}' targets. */
  static Set<TableId> targets(List<Path> paths) {
    Set<TableId> out = new HashSet<>();
    paths.forEach(p -> out.add(p.target()));
    return out;
  }
}
