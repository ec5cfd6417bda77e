package io.tablecast.server.postgresql;

import io.tablecast.server.capture.TableId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What the catalog says, at one moment, about the capture of the cached tables: the relations each
 * table is made of (itself, and on PostgreSQL its partitions and inheritance children, at every
 * depth) and what is wrong with the triggers they need. Read by {@link PgDialect#checkCapture},
 * which the tail calls periodically to follow partitions and children that appear or go, and
 * triggers that are dropped or disabled while it serves.
 *
 * @param tables one entry per cached table, in plan order
 */
public record CaptureCheck(List<Coverage> tables) {
  public CaptureCheck {
    tables = List.copyOf(tables);
  }

  /** Every problem of every table. */
  public List<Problem> problems() {
    List<Problem> out = new ArrayList<>();
    tables.forEach(t -> out.addAll(t.problems()));
    return out;
  }

  /** The relations of every table, by oid. */
  public Set<Long> memberOids() {
    Set<Long> out = new java.util.HashSet<>();
    tables.forEach(t -> t.members().forEach(m -> out.add(m.oid())));
    return out;
  }

  /**
   * One cached table.
   *
   * @param table the cached table
   * @param members the table and its descendants; empty when the table no longer exists
   * @param problems what stops its changes from being captured completely, each with its fix
   */
  public record Coverage(TableId table, List<Member> members, List<Problem> problems) {
    public Coverage {
      members = List.copyOf(members);
      problems = List.copyOf(problems);
    }
  }

  /** How a relation belongs to a cached table. */
  public enum Role {
    /** The cached table itself. */
    TABLE,
    /** A partition (declarative partitioning), at any depth: row triggers are cloned onto it. */
    PARTITION,
    /** An inheritance child, at any depth: it needs triggers of its own. */
    CHILD
  }

  /**
   * A relation whose rows are rows of the cached table.
   *
   * @param oid the relation's oid (PostgreSQL)
   * @param id its name
   * @param role how it belongs to the table
   */
  public record Member(long oid, TableId id, Role role) {}

  /** What is wrong with a needed trigger, or with the table. */
  public enum Issue {
    /** A needed trigger does not exist. */
    MISSING,
    /** A needed trigger is disabled ({@code ALTER TABLE ... DISABLE TRIGGER}). */
    DISABLED,
    /** A needed trigger fires for origin (or replica) sessions only, not ALWAYS. */
    NOT_ALWAYS,
    /**
     * A capture trigger of the table sits on a relation that is no longer part of it, or is of an
     * older version.
     */
    STRAY,
    /**
     * A relation of the table cannot be captured at all (a foreign table; the table was dropped).
     */
    UNCAPTURABLE,
    /**
     * Row-level security applies to this server's reads of the table: they see only the rows its
     * policies show the server's user.
     */
    ROW_SECURITY;

    /** Whether installing the capture again fixes it. */
    public boolean repairable() {
      return this != UNCAPTURABLE && this != ROW_SECURITY;
    }
  }

  /**
   * One problem.
   *
   * @param table the cached table it affects
   * @param relation the relation it is on (the table, a partition or a child)
   * @param trigger the trigger's name, or null when the problem is the relation's
   * @param issue what is wrong
   * @param message what is wrong and the way out, naming table, relation and trigger
   */
  public record Problem(
      TableId table, TableId relation, String trigger, Issue issue, String message) {
    /** Identifies the problem across checks: the same problem found again is not reported twice. */
    public String key() {
      return relation + "/" + trigger + "/" + issue;
    }
  }
}
