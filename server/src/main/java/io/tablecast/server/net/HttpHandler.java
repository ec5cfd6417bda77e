package io.tablecast.server.net;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.server.auth.Authenticator;
import io.tablecast.server.auth.BearerToken;
import io.tablecast.server.console.Console;
import io.tablecast.server.hub.ChangeHub;
import io.tablecast.server.hub.Encoding;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of the port, behind Netty's {@link WebSocketServerProtocolHandler} (which takes
 * {@code /ws} upgrades): {@code GET /health}, {@code GET /metrics} (Prometheus text), the
 * operations console at {@code /console} ({@link ConsoleRoute}), static files under {@code
 * static_dir} at {@code /} and {@code static_client_dir} at {@code /client/}; unknown paths 404,
 * other methods 405. When a WebSocket handshake completes it installs the JSON codec and a {@link
 * ClientSessionHandler} with {@link Encoding#JSON}, and steps aside.
 */
final class HttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

  private static final Logger LOG = LoggerFactory.getLogger(HttpHandler.class);

  /** Everything the HTTP side needs, shared by every connection of a server. */
  record Settings(
      ChangeHub hub,
      Authenticator authenticator,
      ClientSessionHandler.Settings session,
      int maxFrameBytes,
      HealthCheck health,
      Path staticDir,
      Path staticClientDir,
      WebAccess access,
      Console console,
      WebSocketOrigins origins) {}

  static final String PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  static final String CLIENT_PREFIX = "/client/";

  private static final Map<String, String> CONTENT_TYPES =
      Map.of(
          "html", "text/html; charset=utf-8",
          "htm", "text/html; charset=utf-8",
          "js", "text/javascript; charset=utf-8",
          "mjs", "text/javascript; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "json", "application/json",
          "map", "application/json",
          "svg", "image/svg+xml",
          "png", "image/png",
          "ico", "image/x-icon");

  private final Settings settings;

  /**
   * Set once a connection has sent a complete HTTP request (see the handshake deadline in
   * NettyServer).
   */
  static final io.netty.util.AttributeKey<Boolean> SERVED =
      io.netty.util.AttributeKey.valueOf("tablecast.http.served");

  HttpHandler(Settings settings) {
    this.settings = settings;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete) {
      ChannelPipeline p = ctx.pipeline();
      p.addLast("ws-aggregator", new WebSocketFrameAggregator(settings.maxFrameBytes()));
      p.addLast(
          "ws-text", WebSocketTextFrames.INSTANCE); // the hub's encoded JSON, one text frame each
      p.addLast("ws-json", new WebSocketJsonCodec());
      p.addLast(
          "session",
          new ClientSessionHandler(
              settings.hub(), settings.authenticator(), settings.session(), Encoding.JSON));
      p.remove(this);
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
    ctx.channel()
        .attr(SERVED)
        .set(Boolean.TRUE); // a complete request: the handshake deadline is met
    if (!req.decoderResult().isSuccess()) {
      respond(ctx, req, text(HttpResponseStatus.BAD_REQUEST, "malformed HTTP request\n"), false);
      return;
    }
    boolean head = HttpMethod.HEAD.equals(req.method());
    if (!HttpMethod.GET.equals(req.method()) && !head) {
      FullHttpResponse r =
          text(HttpResponseStatus.METHOD_NOT_ALLOWED, req.method() + " is not allowed; use GET\n");
      r.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
      respond(ctx, req, r, head);
      return;
    }
    String path;
    try {
      path = new QueryStringDecoder(req.uri()).path();
    } catch (IllegalArgumentException e) {
      respond(ctx, req, text(HttpResponseStatus.BAD_REQUEST, "malformed URI\n"), head);
      return;
    }
    if (settings.console() != null && Console.handles(path)) {
      ConsoleRoute.serve(ctx, req, path, head, settings.console()); // answers when it can
      return;
    }
    FullHttpResponse response;
    if (path.equals("/health")) {
      response = health();
    } else if (path.equals("/metrics")) {
      response = authorizedForMetrics(req) ? metrics() : metricsUnauthorized();
    } else if (settings.staticClientDir() != null && path.startsWith(CLIENT_PREFIX)) {
      response = file(settings.staticClientDir(), path.substring(CLIENT_PREFIX.length()));
    } else if (settings.staticDir() != null) {
      response = file(settings.staticDir(), path);
    } else {
      response = notFound();
    }
    respond(ctx, req, response, head);
  }

  /**
   * {@code {"status":"UP"}}, or DOWN with its reason: nothing more, since anyone who can reach the
   * port can ask (no table names, positions or client counts; those are for authenticated sessions
   * and {@code /metrics}).
   */
  private FullHttpResponse health() {
    HealthCheck.Report report = settings.health().check();
    ObjectNode json = MessageCodec.jsonMapper().createObjectNode();
    json.put("status", report.status());
    if (report.reason() != null) {
      json.put("reason", report.reason());
    }
    if (report.staleTables() > 0) {
      json.put("staleTables", report.staleTables());
    }
    FullHttpResponse r =
        response(
            report.up() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
            (json + "\n").getBytes(StandardCharsets.UTF_8),
            "application/json");
    r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    return r;
  }

  /**
   * With {@code metrics_token}: whether the request carries it as a bearer token (compared in
   * constant time).
   */
  private boolean authorizedForMetrics(FullHttpRequest req) {
    return BearerToken.allows(
        req.headers().get(HttpHeaderNames.AUTHORIZATION), settings.access().metricsToken());
  }

  private static FullHttpResponse metricsUnauthorized() {
    FullHttpResponse r =
        text(
            HttpResponseStatus.UNAUTHORIZED,
            "/metrics requires the bearer token of metrics_token (Authorization: Bearer ...)\n");
    r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"tablecast metrics\"");
    return r;
  }

  private FullHttpResponse metrics() {
    String text = settings.session().metrics().prometheusText();
    if (text == null) {
      return text(
          HttpResponseStatus.SERVICE_UNAVAILABLE,
          "this server's meter registry is not a Prometheus registry\n");
    }
    FullHttpResponse r =
        response(
            HttpResponseStatus.OK, text.getBytes(StandardCharsets.UTF_8), PROMETHEUS_CONTENT_TYPE);
    r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    return r;
  }

  /**
   * A file under {@code root}: the decoded path is resolved against the root, normalized, and must
   * stay under it, also after following symbolic links; anything else is a 404 (traversal attempts
   * learn nothing). Directories serve their {@code index.html}; there are no listings.
   */
  private static FullHttpResponse file(Path root, String relative) {
    Path file = resolve(root, relative);
    if (file == null) {
      return notFound();
    }
    if (Files.isDirectory(file)) {
      file = file.resolve("index.html");
    }
    try {
      Path real = file.toRealPath();
      if (!real.startsWith(root.toRealPath())
          || !Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
        return notFound();
      }
      // static files are small (a demo page and the JS client): read on the event loop
      byte[] body = Files.readAllBytes(real);
      FullHttpResponse r = response(HttpResponseStatus.OK, body, contentType(real));
      r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
      r.headers().set("X-Content-Type-Options", "nosniff");
      return r;
    } catch (IOException e) {
      LOG.debug("static file {} not served: {}", file, e.toString());
      return notFound();
    }
  }

  /**
   * The file a decoded request path names under {@code root}, or null when it would leave the root.
   */
  static Path resolve(Path root, String decodedPath) {
    if (decodedPath.indexOf('\0') >= 0 || decodedPath.indexOf('\\') >= 0) {
      return null;
    }
    String rel = decodedPath;
    while (rel.startsWith("/")) {
      rel = rel.substring(1);
    }
    try {
      Path base = root.toAbsolutePath().normalize();
      Path p = base.resolve(rel).normalize();
      return p.startsWith(base) ? p : null;
    } catch (InvalidPathException e) {
      return null;
    }
  }

  static String contentType(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    String ext = dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
    return CONTENT_TYPES.getOrDefault(ext, "application/octet-stream");
  }

  private static FullHttpResponse notFound() {
    return text(HttpResponseStatus.NOT_FOUND, "not found\n");
  }

  private static FullHttpResponse text(HttpResponseStatus status, String body) {
    return response(status, body.getBytes(StandardCharsets.UTF_8), "text/plain; charset=utf-8");
  }

  private static FullHttpResponse response(
      HttpResponseStatus status, byte[] body, String contentType) {
    ByteBuf content = Unpooled.wrappedBuffer(body);
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    return r;
  }

  private static void respond(
      ChannelHandlerContext ctx, FullHttpRequest req, FullHttpResponse r, boolean head) {
    if (head) {
      r.content().clear(); // Content-Length stays that of the GET
    }
    boolean keepAlive = HttpUtil.isKeepAlive(req) && req.decoderResult().isSuccess();
    if (keepAlive) {
      r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    } else {
      r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    ChannelFuture f = ctx.writeAndFlush(r);
    if (!keepAlive) {
      f.addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  @SuppressWarnings("FutureReturnValueIgnored") // a close has nothing to report
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug(
        "HTTP connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
