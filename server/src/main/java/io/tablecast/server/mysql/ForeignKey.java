package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import java.util.List;
import java.util.Locale;

/**
 * A MySQL/MariaDB foreign key as {@code information_schema} describes it: the child's columns
 * reference the parent's, position by position.
 *
 * @param name the constraint's name
 * @param child the referencing table
 * @param childColumns the referencing columns
 * @param parent the referenced table (the same as {@code child} for a self-referencing key)
 * @param parentColumns the referenced columns, in the order of {@code childColumns}
 * @param onDelete what a delete of a parent row does to its children
 * @param onUpdate what a change of the referenced columns of a parent row does to its children
 */
record ForeignKey(
    String name,
    TableId child,
    List<String> childColumns,
    TableId parent,
    List<String> parentColumns,
    Rule onDelete,
    Rule onUpdate) {

  /**
   * A referential action, as {@code REFERENTIAL_CONSTRAINTS.DELETE_RULE / UPDATE_RULE} spell it.
   */
  enum Rule {
    CASCADE,
    SET_NULL,
    SET_DEFAULT,
    RESTRICT,
    NO_ACTION;

    static Rule of(String text) {
      return valueOf(text.trim().toUpperCase(Locale.ROOT).replace(' ', '_'));
    }

    /** Whether the action changes child rows (without firing their triggers). */
    boolean changesChildren() {
      return this == CASCADE || this == SET_NULL || this == SET_DEFAULT;
    }

    @Override
    public String toString() {
      return name().replace('_', ' ');
    }
  }

  ForeignKey {
    childColumns = List.copyOf(childColumns);
    parentColumns = List.copyOf(parentColumns);
  }

  boolean selfReferencing() {
    return child.equals(parent);
  }

  /** Whether one of its actions changes child rows. */
  boolean acts() {
    return onDelete.changesChildren() || onUpdate.changesChildren();
  }

  /** {@code fk_name (child(cols) -> parent(cols), ON DELETE x, ON UPDATE y)}, for messages. */
  String describe() {
    return name
        + " ("
        + child
        + "("
        + String.join(", ", childColumns)
        + ") -> "
        + parent
        + "("
        + String.join(", ", parentColumns)
        + "), ON DELETE "
        + onDelete
        + ", ON UPDATE "
        + onUpdate
        + ")";
  }
}
