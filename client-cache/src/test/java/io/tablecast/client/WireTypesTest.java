package io.tablecast.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.ErrorCode;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The API's own types name every wire value: a kind or code added to the protocol fails here first.
 */
class WireTypesTest {

  @Test
  void everyColumnKindHasTheColumnTypeOfItsName() {
    for (ColumnKind kind : ColumnKind.values()) {
      assertThat(WireTypes.type(kind).name()).isEqualTo(kind.name());
    }
    assertThat(ColumnType.values()).hasSameSizeAs(ColumnKind.values());
    assertThat(
            WireTypes.columns(
                List.of(new ColumnInfo("price", "decimal(10,2)", ColumnKind.DECIMAL))))
        .containsExactly(new Column("price", "decimal(10,2)", ColumnType.DECIMAL));
  }

  @Test
  void everyErrorCodeHasTheServerErrorOfItsName() {
    for (ErrorCode code : ErrorCode.values()) {
      assertThat(WireTypes.serverError(code).name()).isEqualTo(code.name());
    }
    assertThat(Arrays.stream(ServerError.values()).map(Enum::name))
        .containsExactlyElementsOf(Arrays.stream(ErrorCode.values()).map(Enum::name).toList());
    assertThat(WireTypes.serverError(null)).isNull();
  }
}
