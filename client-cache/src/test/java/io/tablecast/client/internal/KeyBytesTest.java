package io.tablecast.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every kind of normalized key is read back equal, and bytes that are not a key are refused. */
class KeyBytesTest {

  private static Object roundTrip(Object key) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    KeyBytes.write(key, out);
    ByteBuffer in = ByteBuffer.wrap(out.toByteArray());
    Object back = KeyBytes.read(in);
    assertThat(in.hasRemaining()).as("the whole key read").isFalse();
    return back;
  }

  @Test
  void everyNormalizedKeyIsReadBackEqual() {
    for (Object key :
        List.of(
            42L,
            -1L,
            Long.MIN_VALUE,
            "",
            "naïve ключ",
            new BigInteger("123456789012345678901234567890"),
            true,
            false,
            List.of(7L, "a", new BigInteger("-98765432109876543210"), false))) {
      Object back = roundTrip(key);
      assertThat(back).isEqualTo(key);
      if (!(key instanceof List)) {
        assertThat(back).hasSameClassAs(key);
      }
    }
    assertThat(roundTrip(RowKeys.fromUser(List.of(1, "x"), 2)))
        .isEqualTo(RowKeys.fromUser(List.of(1, "x"), 2));
  }

  @Test
  void whatIsNotAKeyIsRefused() {
    assertThatThrownBy(() -> KeyBytes.write(1.5, new ByteArrayOutputStream()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a normalized key: 1.5");
    assertThatThrownBy(() -> KeyBytes.read(ByteBuffer.wrap(new byte[] {9})))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tag 9");
    assertThatThrownBy(() -> KeyBytes.read(ByteBuffer.wrap(new byte[] {2, 0, 0, 0, 9, 'a'})))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a part of 9 bytes");
  }
}
