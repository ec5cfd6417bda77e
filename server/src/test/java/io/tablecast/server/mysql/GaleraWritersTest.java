package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GaleraWritersTest {

  @Test
  void anIdOfAnotherResidueCameThroughAnotherNode() {
    GaleraWriters.Node second = new GaleraWriters.Node("'b'", 3, 3, 2);
    assertThat(second.otherNode(2)).isFalse();
    assertThat(second.otherNode(5)).isFalse();
    assertThat(second.otherNode(3)).isTrue();
    assertThat(second.otherNode(4)).isTrue();
    // alone in its cluster, or without per-node offsets, every id is this node's
    assertThat(new GaleraWriters.Node("'a'", 1, 3, 2).otherNode(3)).isFalse();
    assertThat(GaleraWriters.Node.NONE.otherNode(3)).isFalse();
  }

  @Test
  void rowsOfAnotherNodeAreCountedOnceAMinuteAndReReadAtMostEveryTenSeconds() {
    GaleraWriters writers = new GaleraWriters();
    List<String> problems = new ArrayList<>();
    GaleraWriters.CaptureProblems counted = (table, kind) -> problems.add(table + " " + kind);
    assertThat(writers.read(List.of(1L, 2L, 3L), () -> List.of("app.t"), counted)).isFalse();
    writers.use(new GaleraWriters.Node("'a'", 2, 2, 1));
    assertThat(writers.read(List.of(1L, 3L), () -> List.of("app.t"), counted)).isFalse();
    assertThat(problems).isEmpty();
    assertThat(writers.read(List.of(5L, 6L), () -> List.of("app.t", "app.u"), counted)).isTrue();
    assertThat(problems).containsExactly("app.t galera_other_node", "app.u galera_other_node");
    // again at once: neither said nor re-read again
    assertThat(writers.read(List.of(8L), () -> List.of("app.t"), counted)).isFalse();
    assertThat(problems).hasSize(2);
  }
}
