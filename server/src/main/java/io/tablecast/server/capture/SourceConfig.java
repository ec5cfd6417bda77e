package io.tablecast.server.capture;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Where the cached tables live and how changes are captured from them ({@code source:} and {@code
 * cached_tables:} in the YAML, see docs/CONFIGURATION.md). Null durations take their defaults.
 *
 * @param jdbcUrl {@code jdbc:mariadb://...}, {@code jdbc:mysql://...} or {@code
 *     jdbc:postgresql://...}; the URL's database (MySQL) or current schema (PostgreSQL) holds the
 *     outbox
 * @param user database user, or null when the URL carries it
 * @param password database password, or null; never logged ({@link #password()} reads {@code
 *     passwordFile} when that is set)
 * @param installTriggers whether the server installs (idempotently) the outbox and triggers at
 *     start
 * @param outboxRetention delivered outbox rows older than this are pruned
 * @param maxPollInterval the longest pause between outbox polls when idle (polls back off from
 *     {@code minPollInterval} to this once no change came for {@code pollIdleAfter}; a poll that
 *     finds rows is followed by another at once)
 * @param reconcileInterval every this long, one cached table (round-robin) is compared with its
 *     in-memory image in the same consistent read as an outbox poll, and any drift the triggers did
 *     not capture (MySQL/MariaDB TRUNCATE, ALTER TABLE, disabled triggers) is repaired by
 *     publishing the differences; {@link Duration#ZERO} disables it
 * @param captureCheckInterval every this long the server reads from the catalog whether every
 *     capture trigger the cached tables need is present (and, on PostgreSQL, enabled ALWAYS), which
 *     partitions and inheritance children make up each table (PostgreSQL), and which parents'
 *     key-recording triggers foreign-key actions into them need (MySQL/MariaDB, including foreign
 *     keys added since start); a new member or missing trigger is logged, counted, installed (with
 *     {@code installTriggers}) and its table re-read; null = the family's default, {@link
 *     Duration#ZERO} disables it
 * @param cachedTables tables to cache, {@code table} or {@code schema.table}, each whole or with
 *     the columns to cache ({@code columns} or {@code exclude_columns})
 * @param minPollInterval the pause between outbox polls that find nothing while changes keep
 *     arriving, and the first pause of the back-off
 * @param pollIdleAfter how long after the last poll that found rows the pauses start to double
 *     towards {@code maxPollInterval}; {@link Duration#ZERO}: after every empty poll
 * @param answerTimeout how long a statement the server sent may go without an answer: a read of
 *     changes that long says every table stale, and is given up once the database says its session
 *     has waited that long for its client; a short background statement is given up after it (one
 *     that may take long by design, three times as long), and made again on a new connection
 * @param passwordFile a file holding the database password, read anew for each connection made (a
 *     rotated password is used without a restart); null = none
 */
public record SourceConfig(
    String jdbcUrl,
    String user,
    String password,
    boolean installTriggers,
    Duration outboxRetention,
    Duration maxPollInterval,
    Duration reconcileInterval,
    Duration captureCheckInterval,
    List<CachedTable> cachedTables,
    Duration minPollInterval,
    Duration pollIdleAfter,
    Duration answerTimeout,
    Path passwordFile) {

  /** Default for {@link #outboxRetention()}: one hour. */
  public static final Duration DEFAULT_OUTBOX_RETENTION = Duration.ofHours(1);

  /** Default for {@link #maxPollInterval()}: 10 ms. */
  public static final Duration DEFAULT_MAX_POLL_INTERVAL = Duration.ofMillis(10);

  /**
   * Default for {@link #minPollInterval()}: 1 ms (an idle poll costs the database little: figure 7
   * of docs/BENCHMARKS.md).
   */
  public static final Duration DEFAULT_MIN_POLL_INTERVAL = Duration.ofMillis(1);

  /**
   * Default for {@link #pollIdleAfter()}: 1 s, so that a change a second or more keeps the tail
   * polling every {@link #minPollInterval()}.
   */
  public static final Duration DEFAULT_POLL_IDLE_AFTER = Duration.ofSeconds(1);

  /** Default for {@link #reconcileInterval()}: 30 s. */
  public static final Duration DEFAULT_RECONCILE_INTERVAL = Duration.ofSeconds(30);

  /**
   * Default for {@link #captureCheckInterval()} on PostgreSQL: 1 s (one check reads a few indexes
   * of pg_catalog: 0.4 ms for 10 tables, about 20 µs per partition or child,
   * docs/CONFIGURATION.md).
   */
  public static final Duration DEFAULT_PG_CAPTURE_CHECK_INTERVAL = Duration.ofSeconds(1);

  /**
   * Default for {@link #captureCheckInterval()} on MySQL/MariaDB: 10 s (one check reads
   * information_schema: about 100 ms for 16 tables, docs/CONFIGURATION.md).
   */
  public static final Duration DEFAULT_MYSQL_CAPTURE_CHECK_INTERVAL = Duration.ofSeconds(10);

  /**
   * Default for {@link #answerTimeout()}: 10 s, long enough for a busy database's short statements,
   * short enough that mirrors do not go on unwarned for long.
   */
  public static final Duration DEFAULT_ANSWER_TIMEOUT = Duration.ofSeconds(10);

  /** The shortest {@link #answerTimeout()}: the databases tell a session's idle time in seconds. */
  public static final Duration MIN_ANSWER_TIMEOUT = Duration.ofSeconds(1);

  /** The poll schedule's defaults ({@code min_poll_interval}, {@code poll_idle_after}). */
  public SourceConfig(
      String jdbcUrl,
      String user,
      String password,
      boolean installTriggers,
      Duration outboxRetention,
      Duration maxPollInterval,
      Duration reconcileInterval,
      Duration captureCheckInterval,
      List<CachedTable> cachedTables) {
    this(
        jdbcUrl,
        user,
        password,
        installTriggers,
        outboxRetention,
        maxPollInterval,
        reconcileInterval,
        captureCheckInterval,
        cachedTables,
        null,
        null,
        null,
        null);
  }

  /**
   * Some tables cached with a choice of columns, by their name as written in {@code cachedTables}.
   */
  public SourceConfig(
      String jdbcUrl,
      String user,
      String password,
      List<String> cachedTables,
      boolean installTriggers,
      Duration outboxRetention,
      Duration maxPollInterval,
      Duration reconcileInterval,
      Duration captureCheckInterval,
      Map<String, ColumnChoice> columnChoices) {
    this(
        jdbcUrl,
        user,
        password,
        installTriggers,
        outboxRetention,
        maxPollInterval,
        reconcileInterval,
        captureCheckInterval,
        entries(cachedTables, columnChoices));
  }

  /** Every table cached whole. */
  public SourceConfig(
      String jdbcUrl,
      String user,
      String password,
      List<String> cachedTables,
      boolean installTriggers,
      Duration outboxRetention,
      Duration maxPollInterval,
      Duration reconcileInterval,
      Duration captureCheckInterval) {
    this(
        jdbcUrl,
        user,
        password,
        cachedTables,
        installTriggers,
        outboxRetention,
        maxPollInterval,
        reconcileInterval,
        captureCheckInterval,
        Map.of());
  }

  /** Without {@code reconcileInterval}: the default interval. */
  public SourceConfig(
      String jdbcUrl,
      String user,
      String password,
      List<String> cachedTables,
      boolean installTriggers,
      Duration outboxRetention,
      Duration maxPollInterval) {
    this(
        jdbcUrl,
        user,
        password,
        cachedTables,
        installTriggers,
        outboxRetention,
        maxPollInterval,
        null,
        null);
  }

  /** Checks every value and entry, naming its key; fills in the defaults. */
  @JsonCreator
  public SourceConfig {
    if (jdbcUrl == null) {
      throw new IllegalArgumentException("source.jdbc_url must be set");
    }
    if (passwordFile != null) {
      PasswordFile.check(passwordFile, password, user, jdbcUrl);
    }
    DatabaseFamily family = Dialects.forUrl(jdbcUrl); // refuses a URL no family serves
    if (cachedTables == null) { // an IllegalArgumentException: its message is the problem told
      throw new IllegalArgumentException("cached_tables must be set");
    }
    cachedTables = List.copyOf(cachedTables);
    if (cachedTables.isEmpty()) {
      throw new IllegalArgumentException("cached_tables must name at least one table");
    }
    for (int i = 0; i < cachedTables.size(); i++) {
      cachedTables.get(i).choice("cached_tables[" + i + "]");
    }
    outboxRetention = outboxRetention == null ? DEFAULT_OUTBOX_RETENTION : outboxRetention;
    maxPollInterval = maxPollInterval == null ? DEFAULT_MAX_POLL_INTERVAL : maxPollInterval;
    reconcileInterval = reconcileInterval == null ? DEFAULT_RECONCILE_INTERVAL : reconcileInterval;
    positiveOrDisabled("reconcile_interval", reconcileInterval);
    if (captureCheckInterval == null) {
      captureCheckInterval = family.defaultCaptureCheckInterval();
    }
    positiveOrDisabled("capture_check_interval", captureCheckInterval);
    positive("outbox_retention", outboxRetention);
    positive("max_poll_interval", maxPollInterval);
    minPollInterval = minPollInterval == null ? DEFAULT_MIN_POLL_INTERVAL : minPollInterval;
    if (minPollInterval.isNegative()
        || minPollInterval.isZero()
        || minPollInterval.compareTo(maxPollInterval) > 0) {
      throw new IllegalArgumentException(
          "min_poll_interval must be positive and at most max_poll_interval ("
              + maxPollInterval
              + "), was "
              + minPollInterval);
    }
    pollIdleAfter = pollIdleAfter == null ? DEFAULT_POLL_IDLE_AFTER : pollIdleAfter;
    if (pollIdleAfter.isNegative()) {
      throw new IllegalArgumentException(
          "poll_idle_after must be positive or 0 (back off after every empty poll), was "
              + pollIdleAfter);
    }
    answerTimeout = answerTimeout == null ? DEFAULT_ANSWER_TIMEOUT : answerTimeout;
    if (answerTimeout.compareTo(MIN_ANSWER_TIMEOUT) < 0) {
      throw new IllegalArgumentException(
          "answer_timeout must be at least "
              + MIN_ANSWER_TIMEOUT.toSeconds()
              + "s, was "
              + answerTimeout);
    }
  }

  private static void positiveOrDisabled(String key, Duration value) {
    if (value.isNegative()) {
      throw new IllegalArgumentException(key + " must be positive or 0 (disabled), was " + value);
    }
  }

  private static void positive(String key, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(key + " must be positive, was " + value);
    }
  }

  private static List<CachedTable> entries(List<String> tables, Map<String, ColumnChoice> choices) {
    Objects.requireNonNull(tables, "cached_tables must be set");
    for (String t : choices.keySet()) {
      if (!tables.contains(t)) {
        throw new IllegalArgumentException(
            "a column choice names table " + t + ", which is not in cached_tables " + tables);
      }
    }
    return tables.stream()
        .map(t -> CachedTable.of(t, choices.getOrDefault(t, ColumnChoice.ALL)))
        .toList();
  }

  /** The names of the cached tables, as written. */
  public List<String> tableNames() {
    return cachedTables.stream().map(CachedTable::table).toList();
  }

  /**
   * This configuration without the {@code cached_tables} entries that name one of {@code tables}
   * (names without a schema are in {@code defaultSchema}): what a running server installs while
   * those are gone under their names, which an install of every entry could not describe.
   */
  public SourceConfig without(Set<TableId> tables, String defaultSchema) {
    return with(
        cachedTables.stream()
            .filter(t -> !tables.contains(TableId.parse(t.table(), defaultSchema)))
            .toList(),
        answerTimeout);
  }

  /** This configuration with {@code answer_timeout} set to {@code timeout}. */
  public SourceConfig withAnswerTimeout(Duration timeout) {
    return with(cachedTables, timeout);
  }

  /**
   * The database password to connect with now: {@code password_file}'s content when that is set
   * (read at each call: a connection made after the file changed uses the new password), else
   * {@code password}.
   *
   * @throws java.io.UncheckedIOException naming the file when it cannot be read
   */
  @Override
  public String password() {
    return passwordFile == null ? password : PasswordFile.read(passwordFile);
  }

  private SourceConfig with(List<CachedTable> tables, Duration timeout) {
    return new SourceConfig(
        jdbcUrl,
        user,
        password,
        installTriggers,
        outboxRetention,
        maxPollInterval,
        reconcileInterval,
        captureCheckInterval,
        tables,
        minPollInterval,
        pollIdleAfter,
        timeout,
        passwordFile);
  }

  /**
   * How long a background statement that may take long by design (a pruning round's {@code DELETE},
   * the MySQL/MariaDB capture check over {@code information_schema}) may go without an answer:
   * three times {@link #answerTimeout()}.
   */
  public Duration longAnswerTimeout() {
    return answerTimeout.multipliedBy(3);
  }

  /** The columns to cache of {@code table} (as written in {@code cached_tables}). */
  public ColumnChoice columnChoice(String table) {
    for (int i = 0; i < cachedTables.size(); i++) {
      if (cachedTables.get(i).table().equals(table)) {
        return cachedTables.get(i).choice("cached_tables[" + i + "]");
      }
    }
    return ColumnChoice.ALL;
  }

  /**
   * The database, for messages: the JDBC URL with any password in it masked, and the user when the
   * configuration names one apart.
   */
  public String database() {
    return redactedUrl() + (user == null ? "" : " as " + user);
  }

  private String redactedUrl() {
    return jdbcUrl.replaceAll("password=[^&;]*", "password=***");
  }

  @Override
  public String toString() {
    return String.format(
        "SourceConfig[jdbcUrl=%s, user=%s, cachedTables=%s, installTriggers=%s,"
            + " outboxRetention=%s, minPollInterval=%s, maxPollInterval=%s, pollIdleAfter=%s,"
            + " reconcileInterval=%s, captureCheckInterval=%s, answerTimeout=%s]",
        redactedUrl(),
        user,
        cachedTables,
        installTriggers,
        outboxRetention,
        minPollInterval,
        maxPollInterval,
        pollIdleAfter,
        reconcileInterval,
        captureCheckInterval,
        answerTimeout);
  }
}
