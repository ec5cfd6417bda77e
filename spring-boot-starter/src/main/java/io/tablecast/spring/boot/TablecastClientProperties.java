package io.tablecast.spring.boot;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The {@code tablecast.client.*} settings: one per {@code TablecastClient.Builder} option, the
 * mirrors to declare as beans, and how long startup waits for them. Defaults are the client's own
 * ({@code TablecastClient.DEFAULT_*}); {@code TablecastClientPropertiesTest} checks they agree.
 */
@ConfigurationProperties(prefix = "tablecast.client")
public class TablecastClientProperties {

  /**
   * Tablecast servers as host:port (one or more); reconnects go round-robin over all of them.
   * Without servers no client is configured (unless the application defines its own).
   */
  private List<String> servers = new ArrayList<>();

  /**
   * Name of this client in the server's logs and metrics. Default: spring.application.name, else
   * "tablecast-java".
   */
  private String name;

  /** User for password authentication (with password). */
  private String user;

  /** Password for password authentication (with user). */
  private String password;

  /** Signed token (e.g. a JWT), as an alternative to user and password. */
  private String token;

  /** TCP connect timeout. */
  private Duration connectTimeout = Duration.ofSeconds(5);

  /** Largest frame accepted from the server; a batch is a whole transaction. */
  private DataSize maxFrameSize = DataSize.ofMegabytes(256);

  /**
   * Percent of the heap (-Xmx) kept for the application: a mirror whose snapshot would not fit in
   * the rest is refused, naming the table and the memory it needs, instead of an OutOfMemoryError.
   */
  private int heapReservePercent = 20;

  /**
   * How long startup waits for every mirror bean's first snapshot before it fails, naming the
   * tables that are not ready. The application reports ready (ReadinessState.ACCEPTING_TRAFFIC)
   * only after they are.
   */
  private Duration readyTimeout = Duration.ofSeconds(30);

  /**
   * Mirrors to declare as beans, by bean name: tablecast.client.mirrors.NAME.table=schema.table
   * and, optionally, tablecast.client.mirrors.NAME.type=a row class (default: generic rows, maps of
   * column name to value). Inject them as TableMirror&lt;Type&gt; or by name.
   */
  private Map<String, Mirror> mirrors = new LinkedHashMap<>();

  /** Reconnect delays. */
  private final Backoff reconnectBackoff = new Backoff();

  /** TLS to the servers. */
  private final Tls tls = new Tls();

  private final WarmRestart warmRestart = new WarmRestart();

  public List<String> getServers() {
    return servers;
  }

  public void setServers(List<String> servers) {
    this.servers = servers;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getUser() {
    return user;
  }

  public void setUser(String user) {
    this.user = user;
  }

  public String getPassword() {
    return password;
  }

  public void setPassword(String password) {
    this.password = password;
  }

  public String getToken() {
    return token;
  }

  public void setToken(String token) {
    this.token = token;
  }

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  public DataSize getMaxFrameSize() {
    return maxFrameSize;
  }

  public void setMaxFrameSize(DataSize maxFrameSize) {
    this.maxFrameSize = maxFrameSize;
  }

  public int getHeapReservePercent() {
    return heapReservePercent;
  }

  public void setHeapReservePercent(int heapReservePercent) {
    this.heapReservePercent = heapReservePercent;
  }

  public Duration getReadyTimeout() {
    return readyTimeout;
  }

  public void setReadyTimeout(Duration readyTimeout) {
    this.readyTimeout = readyTimeout;
  }

  public Map<String, Mirror> getMirrors() {
    return mirrors;
  }

  public void setMirrors(Map<String, Mirror> mirrors) {
    this.mirrors = mirrors;
  }

  public Backoff getReconnectBackoff() {
    return reconnectBackoff;
  }

  public WarmRestart getWarmRestart() {
    return warmRestart;
  }

  public Tls getTls() {
    return tls;
  }

  /**
   * Reconnect delays: attempt n waits a uniform random time in [0, min(max, min * 2^n)] (capped
   * exponential backoff with full jitter).
   */
  public static class Backoff {

    /** Lower bound of the reconnect backoff. */
    private Duration min = Duration.ofMillis(100);

    /** Upper bound of the reconnect backoff. */
    private Duration max = Duration.ofSeconds(5);

    public Duration getMin() {
      return min;
    }

    public void setMin(Duration min) {
      this.min = min;
    }

    public Duration getMax() {
      return max;
    }

    public void setMax(Duration max) {
      this.max = max;
    }
  }

  /** Mirrors saved to files and started from them (see docs/CLIENT.md, "Warm restart"). */
  public static class WarmRestart {

    /**
     * Directory of the mirror files, one per mirror, created if missing. Without it mirrors are not
     * saved.
     */
    private Path directory;

    /** How often the mirrors are saved, besides when the client closes; at least 1s. */
    private Duration interval = Duration.ofMinutes(5);

    public Path getDirectory() {
      return directory;
    }

    public void setDirectory(Path directory) {
      this.directory = directory;
    }

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }
  }

  /** TLS to the servers (see docs/TLS.md). */
  public static class Tls {

    /**
     * Whether to connect over TLS. Without trusted-cert the JVM's trust store is used (public CAs,
     * or whatever javax.net.ssl.trustStore names).
     */
    private boolean enabled;

    /** PEM certificate(s) to trust instead of the JVM's trust store: a CA or the server's own. */
    private Path trustedCert;

    /** PEM certificate chain presented as client certificate (with client-key). */
    private Path clientCert;

    /** Unencrypted PKCS#8 PEM key of the client certificate (with client-cert). */
    private Path clientKey;

    /**
     * Whether the server certificate must name the host connected to. Turn it off only for tests or
     * when connecting by an address the certificate cannot name.
     */
    private boolean verifyHostname = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Path getTrustedCert() {
      return trustedCert;
    }

    public void setTrustedCert(Path trustedCert) {
      this.trustedCert = trustedCert;
    }

    public Path getClientCert() {
      return clientCert;
    }

    public void setClientCert(Path clientCert) {
      this.clientCert = clientCert;
    }

    public Path getClientKey() {
      return clientKey;
    }

    public void setClientKey(Path clientKey) {
      this.clientKey = clientKey;
    }

    public boolean isVerifyHostname() {
      return verifyHostname;
    }

    public void setVerifyHostname(boolean verifyHostname) {
      this.verifyHostname = verifyHostname;
    }
  }

  /** One mirror declared as a bean. */
  public static class Mirror {

    /** The cached table, schema.table. */
    private String table;

    /**
     * Row type: a record or class mapped by the application's ObjectMapper. Default: generic rows
     * (Map of column name to value).
     */
    private Class<?> type;

    public String getTable() {
      return table;
    }

    public void setTable(String table) {
      this.table = table;
    }

    public Class<?> getType() {
      return type;
    }

    public void setType(Class<?> type) {
      this.type = type;
    }
  }
}
