package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuremediator.node.Foreground;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** One node is changed by one thread at a time; a look asked for meanwhile runs once, after the holder. */
class NodeExclusionTest {
  @Test
  void aLookAskedForWhileTheNodeIsHeldRunsOnceAfterTheHolderLetsGo() {
    List<String> again = new ArrayList<>();
    NodeExclusion exclusion = new NodeExclusion(again::add);
    assertThat(exclusion.tryEnter("n1")).isTrue();
    assertThat(exclusion.tryEnter("n1")).isFalse();
    assertThat(exclusion.tryEnter("n1")).isFalse();
    assertThat(exclusion.tryEnter("n2")).as("no node waits for another").isTrue();
    assertThat(again).isEmpty();
    exclusion.exit("n1");
    assertThat(again).containsExactly("n1");
    exclusion.exit("n2");
    assertThat(again).containsExactly("n1");
  }

  @Test
  void aWriterWaitsForTheHolderAndGivesUpAtItsDeadline() throws Exception {
    NodeExclusion exclusion = new NodeExclusion(node -> { });
    assertThat(exclusion.tryEnter("n1")).isTrue();
    assertThat(exclusion.holding("n1", Duration.ofMillis(50), () -> { })).as("still held at the deadline").isFalse();
    AtomicBoolean ran = new AtomicBoolean();
    AtomicBoolean held = new AtomicBoolean();
    Thread writer = new Thread(() -> held.set(exclusion.holding("n1", Duration.ofSeconds(60), () -> ran.set(true))));
    writer.start();
    // The writer is parked in its wait for the node (not yet past it): only the holder's exit can let it on.
    await().atMost(Duration.ofSeconds(30)).until(() -> writer.getState() == Thread.State.TIMED_WAITING);
    assertThat(ran).isFalse();
    exclusion.exit("n1");
    writer.join(Duration.ofSeconds(30).toMillis());
    assertThat(writer.isAlive()).as("woken by the exit, not by its deadline").isFalse();
    assertThat(held).isTrue();
    assertThat(ran).isTrue();
    assertThat(exclusion.tryEnter("n1")).as("let go after the work").isTrue();
  }

  @Test
  void aLookAskedForDuringALookRunsAtOnceOnTheSameThreadUpToTheMostThenQueues() {
    List<String> queued = new ArrayList<>();
    NodeExclusion exclusion = new NodeExclusion(queued::add);
    List<String> looks = new ArrayList<>();
    assertThat(exclusion.tryEnter("n1")).isTrue();
    exclusion.lookAndLetGo("n1", 3, () -> {
      looks.add(Thread.currentThread().getName());
      assertThat(exclusion.tryEnter("n1")).as("held through every look").isFalse(); // a pod left meanwhile, say
    });
    assertThat(looks).as("three looks in a row on this thread").hasSize(3).allMatch(Thread.currentThread().getName()::equals);
    assertThat(queued).as("the fourth asked for behind the other nodes").containsExactly("n1");
    assertThat(exclusion.tryEnter("n1")).as("let go").isTrue();

    looks.clear();
    queued.clear();
    exclusion.lookAndLetGo("n1", 3, () -> looks.add("look"));
    assertThat(looks).as("nothing asked meanwhile: one look").hasSize(1);
    assertThat(queued).isEmpty();
    assertThat(exclusion.tryEnter("n1")).isTrue();
  }

  @Test
  void theLoopDoesNotGiveWayToAWebhookThatWaitsForTheNodeItHolds() throws Exception {
    NodeExclusion exclusion = new NodeExclusion(node -> { });
    assertThat(exclusion.tryEnter("n1")).as("the loop looks at n1").isTrue();
    AtomicBoolean wrote = new AtomicBoolean();
    Thread webhook = new Thread(() -> Foreground.decide(() -> exclusion.holding("n1", Duration.ofSeconds(60),
        () -> wrote.set(true))), "webhook");
    webhook.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> webhook.getState() == Thread.State.TIMED_WAITING);
    // The loop's next API call: it would give way for an hour to a webhook that waits for the loop.
    Thread loop = new Thread(() -> {
      Foreground.awaitNoneDeciding(TimeUnit.HOURS.toNanos(1));
      exclusion.exit("n1");
    }, "loop");
    loop.start();
    loop.join(Duration.ofSeconds(30).toMillis());
    assertThat(loop.isAlive()).as("the loop went on").isFalse();
    webhook.join(Duration.ofSeconds(30).toMillis());
    assertThat(wrote).isTrue();
  }
}
