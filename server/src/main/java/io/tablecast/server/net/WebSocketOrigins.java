package io.tablecast.server.net;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;

/**
 * Which web pages may open a WebSocket session: a browser lets a page of any site open a WebSocket
 * to any address it can reach, the server's too, sending the page's origin along ({@code Origin}).
 * Without this check any site a user of the network visited could read every table of a server
 * without an {@code auth} section through that user's browser ("cross-site WebSocket hijacking"). A
 * handshake is accepted without an {@code Origin} (programs: the JavaScript client in Node, the
 * command line, proxies that strip it), from the server's own origin (the page it serves from
 * {@code static_dir}: the origin's host and port are the request's {@code Host}), and from the
 * origins {@code allowed_origins} lists ({@code "*"}: any); any other is answered {@code 403} with
 * the reason, and logged once per origin.
 */
@ChannelHandler.Sharable
public final class WebSocketOrigins extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = RecentEvents.logger(WebSocketOrigins.class);

  /** Origins refused so far, each logged once; bounded, so that a flood cannot grow it. */
  private static final int MAX_LOGGED = 1_000;

  private final WebAccess access;
  private final ServerMetrics metrics;
  private final Set<String> logged = ConcurrentHashMap.newKeySet();

  /**
   * @param access the {@code allowed_origins} of now
   * @param metrics counts each refusal ({@code tablecast.limit.refusals}, limit {@code
   *     allowed_origins})
   */
  WebSocketOrigins(WebAccess access, ServerMetrics metrics) {
    this.access = access;
    this.metrics = metrics;
  }

  /** Whether {@code origin} is an origin: {@code scheme://host[:port]}, http or https. */
  public static boolean isOrigin(String origin) {
    return normalize(origin) != null;
  }

  /**
   * {@code origin} as compared: scheme and host in lower case, without the scheme's default port;
   * null when it is not an origin ({@code scheme://host[:port]}, http or https).
   */
  static String normalize(String origin) {
    try {
      URI u = new URI(origin.trim());
      String scheme = u.getScheme() == null ? null : u.getScheme().toLowerCase(Locale.ROOT);
      boolean web = "http".equals(scheme) || "https".equals(scheme);
      if (!web
          || u.getHost() == null
          || u.getRawUserInfo() != null
          || (u.getRawPath() != null && !u.getRawPath().isEmpty())
          || u.getRawQuery() != null
          || u.getRawFragment() != null) {
        return null;
      }
      int port = u.getPort() == defaultPort(scheme) ? -1 : u.getPort();
      return scheme + "://" + u.getHost().toLowerCase(Locale.ROOT) + (port < 0 ? "" : ":" + port);
    } catch (URISyntaxException e) {
      return null;
    }
  }

  private static int defaultPort(String scheme) {
    return "https".equals(scheme) ? 443 : 80;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof FullHttpRequest req && isWebSocketPath(req.uri())) {
      String origin = req.headers().get(HttpHeaderNames.ORIGIN);
      boolean tls = ctx.pipeline().get(SslHandler.class) != null;
      if (origin != null && !accepted(origin, req.headers().get(HttpHeaderNames.HOST), tls)) {
        ReferenceCountUtil.release(msg);
        refuse(ctx, origin);
        return;
      }
    }
    ctx.fireChannelRead(msg);
  }

  private static boolean isWebSocketPath(String uri) {
    int q = uri.indexOf('?');
    return (q < 0 ? uri : uri.substring(0, q)).equals(NettyServer.WEBSOCKET_PATH);
  }

  /**
   * Whether a page of {@code origin} may open a session on the server reached as {@code host}, over
   * TLS ({@code https} pages) or not ({@code http} pages).
   */
  boolean accepted(String origin, String host, boolean tls) {
    WebAccess.Origins allowed = access.origins();
    if (allowed.any()) {
      return true;
    }
    String o = normalize(origin);
    if (o == null) {
      return false; // "null" (a sandboxed frame, a file), or not an origin at all
    }
    if (allowed.listed().contains(o)) {
      return true;
    }
    if (host == null) {
      return false;
    }
    return o.equals(normalize((tls ? "https" : "http") + "://" + host.trim()));
  }

  private void refuse(ChannelHandlerContext ctx, String origin) {
    metrics.limitRefused("allowed_origins");
    String why =
        "A WebSocket session from a page of "
            + origin
            + " was refused: it is not this server's origin, and allowed_origins does not list it"
            + " (docs/SECURITY.md, Browsers)";
    if (logged.size() < MAX_LOGGED && logged.add(origin)) {
      LOG.warn("{}; further refusals of this origin are not logged", why);
    }
    FullHttpResponse res =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.FORBIDDEN,
            Unpooled.copiedBuffer(why + "\n", StandardCharsets.UTF_8));
    res.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
    res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, res.content().readableBytes());
    ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
  }
}
