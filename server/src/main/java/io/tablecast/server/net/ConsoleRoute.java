package io.tablecast.server.net;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.tablecast.server.console.Console;
import io.tablecast.server.console.ConsoleReply;

/**
 * Hands the {@code /console} requests of a connection to the {@link Console} and writes its reply
 * when it comes (after a password check on the authenticator's pool, or a view of the hub): the
 * event loop never waits. The connection reads nothing more meanwhile, so that pipelined requests
 * are answered in order.
 */
final class ConsoleRoute {

  private ConsoleRoute() {}

  /** Answers {@code req} (a GET or HEAD of a console path) later; the request may be released. */
  @SuppressWarnings("FutureReturnValueIgnored") // the reply's write reports failures to the channel
  static void serve(
      ChannelHandlerContext ctx, FullHttpRequest req, String path, boolean head, Console console) {
    boolean keepAlive = HttpUtil.isKeepAlive(req);
    String authorization = req.headers().get(HttpHeaderNames.AUTHORIZATION);
    Channel channel = ctx.channel();
    channel.config().setAutoRead(false);
    console
        .handle(path, authorization, ctx.executor())
        .thenAccept(
            reply -> {
              FullHttpResponse r = response(reply, head);
              r.headers()
                  .set(
                      HttpHeaderNames.CONNECTION,
                      keepAlive ? HttpHeaderValues.KEEP_ALIVE : HttpHeaderValues.CLOSE);
              if (keepAlive) {
                ctx.writeAndFlush(r).addListener(f -> channel.config().setAutoRead(true));
              } else {
                ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
              }
            });
  }

  private static FullHttpResponse response(ConsoleReply reply, boolean head) {
    FullHttpResponse r =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(reply.status()),
            head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(reply.body()));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, reply.body().length);
    reply.headers().forEach((name, value) -> r.headers().set(name, value));
    return r;
  }
}
