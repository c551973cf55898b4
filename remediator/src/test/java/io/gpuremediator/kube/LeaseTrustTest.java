package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Leadership is trusted only while the last renewal is recent: a process paused past it acts on nothing when it wakes. */
class LeaseFenceTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final LeaseFence fence = new LeaseFence(Duration.ofSeconds(10), now::get);

  @Test
  void nothingIsTrustedBeforeTheFirstRenewal() {
    assertThat(fence.holds()).isFalse();
  }

  @Test
  void aRenewalIsTrustedUntilTheRenewDeadlineCountedFromWhenItWasSent() {
    long sent = fence.now();
    now.addAndGet(Duration.ofMillis(300).toNanos()); // the request's round trip
    fence.renewed(sent);
    now.addAndGet(Duration.ofSeconds(9).toNanos());
    assertThat(fence.holds()).isTrue();
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(fence.holds()).as("10.3 s after the renewal was sent").isFalse();
  }

  @Test
  void aPauseLongerThanTheLeaseEndsTrustAtOnceOnWaking() {
    fence.renewed(fence.now());
    now.addAndGet(Duration.ofSeconds(20).toNanos()); // SIGSTOP for 20 s, then SIGCONT
    assertThat(fence.holds()).isFalse();
    fence.renewed(fence.now()); // the elector won the Lease again
    assertThat(fence.holds()).isTrue();
  }
}
