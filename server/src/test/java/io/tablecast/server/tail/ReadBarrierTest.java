package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The tail's side of read-your-writes: which read answers a sync request, and when. */
class ReadBarrierTest {

  @Test
  void aRequestIsAnsweredByTheFirstReadThatBeganAfterItOnceItsBatchIsDelivered() {
    ReadBarrier barrier = new ReadBarrier();
    barrier.beforeRead(); // a read begins
    CompletableFuture<Void> during = barrier.request(); // a writer commits and asks meanwhile
    assertThat(barrier.lastReadAnswers()).isFalse();
    barrier.delivered(); // that read began before the commit: it answers nothing
    assertThat(during).isNotDone();
    assertThat(barrier.waiting()).isEqualTo(1);

    barrier.beforeRead(); // the next read sees the commit
    CompletableFuture<Void> later = barrier.request();
    assertThat(barrier.lastReadAnswers()).isTrue();
    assertThat(during).as("answered only once the read's batch is in the sink").isNotDone();
    barrier.delivered();
    assertThat(during).isCompleted();
    assertThat(later).as("made after that read began").isNotDone();

    barrier.beforeRead();
    barrier.delivered();
    assertThat(later).isCompleted();
    assertThat(barrier.waiting()).isZero();
  }

  @Test
  void aReadThatFailedAnswersNothing() {
    ReadBarrier barrier = new ReadBarrier();
    CompletableFuture<Void> request = barrier.request();
    barrier.beforeRead(); // the read fails: the tail never says delivered
    assertThat(request).isNotDone();
    barrier.beforeRead(); // the retry succeeds
    barrier.delivered();
    assertThat(request).isCompleted();
  }

  @Test
  void aRequestWakesTheTailWaitingBetweenReadsAndOnlyANewOneDoes() throws Exception {
    ReadBarrier barrier = new ReadBarrier();
    barrier.request();
    barrier.beforeRead(); // covers that request: waiting is not cut short by it
    long t0 = System.nanoTime();
    barrier.await(TimeUnit.MILLISECONDS.toNanos(50));
    assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));

    Thread tail =
        new Thread(
            () -> {
              try {
                barrier.await(Long.MAX_VALUE); // an idle tail between two reads
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    tail.start();
    barrier.request();
    tail.join(Duration.ofSeconds(30).toMillis());
    assertThat(tail.isAlive()).as("the waiting tail woke up for the new request").isFalse();
  }
}
