package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuremediator.node.Foreground;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The API throttle serves a webhook's calls before the background's, and the background is slowed, never stopped. */
class ApiThrottleTest {
  /** Gives way to webhooks being decided for an hour: as long as any test here runs. */
  private final ApiThrottle throttle = new ApiThrottle(1000, 1000, 4, TimeUnit.HOURS.toNanos(1), System::nanoTime);
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void releaseWebhooks() {
    release.countDown();
  }

  @Test
  void aBackgroundCallWaitsWhileAWebhooksCallIsUnderWay() throws Exception {
    CountDownLatch inside = new CountDownLatch(1);
    CompletableFuture<Void> webhook = CompletableFuture.runAsync(() -> Foreground.run(() -> throttle.write(
        () -> heldUntilReleased(inside))));
    inside.await();
    assertBackgroundWaitsUntilReleased(webhook, Thread.State.WAITING, "the loop's call waits for the webhook's");
  }

  @Test
  void aBackgroundCallGivesWayWhileAWebhookIsBeingDecided() throws Exception {
    assertBackgroundWaitsUntilReleased(deciding(), Thread.State.TIMED_WAITING,
        "the loop's call waits while a webhook is decided, though none of its calls is under way");
  }

  @Test
  void aWebhookThatIsNeverAnsweredDelaysTheBackgroundButDoesNotStopIt() throws Exception {
    ApiThrottle givesWayBriefly = new ApiThrottle(1000, 1000, 4, TimeUnit.MILLISECONDS.toNanos(20), System::nanoTime);
    CompletableFuture<Void> webhook = deciding();
    AtomicBoolean ran = new AtomicBoolean();
    backgroundRead(givesWayBriefly, ran);
    await().atMost(Duration.ofSeconds(10)).untilTrue(ran);
    assertThat(webhook).as("still being decided").isNotDone();
  }

  @Test
  void aWebhooksOwnCallsDoNotGiveWayToItself() throws Exception {
    AtomicBoolean ran = new AtomicBoolean();
    CompletableFuture<Void> webhook = CompletableFuture.runAsync(() -> Foreground.decide(() -> throttle.read(() -> {
      ran.set(true);
      return null;
    })));
    webhook.get(10, TimeUnit.SECONDS);
    assertThat(ran).isTrue();
  }

  @Test
  void theBackgroundLeavesATenthOfTheBurstForWebhooks() throws Exception {
    AtomicLong nanos = new AtomicLong();
    ApiThrottle frozen = new ApiThrottle(10, 10, 4, 0, nanos::get); // time stands still: no token comes back
    for (int i = 0; i < 9; i++) {
      frozen.read(() -> null);
    }
    AtomicBoolean ran = new AtomicBoolean();
    Thread loop = backgroundRead(frozen, ran);
    await().atMost(Duration.ofSeconds(10)).until(() -> loop.getState() == Thread.State.TIMED_WAITING);
    assertThat(ran).as("the tenth token is kept for webhooks").isFalse();
    AtomicBoolean wrote = new AtomicBoolean();
    Foreground.run(() -> frozen.write(() -> {
      wrote.set(true);
      return null;
    }));
    assertThat(wrote).isTrue();
    loop.interrupt();
    loop.join(10_000);
  }

  /** A webhook being decided (none of its calls under way) until the test releases it. */
  private CompletableFuture<Void> deciding() throws InterruptedException {
    CountDownLatch inside = new CountDownLatch(1);
    CompletableFuture<Void> webhook = CompletableFuture.runAsync(() -> Foreground.decide(() -> heldUntilReleased(inside)));
    inside.await();
    return webhook;
  }

  /** Says it is inside, then holds its thread until the test releases it. */
  private Void heldUntilReleased(CountDownLatch inside) {
    inside.countDown();
    try {
      release.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return null;
  }

  /**
   * A background call made while {@code webhook} is held waits ({@code waiting}: how its thread waits), and runs once
   * the test releases the webhook.
   */
  private void assertBackgroundWaitsUntilReleased(CompletableFuture<Void> webhook, Thread.State waiting, String why)
      throws Exception {
    AtomicBoolean ran = new AtomicBoolean();
    Thread loop = backgroundRead(throttle, ran);
    await().atMost(Duration.ofSeconds(10)).until(() -> loop.getState() == waiting);
    assertThat(ran).as(why).isFalse();
    release.countDown();
    webhook.get(10, TimeUnit.SECONDS);
    loop.join(10_000);
    assertThat(ran).as("the loop's call runs once the webhook is answered").isTrue();
  }

  /** The loop's look at the API server, on a thread of its own. */
  private static Thread backgroundRead(ApiThrottle throttle, AtomicBoolean ran) {
    Thread loop = new Thread(() -> throttle.read(() -> {
      ran.set(true);
      return null;
    }), "loop");
    loop.start();
    return loop;
  }
}
