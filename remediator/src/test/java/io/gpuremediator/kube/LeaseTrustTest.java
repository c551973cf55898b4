package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Leadership is trusted only while the last renewal is recent: a process paused past it acts on nothing when it wakes. */
class LeaseTrustTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final LeaseTrust trust = new LeaseTrust(Duration.ofSeconds(10), now::get);

  @Test
  void nothingIsTrustedBeforeTheFirstRenewal() {
    assertThat(trust.holds()).isFalse();
  }

  @Test
  void aRenewalIsTrustedUntilTheRenewDeadlineCountedFromWhenItWasSent() {
    long sent = trust.now();
    now.addAndGet(Duration.ofMillis(300).toNanos()); // the request's round trip
    trust.renewed(sent);
    now.addAndGet(Duration.ofSeconds(9).toNanos());
    assertThat(trust.holds()).isTrue();
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(trust.holds()).as("10.3 s after the renewal was sent").isFalse();
  }

  @Test
  void aPauseLongerThanTheLeaseEndsTrustAtOnceOnWaking() {
    trust.renewed(trust.now());
    now.addAndGet(Duration.ofSeconds(20).toNanos()); // SIGSTOP for 20 s, then SIGCONT
    assertThat(trust.holds()).isFalse();
    trust.renewed(trust.now()); // the elector won the Lease again
    assertThat(trust.holds()).isTrue();
  }
}
