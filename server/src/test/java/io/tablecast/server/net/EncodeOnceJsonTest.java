package io.tablecast.server.net;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.RowLayouts;
import io.tablecast.server.hub.ChangeHub;
import io.tablecast.server.hub.Encoding;
import io.tablecast.server.hub.Subscriber;
import io.tablecast.server.hub.TestHubSettings;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.tail.CommittedBatch;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The hub encodes a batch once per (table set, encoding) and the WebSocket pipeline frames it: JSON
 * sessions share one text-frame buffer.
 */
class EncodeOnceJsonTest {

  @Test
  void jsonSessionsShareOneEncodedBufferAndBinarySessionsGetCbor() {
    try (ChangeHub hub =
        new ChangeHub(TestHubSettings.of(Duration.ofMinutes(5), 100, 1 << 20, 64L << 20))) {
      hub.install(List.of(new TableImage(table("a"))), java.util.Map.of());
      EmbeddedChannel ws1 = new EmbeddedChannel(WebSocketTextFrames.INSTANCE);
      EmbeddedChannel ws2 = new EmbeddedChannel(WebSocketTextFrames.INSTANCE);
      EmbeddedChannel bin = new EmbeddedChannel();
      List<EmbeddedChannel> all = List.of(ws1, ws2, bin);
      for (EmbeddedChannel ch : all) {
        Subscriber s = hub.register(ch, "c", ch == bin ? Encoding.BINARY : Encoding.JSON);
        // resume at the current position: no snapshot, only `resumed`
        hub.subscribe(s, new Message.Subscribe(List.of("public.a"), hub.epoch(), hub.position()));
      }
      // the three sessions are there and their replays (just `resumed`) are written: batches now go
      // straight to the channels
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  hub.sessionStates().size() == all.size()
                      && hub.sessionStates().stream()
                          .noneMatch(ChangeHub.SessionState::catchingUp));
      // the binary session speaks protocol version 3: its rows are read with the layouts its
      // messages announce (here: `resumed`)
      RowLayouts layouts = new RowLayouts();
      ByteBuf announced;
      while ((announced = bin.readOutbound()) != null) {
        layouts.bind(
            MessageCodec.decodeFrameBody(announced.skipBytes(MessageCodec.LENGTH_FIELD_BYTES)));
        announced.release();
      }
      for (EmbeddedChannel ch : all) {
        releaseAll(ch);
      }
      hub.publish(new CommittedBatch(List.of(insert("public.a", 1, "one")), 0));

      TextWebSocketFrame f1 = ws1.readOutbound();
      TextWebSocketFrame f2 = ws2.readOutbound();
      ByteBuf b = bin.readOutbound();
      try {
        assertThat(f1.text()).isEqualTo(f2.text()).startsWith("{\"type\":\"change_batch\"");
        // one encoding, two retained duplicates of it (each may be wrapped once more by the leak
        // detector when it samples the buffer: compare the buffers beneath all wrappers)
        assertThat(root(f1.content())).isSameAs(root(f2.content()));
        Message.ChangeBatch binary =
            (Message.ChangeBatch)
                layouts.bind(
                    MessageCodec.decodeFrameBody(b.skipBytes(MessageCodec.LENGTH_FIELD_BYTES)));
        assertThat(MessageCodec.encodeJson(binary))
            .isEqualTo(f1.content().toString(StandardCharsets.UTF_8));
      } finally {
        f1.release();
        f2.release();
        b.release();
      }
    }
  }

  private static ByteBuf root(ByteBuf buf) {
    ByteBuf b = buf;
    while (b.unwrap() != null) {
      b = b.unwrap();
    }
    return b;
  }

  private static void releaseAll(EmbeddedChannel ch) {
    List<Object> out = new ArrayList<>();
    Object o;
    while ((o = ch.readOutbound()) != null) {
      out.add(o);
    }
    out.forEach(io.netty.util.ReferenceCountUtil::release);
  }
}
