package io.tablecast.client.internal;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a client pipeline: sends the magic bytes and the hello, hands every decoded
 * message to the {@link ServerSession}, and closes the channel on silence or errors.
 */
final class SessionHandler extends SimpleChannelInboundHandler<Message> {
  private static final Logger log = LoggerFactory.getLogger(SessionHandler.class);

  private final ServerSession session;
  private final Message.Hello hello;
  private final int maxFrameBytes;
  private boolean tlsFailureReported;

  SessionHandler(ServerSession session, Message.Hello hello, int maxFrameBytes) {
    this.session = session;
    this.hello = hello;
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    // a greeting that cannot be written closes the connection, and the client reconnects
    ctx.write(Unpooled.wrappedBuffer(MessageCodec.MAGIC))
        .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    ctx.writeAndFlush(hello).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    ctx.fireChannelActive();
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
    session.onMessage(ctx.channel(), msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    session.disconnected(ctx.channel());
    ctx.fireChannelInactive();
  }

  @Override
  @SuppressWarnings("FutureReturnValueIgnored") // a close has nothing to report
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof SslHandshakeCompletionEvent tls && !tls.isSuccess()) {
      reportTlsFailure(ctx, tls.cause());
      return;
    }
    if (evt instanceof IdleStateEvent) {
      String why =
          "no message from " + ctx.channel().remoteAddress() + " for " + session.idleDescription();
      log.warn("{}; closing the connection", why);
      session.ending(ctx.channel(), why);
      ctx.close();
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  @SuppressWarnings("FutureReturnValueIgnored") // a close has nothing to report
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    for (Throwable c = cause; c != null && c.getCause() != c; c = c.getCause()) {
      if (c instanceof SSLException) {
        reportTlsFailure(ctx, cause);
        return;
      }
      if (c instanceof TooLongFrameException tooLong) {
        session.failedHere(
            ctx.channel(),
            session.welcomedOn(ctx.channel())
                ? FrameLimit.explain(ctx.channel().remoteAddress(), maxFrameBytes, tooLong)
                : FrameLimit.notTablecast(
                    ctx.channel().attr(ClientTls.TARGET).get(),
                    ctx.channel().attr(ServerFirstBytes.SEEN).get()));
        ctx.close();
        return;
      }
    }
    log.warn("connection to {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    session.ending(ctx.channel(), "connection failed: " + cause);
    ctx.close();
  }

  @SuppressWarnings("FutureReturnValueIgnored") // a close has nothing to report
  private void reportTlsFailure(ChannelHandlerContext ctx, Throwable cause) {
    if (!tlsFailureReported) {
      tlsFailureReported = true;
      InetSocketAddress target = ctx.channel().attr(ClientTls.TARGET).get();
      session.failedHere(
          ctx.channel(),
          ClientTls.explain(
              target != null ? target : (InetSocketAddress) ctx.channel().remoteAddress(), cause));
    }
    ctx.close();
  }
}
