package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuremediator.node.Foreground;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The API budget serves a webhook's calls before the background's. */
class ApiBudgetTest {
  private final ApiBudget budget = new ApiBudget(1000, 1000, 4, System::nanoTime);

  @Test
  void aBackgroundCallWaitsWhileAWebhooksCallIsUnderWay() throws Exception {
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Void> webhook = CompletableFuture.runAsync(() -> Foreground.run(() -> budget.write(() -> {
      inside.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return null;
    })));
    inside.await();
    AtomicBoolean ran = new AtomicBoolean();
    Thread loop = new Thread(() -> budget.read(() -> {
      ran.set(true);
      return null;
    }), "loop");
    loop.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> loop.getState() == Thread.State.WAITING);
    assertThat(ran).as("the loop's call waits for the webhook's").isFalse();
    release.countDown();
    webhook.get();
    loop.join(10_000);
    assertThat(ran).isTrue();
  }
}
