package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.testing.Alerts;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A multi-node webhook's alerts decided node by node, side by side. */
class NodeFanOutTest {
  private final NodeFanOut fanOut = new NodeFanOut(4);
  private final AlertDecisions decisions = new AlertDecisions(Clock.systemUTC());

  @AfterEach
  void close() {
    fanOut.close();
  }

  /** Items are "node/n": decided in any order across nodes, in order within one. */
  private Decision decide(String item, Map<String, List<String>> seen) {
    String node = item.substring(0, item.indexOf('/'));
    seen.computeIfAbsent(node, k -> Collections.synchronizedList(new ArrayList<>())).add(item);
    return decisions.decision(Alerts.alert(AlertStatus.FIRING, "A", item, Map.of("node", node)), node, "p",
        Reason.ACTIONS_APPLIED, item, List.of());
  }

  @Test
  void answersInTheWebhooksOrderAndKeepsEachNodesAlertsInOrder() {
    List<String> items = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      items.add("node-" + (i % 8) + "/" + i);
    }
    Map<String, List<String>> seen = new ConcurrentHashMap<>();
    List<Decision> out = new ArrayList<>();
    fanOut.decide(items, i -> i.substring(0, i.indexOf('/')), i -> decide(i, seen), out);
    assertThat(out).extracting(Decision::detail).containsExactlyElementsOf(items);
    seen.forEach((node, order) -> assertThat(order).isSortedAccordingTo(
        (a, b) -> Integer.compare(Integer.parseInt(a.substring(a.indexOf('/') + 1)),
            Integer.parseInt(b.substring(b.indexOf('/') + 1)))));
  }

  @Test
  void aFailureIsThrownAfterTheOtherNodesAreDecidedAndTheirDecisionsKept() {
    List<String> items = List.of("a/0", "b/1", "c/2");
    Map<String, List<String>> seen = new ConcurrentHashMap<>();
    List<Decision> out = new ArrayList<>();
    assertThatThrownBy(() -> fanOut.decide(items, i -> i.substring(0, 1), i -> {
      if (i.startsWith("b")) {
        throw new IllegalStateException("API down");
      }
      return decide(i, seen);
    }, out)).hasMessage("API down");
    assertThat(out).extracting(Decision::detail).containsExactly("a/0", "c/2");
  }
}
