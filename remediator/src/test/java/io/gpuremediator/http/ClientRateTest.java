package io.gpuremediator.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.value.Rate;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ClientRateTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-23T10:00:00Z"));
  private final ClientRate rate = new ClientRate(new Rate(10, Duration.ofSeconds(1)), clock, client -> { });

  @Test
  void aClientMaySendItsBurstAtOnceThenEarnsRequestsBackOverTheWindow() {
    for (int i = 0; i < 10; i++) {
      assertThat(rate.take("10.0.0.1")).as("request %d", i).isZero();
    }
    assertThat(rate.take("10.0.0.1")).as("wait before the next").isEqualTo(100);
    clock.advance(Duration.ofMillis(100));
    assertThat(rate.take("10.0.0.1")).isZero();
    assertThat(rate.take("10.0.0.1")).isEqualTo(100);
    clock.advance(Duration.ofSeconds(5));
    for (int i = 0; i < 10; i++) {
      assertThat(rate.take("10.0.0.1")).as("after a rest, request %d", i).isZero();
    }
  }

  @Test
  void oneClientsFloodLeavesTheOthersTheirWholeBurst() {
    for (int i = 0; i < 1000; i++) {
      rate.take("10.0.0.66");
    }
    for (int i = 0; i < 10; i++) {
      assertThat(rate.take("10.0.0.2")).isZero();
    }
  }

  @Test
  void manyClientsKeepABoundedNumberOfBuckets() {
    for (int i = 0; i < ClientRate.MAX_CLIENTS * 3; i++) {
      rate.take("client-" + i);
      if (i % 1000 == 0) {
        clock.advance(Duration.ofMillis(1));
      }
    }
    assertThat(rate.buckets()).isLessThanOrEqualTo(ClientRate.MAX_CLIENTS);
  }
}
