package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A node whose step ended outside the loop is looked at before the nodes queued for anything else. */
class LookQueueTest {
  @Test
  void aNodeWhoseStepEndedIsLookedAtBeforeTheFirstLooksQueuedBeforeIt() throws Exception {
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch busy = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    try (LookQueue queue = new LookQueue(1, node -> {
      if (node.equals("busy")) {
        started.countDown();
        waitFor(busy);
      }
      order.add(node);
    })) {
      assertThat(queue.add("busy", false)).isTrue();
      assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
      queue.add("new-episode-1", false);
      queue.add("new-episode-2", false);
      queue.add("drain-done", true);
      busy.countDown();
      await().atMost(Duration.ofSeconds(30)).until(() -> order.size() == 4);
      assertThat(order).containsExactly("busy", "drain-done", "new-episode-1", "new-episode-2");
    }
  }

  @Test
  void aStoppedQueueTakesNothing() {
    LookQueue queue = new LookQueue(1, node -> { });
    queue.close();
    assertThat(queue.stopped()).isTrue();
    assertThat(queue.add("n1", true)).as("the caller lets the node go").isFalse();
  }

  private static void waitFor(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
