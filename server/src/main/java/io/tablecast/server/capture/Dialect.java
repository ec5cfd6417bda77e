package io.tablecast.server.capture;

/** The database families Tablecast captures from, told apart by URL and {@code SELECT VERSION()}. */
public enum Dialect {
  MYSQL, MARIADB, POSTGRESQL;

  /** True for MySQL and MariaDB. */
  public boolean isMysqlFamily() {
    return this != POSTGRESQL;
  }

  /** The folder of {@code sql/triggers/} holding this family's templates. */
  String templates() {
    return this == POSTGRESQL ? "postgresql" : "mysql";
  }
}
