package io.tablecast.client.internal;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.tablecast.protocol.Message;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches a welcomed connection for silence. Three heartbeat intervals without a byte make it ask
 * the server: a {@code ping}, and one more interval for any byte to arrive (the {@code pong}, or
 * whatever was queued). Only silence after that reaches the session as an {@link IdleStateEvent}
 * and ends the connection. The client's own pauses (a long garbage collection, a starved CPU) look
 * exactly like a silent server when the timer runs first; the ping tells them apart, at the cost of
 * one more interval before a dead server is given up. Sits before the framing, so that the bytes of
 * one large frame count as life too.
 */
final class ServerLiveness extends IdleStateHandler {
  private static final Logger log = LoggerFactory.getLogger(ServerLiveness.class);

  private final long heartbeatMillis;
  private long lastReadNanos = System.nanoTime();
  private long nonce;

  ServerLiveness(long heartbeatMillis) {
    super(3 * heartbeatMillis, 0, 0, TimeUnit.MILLISECONDS);
    this.heartbeatMillis = heartbeatMillis;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    lastReadNanos = System.nanoTime();
    super.channelRead(ctx, msg);
  }

  @Override
  @SuppressWarnings("FutureReturnValueIgnored") // the check runs on the channel's own loop
  protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent evt) {
    long askedNanos = System.nanoTime();
    log.debug(
        "nothing from {} for 3 heartbeats; asking it with a ping", ctx.channel().remoteAddress());
    ctx.channel() // from the tail of the pipeline: through the framing, which sits after this
        // handler
        .writeAndFlush(new Message.Ping(++nonce))
        .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    ctx.executor()
        .schedule(
            () -> {
              if (ctx.channel().isActive() && lastReadNanos - askedNanos < 0) {
                ctx.fireUserEventTriggered(evt); // still nothing: the session ends the connection
              }
            },
            heartbeatMillis,
            TimeUnit.MILLISECONDS);
  }
}
