package io.tablecast.protocol.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A thread's rows are written into one sink it keeps: each encoding's result is its own array, an
 * encoding within an encoding gets a sink of its own, and a sink a huge row grew is not kept.
 */
class RowSinkTest {
  private static final RowForm FORM =
      new RowForm(
          List.of(
              new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
              new ColumnInfo("name", "text", ColumnKind.STRING)),
          List.of("id"));

  private static ObjectNode row(long id, String name) {
    return JsonNodeFactory.instance.objectNode().put("id", id).put("name", name);
  }

  @Test
  void eachEncodedRowIsAnArrayOfItsOwnThoughTheSinkIsReused() {
    List<byte[]> encoded = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      encoded.add(FORM.encode(row(i, "n".repeat(i * 7))));
      encoded.add(FORM.encodeKey(row(i, "")));
    }
    for (int i = 0; i < 200; i++) {
      assertThat(FORM.toNode(encoded.get(2 * i))).isEqualTo(row(i, "n".repeat(i * 7)));
      assertThat(FORM.keyToNode(encoded.get(2 * i + 1)).get(0).longValue()).isEqualTo(i);
    }
  }

  @Test
  void aSinkBorrowedIsNotLentTwiceAndComesBackEmpty() {
    RowSink first = RowSink.borrow();
    first.write(7);
    RowSink inner = RowSink.borrow();
    assertThat(inner).as("an encoding within an encoding").isNotSameAs(first);
    inner.giveBack();
    first.giveBack();
    RowSink again = RowSink.borrow();
    assertThat(again).isSameAs(first);
    assertThat(again.size()).isZero();
    again.giveBack();
  }

  @Test
  void aSinkAHugeRowGrewIsNotKeptAtThatSize() {
    byte[] huge = FORM.encode(row(1, "x".repeat(1 << 20)));
    assertThat(FORM.toNode(huge).get("name").textValue()).hasSize(1 << 20);
    RowSink s = RowSink.borrow();
    try {
      assertThat(s.capacity()).isLessThanOrEqualTo(64 << 10);
    } finally {
      s.giveBack();
    }
  }

  @Test
  void aRowThatFailsToEncodeGivesTheSinkBack() {
    RowSink kept = RowSink.borrow();
    kept.giveBack();
    assertThatThrownBy(
            () -> FORM.encode(JsonNodeFactory.instance.objectNode().put("name", "no id")))
        .isInstanceOf(IllegalArgumentException.class);
    RowSink after = RowSink.borrow();
    try {
      assertThat(after).as("the thread's sink, given back by the failed encoding").isSameAs(kept);
    } finally {
      after.giveBack();
    }
  }
}
