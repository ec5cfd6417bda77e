package io.tablecast.server.net;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.netty.BinaryFraming;
import io.tablecast.server.hub.Subscriber;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * Answering a connection the server does not serve now ({@code max_connections} reached, or the
 * server still starting), once its protocol is known, and closing it: a binary client gets one
 * fatal {@code error} frame, every HTTP request a {@code 503} with {@code Retry-After: 1}.
 */
final class Refusals {
  private Refusals() {}

  /** What an HTTP request is answered: its media type and body. */
  record Answer(String contentType, String body) {}

  /**
   * Installs, on a connection whose magic was just read, what writes {@code error} once the
   * protocol detector has been removed (after the caller returns) and then closes.
   */
  static void binary(ChannelPipeline pipeline, Message.Error error) {
    BinaryFraming.addTo(pipeline, 1024);
    pipeline.channel().config().setAutoRead(false);
    pipeline
        .channel()
        .eventLoop()
        .execute(() -> Subscriber.closeWithError(pipeline.channel(), error));
  }

  /** Installs what answers every HTTP request {@code 503} with {@code answer}'s, and closes. */
  static void http(ChannelPipeline pipeline, Function<FullHttpRequest, Answer> answer) {
    pipeline.addLast("http-codec", new HttpServerCodec());
    pipeline.addLast(
        "http-aggregator", new HttpObjectAggregator(NettyServer.HTTP_MAX_REQUEST_BYTES));
    pipeline.addLast(
        "refuse",
        new SimpleChannelInboundHandler<FullHttpRequest>() {
          @Override
          protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            Answer a = answer.apply(req);
            byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
            FullHttpResponse r =
                new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1,
                    HttpResponseStatus.SERVICE_UNAVAILABLE,
                    Unpooled.wrappedBuffer(body));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, a.contentType());
            r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
            r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
            r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            r.headers().set(HttpHeaderNames.RETRY_AFTER, "1");
            ctx.channel().config().setAutoRead(false);
            ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
          }

          @Override
          @SuppressWarnings("FutureReturnValueIgnored") // a close has nothing to report
          public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
          }
        });
  }
}
