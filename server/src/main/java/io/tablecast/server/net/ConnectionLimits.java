package io.tablecast.server.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.util.AttributeKey;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.server.hub.Subscriber;
import io.tablecast.server.metrics.ServerMetrics;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-server connection limits: {@code max_connections} (a connection over the limit is answered
 * once its protocol is known — binary: {@code Error(LIMIT_EXCEEDED)}, HTTP/WebSocket: {@code 503} —
 * and closed) and {@code idle_timeout} ({@link IdleGuard}).
 */
final class ConnectionLimits {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimits.class);

  /** Set on a connection accepted beyond {@code max_connections}. */
  static final AttributeKey<String> REFUSED = AttributeKey.valueOf("tablecast.refused");

  private final int maxConnections;
  private final ServerMetrics metrics;
  private final AtomicInteger open = new AtomicInteger();

  ConnectionLimits(int maxConnections, ServerMetrics metrics) {
    this.maxConnections = maxConnections;
    this.metrics = metrics;
  }

  /** Counts a new connection until it closes; marks it {@link #REFUSED} when over the limit. */
  void accepted(Channel ch) {
    int n = open.incrementAndGet();
    ch.closeFuture().addListener(f -> open.decrementAndGet());
    if (n > maxConnections) {
      metrics.limitRefused("max_connections");
      ch.attr(REFUSED)
          .set("the server has reached max_connections (" + maxConnections + "); try again later");
      LOG.info(
          "refusing the connection from {}: {} connections open, max_connections {}",
          ch.remoteAddress(),
          n,
          maxConnections);
    }
  }

  /** Connections open now. */
  int open() {
    return open.get();
  }

  /** Whether {@code ch} is refused; if so installs what answers it on this protocol. */
  static boolean refuseBinary(ChannelPipeline pipeline) {
    String why = pipeline.channel().attr(REFUSED).get();
    if (why == null) {
      return false;
    }
    Refusals.binary(pipeline, Message.Error.fatal(ErrorCode.LIMIT_EXCEEDED, why));
    return true;
  }

  /** As {@link #refuseBinary} for HTTP: every request is answered 503 and the connection closed. */
  static boolean refuseHttp(ChannelPipeline pipeline) {
    String why = pipeline.channel().attr(REFUSED).get();
    if (why == null) {
      return false;
    }
    Refusals.http(
        pipeline,
        req -> new Refusals.Answer("text/plain; charset=utf-8", "LIMIT_EXCEEDED: " + why + "\n"));
    return true;
  }

  /**
   * {@code idle_timeout}: closes a connection from which nothing arrived for the timeout. An
   * established session (hello accepted) from which nothing arrived for half of it is sent a
   * protocol {@code ping}, which both reference clients answer with a {@code pong}; so a live
   * client that merely has nothing to say is never closed, while a dead or stalled one is closed
   * with {@code Error(LIMIT_EXCEEDED, "idle_timeout ...")} after the timeout. Connections that are
   * not sessions (plain HTTP keep-alive) are simply closed.
   *
   * <p>The other direction too: a session that was written nothing for two {@code heartbeat}s gets
   * a {@code ping} from its event loop. The hub sends heartbeats, but while it applies a very large
   * transaction it sends nothing for seconds, and clients take three silent heartbeats for a dead
   * server; a ping carries no position, so it may go between any two frames.
   */
  static final class IdleGuard extends ChannelDuplexHandler {
    private final long idleNanos;
    private final long heartbeatNanos;
    private final ServerMetrics metrics;
    private long lastReadNanos = System.nanoTime();
    private long lastWriteNanos = lastReadNanos;
    private long pingedAtRead = -1;
    private long nonce;
    private ScheduledFuture<?> check;

    IdleGuard(long idleTimeoutMillis, long heartbeatMillis, ServerMetrics metrics) {
      this.idleNanos = TimeUnit.MILLISECONDS.toNanos(idleTimeoutMillis);
      this.heartbeatNanos = TimeUnit.MILLISECONDS.toNanos(heartbeatMillis);
      this.metrics = metrics;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      long every = heartbeatNanos > 0 ? Math.min(idleNanos / 4, heartbeatNanos) : idleNanos / 4;
      long tick = Math.max(TimeUnit.MILLISECONDS.toNanos(10), every);
      check =
          ctx.executor().scheduleWithFixedDelay(() -> check(ctx), tick, tick, TimeUnit.NANOSECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
      if (check != null) {
        check.cancel(false);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      if (check != null) {
        check.cancel(false);
      }
      super.channelInactive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
      lastReadNanos = System.nanoTime();
      super.channelRead(ctx, msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
        throws Exception {
      lastWriteNanos = System.nanoTime();
      super.write(ctx, msg, promise);
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a close has nothing to report
    private void check(ChannelHandlerContext ctx) {
      Channel ch = ctx.channel();
      if (!ch.isActive()) {
        check.cancel(false);
        return;
      }
      long now = System.nanoTime();
      long idle = now - lastReadNanos;
      ClientSessionHandler session = ch.pipeline().get(ClientSessionHandler.class);
      boolean established = session != null && session.established();
      if (idle >= idleNanos) {
        check.cancel(false);
        metrics.limitRefused("idle_timeout");
        LOG.info(
            "closing the connection from {}: nothing received for {} ms (idle_timeout)",
            ch.remoteAddress(),
            TimeUnit.NANOSECONDS.toMillis(idle));
        if (established) {
          Subscriber.closeWithError(
              ch,
              Message.Error.fatal(
                  ErrorCode.LIMIT_EXCEEDED,
                  "nothing received for "
                      + TimeUnit.NANOSECONDS.toMillis(idleNanos)
                      + " ms, not even a pong (idle_timeout)"));
        } else {
          ch.close();
        }
      } else if (established && idle >= idleNanos / 2 && pingedAtRead != lastReadNanos) {
        pingedAtRead = lastReadNanos; // one ping per silence
        // negative nonces: the server's idle pings; one that cannot be written fails the session
        ch.writeAndFlush(new Message.Ping(--nonce))
            .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
      } else if (established && heartbeatNanos > 0 && now - lastWriteNanos >= 2 * heartbeatNanos) {
        // the hub is busy: the client must not think us dead
        ch.writeAndFlush(new Message.Ping(--nonce))
            .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
      }
    }
  }
}
