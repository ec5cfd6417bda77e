package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How a statement given up for its answer is told from any other database error. */
class BoundedAnswersTest {

  @Test
  void aStatementGivenUpForItsAnswerIsSaidSoWithTheSetting() {
    // as pgjdbc reports it: an I/O error whose cause is the socket's read timeout
    SQLException timedOut =
        new SQLException(
            "An I/O error occurred while sending to the backend.",
            "08006",
            new IOException(new SocketTimeoutException("Read timed out")));
    SQLException said =
        BoundedAnswers.sayingUnanswered(timedOut, "the capture's install", Duration.ofSeconds(32));
    assertThat((Throwable) said) // an SQLException is an Iterable too
        .hasMessageStartingWith("the database did not answer the capture's install within 32 s")
        .hasMessageContaining("source.answer_timeout")
        .hasMessageEndingWith("An I/O error occurred while sending to the backend.")
        .hasCause(timedOut);
    assertThat(said.getSQLState()).isEqualTo("08006");
  }

  @Test
  void anyOtherErrorIsLeftAsItIs() {
    SQLException denied = new SQLException("permission denied for schema app", "42501");
    Throwable left =
        BoundedAnswers.sayingUnanswered(denied, "the capture's install", Duration.ofSeconds(32));
    assertThat(left).isSameAs(denied);
  }
}
