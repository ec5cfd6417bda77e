package io.tablecast.server.console;

import io.micrometer.core.instrument.MeterRegistry;
import io.tablecast.server.hub.HubView;
import io.tablecast.server.log.RecentEvents;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * The read-only operations console at {@code /console} on the server's port: a page served from the
 * jar ({@link ConsoleAssets}) and the JSON API it polls under {@code /console/api/} ({@code
 * server}, {@code tables}, {@code sessions}, {@code metrics}, {@code errors}; docs/OPERATIONS.md).
 * Every path needs {@link ConsoleAccess}. Independent of the HTTP library: the network layer hands
 * it a path and an {@code Authorization} header and sends the {@link ConsoleReply}.
 *
 * <p>Nothing here waits. The hub's tables and sessions come from {@link HubView}s the hub thread
 * copies when asked; one view serves every request of the next {@link #VIEW_REUSE_MILLIS} (and
 * every request while it is being taken), and a hub busy for longer than {@link #HUB_WAIT_MILLIS}
 * (a huge transaction) gets a 503 instead. The meters and the recent events are read directly.
 */
public final class Console {

  private static final Logger LOG = RecentEvents.logger(Console.class);

  /** Where the console lives. */
  public static final String PATH = "/console";

  private static final String API = PATH + "/api/";

  /** Longest wait for the hub's view before the request is answered 503. */
  static final long HUB_WAIT_MILLIS = 2_000;

  /** How long one view of the hub answers further requests. */
  static final long VIEW_REUSE_MILLIS = 1_000;

  private final Supplier<CompletableFuture<HubView>> views;
  private final MetricsJson metrics;
  private final ConsoleAccess access;
  private final String serverName;
  private final Supplier<String> health;
  private final RecentEvents events;
  private final ConsoleAssets assets = new ConsoleAssets();
  private final long startedMillis = System.currentTimeMillis();
  private final AtomicReference<TakenView> lastView = new AtomicReference<>();

  private record TakenView(CompletableFuture<HubView> view, long atNanos) {}

  /**
   * @param views takes a view of the hub ({@code ChangeHub::view})
   * @param registry the server's meters
   * @param access who may read it
   * @param serverName {@code server_name}
   * @param health what {@code GET /health} says now ({@code UP}, or {@code DOWN: reason})
   * @param events the recent WARN and ERROR lines
   */
  public Console(
      Supplier<CompletableFuture<HubView>> views,
      MeterRegistry registry,
      ConsoleAccess access,
      String serverName,
      Supplier<String> health,
      RecentEvents events) {
    this.views = views;
    this.metrics = new MetricsJson(registry);
    this.access = access;
    this.serverName = serverName;
    this.health = health;
    this.events = events;
  }

  /** Whether {@code path} (decoded, without the query) is the console's. */
  public static boolean handles(String path) {
    return path.equals(PATH) || path.startsWith(PATH + "/");
  }

  /**
   * Answers a GET of {@code path}. Completes on {@code executor} (the connection's event loop) once
   * the credentials are checked and, for the hub's state, the view is taken; never fails.
   *
   * @param authorization the request's {@code Authorization} header, or null
   */
  public CompletableFuture<ConsoleReply> handle(
      String path, String authorization, Executor executor) {
    return access
        .check(authorization)
        .thenComposeAsync(
            verdict -> verdict.allowed() ? route(path, verdict, executor) : refused(verdict),
            executor)
        .exceptionally(e -> failed(path, e))
        .thenApply(reply -> reply.withHeaders(COMMON_HEADERS));
  }

  /**
   * The reply to an allowed request; what depends on the hub's view is rendered on {@code
   * executor}, never on the hub thread that completes the view.
   */
  private CompletableFuture<ConsoleReply> route(
      String path, ConsoleAccess.Verdict verdict, Executor executor) {
    if (!path.startsWith(API)) {
      String name =
          path.equals(PATH) || path.equals(PATH + "/")
              ? "index.html"
              : path.substring(PATH.length() + 1);
      ConsoleReply asset = assets.get(name);
      return done(asset != null ? asset : notFound(path));
    }
    return switch (path.substring(API.length())) {
      case "server" ->
          view()
              .thenApplyAsync(
                  v ->
                      ok(
                          ConsoleJson.server(
                                  v,
                                  serverName,
                                  health.get(),
                                  startedMillis,
                                  verdict.principal(),
                                  access.describe(),
                                  events)
                              .toString()),
                  executor);
      case "tables" ->
          view()
              .thenApplyAsync(
                  v ->
                      ok(
                          ConsoleJson.tables(
                                  v, metrics.read(System.currentTimeMillis()).path("byTable"))
                              .toString()),
                  executor);
      case "sessions" ->
          view().thenApplyAsync(v -> ok(ConsoleJson.sessions(v).toString()), executor);
      case "metrics" -> done(ok(metrics.read(System.currentTimeMillis()).toString()));
      case "errors" -> done(ok(ConsoleJson.errors(events).toString()));
      default -> done(notFound(path));
    };
  }

  /**
   * The hub's view: the one being taken, or one taken less than {@link #VIEW_REUSE_MILLIS} ago,
   * else a new one, bounded by {@link #HUB_WAIT_MILLIS}.
   */
  CompletableFuture<HubView> view() {
    long now = System.nanoTime();
    TakenView last = lastView.get();
    if (last != null
        && (!last.view().isDone()
            || (now - last.atNanos() < TimeUnit.MILLISECONDS.toNanos(VIEW_REUSE_MILLIS)
                && !last.view().isCompletedExceptionally()))) {
      return last.view();
    }
    CompletableFuture<HubView> view = views.get().orTimeout(HUB_WAIT_MILLIS, TimeUnit.MILLISECONDS);
    lastView.set(new TakenView(view, now));
    return view;
  }

  private static ConsoleReply ok(String json) {
    return ConsoleReply.json(200, json);
  }

  private static CompletableFuture<ConsoleReply> refused(ConsoleAccess.Verdict verdict) {
    ConsoleReply reply = ConsoleReply.json(verdict.status(), ConsoleJson.error(verdict.message()));
    return done(
        verdict.status() == 401
            ? reply.withHeader("WWW-Authenticate", ConsoleAccess.CHALLENGE)
            : reply);
  }

  private static ConsoleReply notFound(String path) {
    return ConsoleReply.json(404, ConsoleJson.error("no console page or API at " + path));
  }

  private static ConsoleReply failed(String path, Throwable e) {
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    if (cause instanceof TimeoutException) {
      return ConsoleReply.json(
          503,
          ConsoleJson.error(
              "the hub did not answer within "
                  + HUB_WAIT_MILLIS
                  + " ms (busy with a large transaction?); try again"));
    }
    LOG.warn("console request {} failed: {}", path, cause.toString());
    return ConsoleReply.json(500, ConsoleJson.error("the console failed: " + cause));
  }

  private static CompletableFuture<ConsoleReply> done(ConsoleReply reply) {
    return CompletableFuture.completedFuture(reply);
  }

  /** The headers every reply of the console carries (besides its own). */
  static final Map<String, String> COMMON_HEADERS =
      Map.of("X-Frame-Options", "DENY", "X-Content-Type-Options", "nosniff");
}
