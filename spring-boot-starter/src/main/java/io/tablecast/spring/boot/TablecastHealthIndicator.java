package io.tablecast.spring.boot;

import io.tablecast.client.TableMirror;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The client's health ({@code /actuator/health/tablecast}): UP when it is connected (or no
 * connection event was heard yet) and every mirror bean is ready and follows its table; DOWN
 * otherwise. Details: {@code connected}, {@code server}, {@code lastDisconnect}, {@code
 * lastConnectFailure} (until a server welcomes the client), {@code lastConnectionError}, and per
 * mirror bean its {@code table}, {@code ready}, {@code rows}, {@code position}, {@code lagMillis}
 * once a transaction came and, when stale, {@code stale} (the reason) or, when refused, {@code
 * error}.
 *
 * <p>A disconnected client still answers from its mirrors (they keep their rows and resume), but
 * they no longer follow their tables: DOWN says so. To take an instance out of traffic for it, add
 * {@code tablecast} to the readiness group ({@code
 * management.endpoint.health.group.readiness.include=readinessState,tablecast}).
 */
public class TablecastHealthIndicator implements HealthIndicator {
  private final MirrorBeans mirrors;
  private final ClientActivity activity;

  TablecastHealthIndicator(MirrorBeans mirrors, ClientActivity activity) {
    this.mirrors = mirrors;
    this.activity = activity;
  }

  @Override
  public Health health() {
    Boolean connected = activity.connected();
    boolean up = !Boolean.FALSE.equals(connected);
    Map<String, Object> byName = new LinkedHashMap<>();
    for (Map.Entry<String, TableMirror<?>> e : mirrors.byName().entrySet()) {
      TableMirror<?> mirror = e.getValue();
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("table", mirror.table());
      boolean ready = mirror.isReady();
      details.put("ready", ready);
      details.put("rows", mirror.size());
      details.put("position", mirror.position());
      long lag = mirror.lagMillis();
      if (lag >= 0) {
        details.put("lagMillis", lag);
      }
      String stale = mirror.staleReason();
      if (stale != null) {
        details.put("stale", stale);
      }
      String refusal = ready ? null : activity.refusal(mirror.table());
      if (refusal != null) {
        details.put("error", refusal);
      }
      up &= ready && stale == null;
      byName.put(e.getKey(), details);
    }
    Health.Builder health = up ? Health.up() : Health.down();
    health.withDetail("connected", connected == null ? "unknown" : connected);
    putIfSet(health, "server", activity.server());
    putIfSet(health, "lastDisconnect", activity.lastDisconnect());
    putIfSet(health, "lastConnectFailure", activity.lastConnectFailure());
    putIfSet(health, "lastConnectionError", activity.lastConnectionError());
    return health.withDetail("mirrors", byName).build();
  }

  private static void putIfSet(Health.Builder health, String key, String value) {
    if (value != null) {
      health.withDetail(key, value);
    }
  }
}
