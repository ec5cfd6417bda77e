package io.tablecast.it;

import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The online shop of {@link RealisticSchemaTest} on one database family: its schema script, the
 * tables an application would cache, how its sessions are set up, its seed data and what its
 * writers do.
 */
interface Shop {

  /** The shop for a database family. */
  static Shop on(TestDatabases.Kind kind) {
    return kind == TestDatabases.Kind.POSTGRESQL ? new PostgresShop(kind) : new MariadbShop();
  }

  /** Statements creating the schema, run in one session set up by {@link #prepareSession}. */
  List<String> schema();

  /**
   * Every table the application has (partitions and inheritance children are part of their parent),
   * which the test caches whole; unqualified.
   */
  List<String> tables();

  /**
   * A query listing the application's tables as the catalog sees them (one parameter: the schema),
   * so a table added to the script but not to {@link #tables()} fails the test.
   */
  String topLevelTablesQuery();

  /**
   * {@code FROM} clauses naming each partition, inheritance child and inheritance parent's own
   * rows: the test checks that the writes left rows in every one of them.
   */
  List<String> partitionsAndChildren();

  /** Sets up a writer's session as the application would (time zone, lock timeout, search path). */
  void prepareSession(Connection c) throws SQLException;

  /** Fills the tables with a shop's worth of rows, in one transaction. */
  void seed(ShopSession s) throws SQLException;

  /** What the writers do, each action one transaction. */
  List<ShopWorkload.Action> actions();
}
