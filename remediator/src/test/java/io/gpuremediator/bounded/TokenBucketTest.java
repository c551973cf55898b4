package io.gpuremediator.bounded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The bucket of the API throttle, the client rate and the refusals' Events, on a clock the test moves. */
class TokenBucketTest {
  private final AtomicLong nanos = new AtomicLong();

  @Test
  void givesTheBurstAtOnceThenOneTokenPerIntervalOfTheRate() {
    TokenBucket bucket = new TokenBucket(10, 3, nanos::get);
    assertThat(bucket.tryTake()).isTrue();
    assertThat(bucket.tryTake()).isTrue();
    assertThat(bucket.tryTake()).isTrue();
    assertThat(bucket.tryTake()).isFalse();
    nanos.addAndGet(100_000_000); // a tenth of a second: one token at 10 a second
    assertThat(bucket.tryTake()).isTrue();
    assertThat(bucket.tryTake()).isFalse();
  }

  @Test
  void reservationsQueueInOrderEachAnIntervalLaterThanTheLast() {
    TokenBucket bucket = new TokenBucket(10, 1, nanos::get);
    assertThat(bucket.reserve()).isZero();
    assertThat(bucket.reserve()).isEqualTo(100_000_000);
    assertThat(bucket.reserve()).isEqualTo(200_000_000);
    nanos.addAndGet(1_000_000_000); // long idle: the bucket holds its burst, no more
    assertThat(bucket.reserve()).isZero();
    assertThat(bucket.reserve()).isEqualTo(100_000_000);
  }

  @Test
  void tokensKeptForReservationsAreNotTakenByTryingCallers() {
    TokenBucket bucket = new TokenBucket(10, 3, nanos::get);
    assertThat(bucket.tryTakeLeaving(1)).isTrue();
    assertThat(bucket.tryTakeLeaving(1)).isTrue();
    assertThat(bucket.tryTakeLeaving(1)).as("the last token is kept").isFalse();
    assertThat(bucket.reserve()).as("a reserving caller finds it").isZero();
    nanos.addAndGet(100_000_000);
    assertThat(bucket.tryTakeLeaving(1)).as("one token came back, and it is the kept one").isFalse();
  }

  @Test
  void aCallerWithoutATokenIsToldHowLongUntilOneAndTakesNothing() {
    TokenBucket bucket = new TokenBucket(10, 2, nanos::get);
    assertThat(bucket.isFull()).isTrue();
    assertThat(bucket.takeOrWait()).isZero();
    assertThat(bucket.isFull()).isFalse();
    assertThat(bucket.takeOrWait()).isZero();
    assertThat(bucket.takeOrWait()).isEqualTo(100_000_000);
    assertThat(bucket.takeOrWait()).as("asking again took nothing").isEqualTo(100_000_000);
    nanos.addAndGet(200_000_000);
    assertThat(bucket.isFull()).as("refilled to its burst").isTrue();
  }
}
