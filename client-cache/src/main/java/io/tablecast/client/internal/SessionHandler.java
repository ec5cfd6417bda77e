package io.tablecast.client.internal;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a client pipeline: sends the magic bytes and the hello, hands every
 * decoded message to the {@link ClientRuntime}, and closes the channel on silence or errors.
 */
final class SessionHandler extends SimpleChannelInboundHandler<Message> {
  private static final Logger log = LoggerFactory.getLogger(SessionHandler.class);

  private final ClientRuntime runtime;
  private final Message.Hello hello;
  private boolean tlsFailureReported;

  SessionHandler(ClientRuntime runtime, Message.Hello hello) {
    this.runtime = runtime;
    this.hello = hello;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ctx.write(Unpooled.wrappedBuffer(MessageCodec.MAGIC));
    ctx.writeAndFlush(hello);
    ctx.fireChannelActive();
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
    runtime.onMessage(ctx.channel(), msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    runtime.onDisconnected(ctx.channel());
    ctx.fireChannelInactive();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof io.netty.handler.ssl.SslHandshakeCompletionEvent tls && !tls.isSuccess()) {
      reportTlsFailure(ctx, tls.cause());
      return;
    }
    if (evt instanceof IdleStateEvent) {
      log.warn("no message from {} for {}; closing the connection", ctx.channel().remoteAddress(),
          runtime.idleDescription());
      ctx.close();
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    for (Throwable c = cause; c != null && c.getCause() != c; c = c.getCause()) {
      if (c instanceof javax.net.ssl.SSLException) {
        reportTlsFailure(ctx, cause);
        return;
      }
    }
    log.warn("connection to {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }

  private void reportTlsFailure(ChannelHandlerContext ctx, Throwable cause) {
    if (!tlsFailureReported) {
      tlsFailureReported = true;
      runtime.onTlsFailure(ctx.channel(), cause);
    }
    ctx.close();
  }
}
