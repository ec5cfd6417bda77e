package io.tablecast.server.net;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.AttributeKey;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.ProtocolException;
import io.tablecast.server.auth.Admission;
import io.tablecast.server.auth.AuthenticationException;
import io.tablecast.server.auth.Authenticator;
import io.tablecast.server.auth.Principal;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.hub.ChangeHub;
import io.tablecast.server.hub.Encoding;
import io.tablecast.server.hub.Subscriber;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * One client session, binary or WebSocket (the transport's codec turns frames into {@link Message}s
 * before this handler and messages back into frames after it; the {@link Encoding} tells the hub
 * how to encode batches for this session): enforces the handshake (hello first, the current
 * protocol version, within the handshake deadline), answers pings, accepts (and ignores) pongs,
 * hands subscriptions to the {@link ChangeHub}, and turns bad frames into {@code BAD_FRAME} errors
 * that close only this connection.
 *
 * <p>Slow-consumer policy is the hub's ({@link Subscriber#send}, {@code SlowConsumerPolicy}): it
 * checks {@code slow_consumer.max_pending_bytes} before every write, so a client that stays
 * unwritable cannot grow the server's memory beyond that limit and never slows the other sessions,
 * while one frame larger than the limit (a single huge row, written at the client's pace) still
 * gets through. This handler tells the hub when the channel is writable again.
 */
final class ClientSessionHandler extends SimpleChannelInboundHandler<Message> {

  private static final Logger LOG = RecentEvents.logger(ClientSessionHandler.class);

  /** Settings shared by every session of a server. */
  record Settings(
      String serverName, long heartbeatMillis, long handshakeTimeoutMillis, ServerMetrics metrics) {
    Settings(String serverName, long heartbeatMillis, long handshakeTimeoutMillis) {
      this(serverName, heartbeatMillis, handshakeTimeoutMillis, ServerMetrics.NOOP);
    }
  }

  private final ChangeHub hub;

  /** What admitted the session on a channel, once it was admitted. */
  static final AttributeKey<Admission> ADMISSION = AttributeKey.valueOf("tablecast.admission");

  private final Authenticator authenticator;
  private final Settings settings;
  private Subscriber subscriber;
  private boolean failed;

  /**
   * Set (on the event loop) when the session failed or its channel closed; read by the
   * authenticator's thread so that a check still queued for a connection that is gone (e.g. closed
   * by the handshake deadline) is skipped instead of costing a PBKDF2 run.
   */
  private volatile boolean gone;

  private ScheduledFuture<?> handshakeDeadline;

  /** Most messages buffered while the hello's credentials are being verified. */
  static final int MAX_MESSAGES_BEFORE_WELCOME = 64;

  /** True while the authenticator works; messages then wait in {@link #whileAuthenticating}. */
  private boolean authenticating;

  private final java.util.ArrayDeque<Message> whileAuthenticating = new java.util.ArrayDeque<>();
  private final Encoding encoding;

  ClientSessionHandler(ChangeHub hub, Authenticator authenticator, Settings settings) {
    this(hub, authenticator, settings, Encoding.BINARY);
  }

  ClientSessionHandler(
      ChangeHub hub, Authenticator authenticator, Settings settings, Encoding encoding) {
    this.encoding = encoding;
    this.hub = hub;
    this.authenticator = authenticator;
    this.settings = settings;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    handshakeDeadline =
        ctx.executor()
            .schedule(
                () -> {
                  if (subscriber == null && !failed) {
                    if (authenticating) {
                      // the hello came, its check still waits for the authenticator's pool
                      fail(
                          ctx,
                          ErrorCode.INTERNAL,
                          "the server is too busy to check credentials within "
                              + settings.handshakeTimeoutMillis()
                              + " ms; retry later");
                    } else {
                      fail(
                          ctx,
                          ErrorCode.PROTOCOL_VIOLATION,
                          "no hello received within "
                              + settings.handshakeTimeoutMillis()
                              + " ms of connecting");
                    }
                  }
                },
                settings.handshakeTimeoutMillis(),
                TimeUnit.MILLISECONDS);
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
    if (failed) {
      return;
    }
    if (authenticating) {
      // nothing of this client is processed before the verdict; frames already read are kept in
      // order
      if (whileAuthenticating.size() >= MAX_MESSAGES_BEFORE_WELCOME) {
        fail(
            ctx,
            ErrorCode.PROTOCOL_VIOLATION,
            "more than " + MAX_MESSAGES_BEFORE_WELCOME + " messages sent before the welcome");
      } else {
        whileAuthenticating.add(msg);
      }
      return;
    }
    if (subscriber == null) {
      if (!(msg instanceof Message.Hello hello)) {
        fail(
            ctx,
            ErrorCode.PROTOCOL_VIOLATION,
            "expected hello as the first message, got " + msg.type().jsonName());
        return;
      }
      hello(ctx, hello);
      return;
    }
    if (msg instanceof Message.Subscribe subscribe) {
      hub.subscribe(subscriber, subscribe);
    } else if (msg instanceof Message.Sync sync) {
      hub.sync(subscriber, sync.id());
    } else if (msg instanceof Message.Fetch fetch) {
      hub.fetch(subscriber, fetch);
    } else if (msg instanceof Message.Ping ping) {
      // a pong that cannot be written fails the session like a hub write (exceptionCaught)
      ctx.writeAndFlush(new Message.Pong(ping.nonce()))
          .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    } else if (msg instanceof Message.Pong) {
      // the answer to a ping the hub sent while the session waited for its snapshot: reading
      // it is all that matters, nothing else to do
    } else if (msg instanceof Message.Hello) {
      fail(ctx, ErrorCode.PROTOCOL_VIOLATION, "hello may be sent only once, as the first message");
    } else {
      fail(
          ctx,
          ErrorCode.PROTOCOL_VIOLATION,
          msg.type().jsonName()
              + " is a server message; clients may send hello, subscribe, sync, fetch, ping and pong");
    }
  }

  private void hello(ChannelHandlerContext ctx, Message.Hello hello) {
    if (hello.protocolVersion() < Message.OLDEST_PROTOCOL_VERSION
        || hello.protocolVersion() > Message.PROTOCOL_VERSION) {
      fail(
          ctx,
          ErrorCode.UNSUPPORTED_VERSION,
          "this server speaks protocol versions "
              + Message.OLDEST_PROTOCOL_VERSION
              + " to "
              + Message.PROTOCOL_VERSION
              + ", the client sent version "
              + hello.protocolVersion());
      return;
    }
    // verification may take ~100 ms (PBKDF2): it runs on the authenticator's executor, the
    // channel stops reading, and the handshake continues on the event loop with the verdict
    authenticating = true;
    ctx.channel().config().setAutoRead(false);
    long rules = authenticator.generation();
    CompletableFuture<Verdict> verdict;
    try {
      verdict =
          CompletableFuture.supplyAsync(
              () -> {
                if (gone || !ctx.channel().isActive()) {
                  throw new CancellationException(
                      "the connection closed before its credentials were checked");
                }
                Principal p = authenticator.authenticate(hello);
                return new Verdict(p, authenticator.authorize(p), rules);
              },
              authenticator.executor());
    } catch (RejectedExecutionException e) {
      authenticating = false;
      fail(ctx, ErrorCode.INTERNAL, "the server is too busy to check credentials; retry later");
      return;
    }
    // handle(), not whenComplete(): the stage it returns fails only when the handshake's
    // continuation throws (run right here when the verdict came at once), and that failure must
    // reach exceptionCaught rather than vanish in an unread future
    verdict
        .handle(
            (v, error) -> {
              if (ctx.executor().inEventLoop()) {
                authenticated(ctx, hello, v, error);
              } else {
                ctx.executor().execute(() -> authenticated(ctx, hello, v, error));
              }
              return null;
            })
        .exceptionally(
            failure -> {
              ctx.pipeline()
                  .fireExceptionCaught(
                      failure instanceof CompletionException && failure.getCause() != null
                          ? failure.getCause()
                          : failure);
              return null;
            });
  }

  /** The outcome of {@link Authenticator#authenticate} and {@link Authenticator#authorize}. */
  private record Verdict(Principal principal, SessionPolicy policy, long rules) {}

  /** Continues the handshake with the verdict, on the event loop. */
  private void authenticated(
      ChannelHandlerContext ctx, Message.Hello hello, Verdict verdict, Throwable error) {
    authenticating = false;
    if (failed || !ctx.channel().isActive()) {
      whileAuthenticating.clear();
      return;
    }
    if (error != null) {
      Throwable cause =
          error instanceof CompletionException && error.getCause() != null
              ? error.getCause()
              : error;
      whileAuthenticating.clear();
      if (cause instanceof SecurityException) {
        settings
            .metrics()
            .authFailed(cause instanceof AuthenticationException a ? a.reason() : "rejected");
        fail(ctx, ErrorCode.AUTHENTICATION_FAILED, cause.getMessage());
      } else {
        LOG.error(
            "authenticating the client at {} failed unexpectedly",
            ctx.channel().remoteAddress(),
            cause);
        fail(ctx, ErrorCode.INTERNAL, "authentication failed on the server; retry later");
      }
      return;
    }
    // kept before the rules' generation is read: rules replaced after that read find it among
    // the sessions they look at, and rules replaced before it refuse the verdict here
    ctx.channel()
        .attr(ADMISSION)
        .set(
            new Admission(
                verdict.principal(),
                hello.token() != null && !hello.token().isBlank(),
                verdict.policy()));
    if (verdict.rules() != authenticator.generation()) {
      ctx.channel().attr(ADMISSION).set(null);
      whileAuthenticating.clear(); // checked under rules replaced meanwhile: not admitted by them
      fail(
          ctx,
          ErrorCode.AUTHENTICATION_FAILED,
          "the server's access rules changed while the credentials were checked: connect again");
      return;
    }
    String principal = verdict.principal().name();
    if (handshakeDeadline != null) {
      handshakeDeadline.cancel(false);
    }
    // Welcome is written here, on the event loop, before the hub knows the session: every
    // later hub write is queued after it.
    ctx.writeAndFlush(
            new Message.Welcome(
                hello.protocolVersion(), // the client's: the version this session speaks
                settings.serverName(),
                hub.epoch(),
                hub.position(),
                settings.heartbeatMillis()))
        .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    String name = hello.clientName() == null ? "unnamed" : hello.clientName();
    // a binary session of version 2 gets its rows as maps; JSON is the same in both versions
    Encoding sessionEncoding =
        encoding.isBinary() ? Encoding.binary(hello.protocolVersion()) : encoding;
    subscriber = hub.register(ctx.channel(), name, sessionEncoding, principal, verdict.policy());
    settings.metrics().clientConnected();
    LOG.info(
        "client connected: {} from {} over {} protocol version {} (principal {})",
        name,
        ctx.channel().remoteAddress(),
        encoding == Encoding.JSON ? "WebSocket" : "TCST",
        hello.protocolVersion(),
        principal);
    while (!whileAuthenticating.isEmpty() && !failed) {
      channelRead0(ctx, whileAuthenticating.poll());
    }
    if (!failed) {
      ctx.channel().config().setAutoRead(true);
    }
  }

  /** Whether the hello was accepted (the session is registered with the hub). */
  boolean established() {
    return subscriber != null && !failed;
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable() && subscriber != null) {
      hub.writable(subscriber); // sends what was coalesced while it was unwritable
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    gone = true;
    if (handshakeDeadline != null) {
      handshakeDeadline.cancel(false);
    }
    if (subscriber != null) {
      hub.unregister(subscriber);
      settings.metrics().clientDisconnected();
      LOG.info(
          "client disconnected: {} from {}",
          subscriber.clientName(),
          ctx.channel().remoteAddress());
    }
    ctx.fireChannelInactive();
  }

  @Override
  @SuppressWarnings("FutureReturnValueIgnored") // a close has nothing to report
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (failed) {
      return;
    }
    if (cause instanceof TooLongFrameException) {
      fail(ctx, ErrorCode.BAD_FRAME, "frame too long: " + cause.getMessage());
    } else if (cause instanceof DecoderException && cause.getCause() instanceof ProtocolException) {
      fail(ctx, ErrorCode.BAD_FRAME, cause.getCause().getMessage());
    } else if (cause instanceof DecoderException) {
      fail(ctx, ErrorCode.BAD_FRAME, "undecodable frame: " + cause.getMessage());
    } else if (cause instanceof IOException || cause instanceof PrematureChannelClosureException) {
      // the peer went away, also in the middle of a fragmented WebSocket message: a disconnect
      LOG.debug("connection error from {}: {}", ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    } else {
      LOG.error(
          "unexpected failure on the connection from {}", ctx.channel().remoteAddress(), cause);
      fail(ctx, ErrorCode.INTERNAL, "unexpected server failure: " + cause);
    }
  }

  /** The access rules changed and no longer admit this session ({@link NettyServer#withdraw}). */
  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof Admission.Withdrawn w) {
      if (!failed) {
        fail(ctx, ErrorCode.AUTHENTICATION_FAILED, w.reason());
      }
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  private void fail(ChannelHandlerContext ctx, ErrorCode code, String message) {
    failed = true;
    gone = true;
    ctx.channel().config().setAutoRead(false);
    LOG.info("closing the connection from {}: {} {}", ctx.channel().remoteAddress(), code, message);
    Subscriber.closeWithError(ctx.channel(), Message.Error.fatal(code, message));
  }
}
