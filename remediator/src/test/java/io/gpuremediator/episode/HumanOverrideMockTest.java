package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A human who takes a node back during an episode, against the emulated API server: an uncordon, the removal of our
 * taint, or both, mid-drain (a PodDisruptionBudget holds the trainer) and mid-diagnose, end the episode
 * ({@code released/human_override}, an Event); after that ending write nothing more is written to the node, nothing
 * the human removed is put back, and the node's next alert is a new episode.
 */
class HumanOverrideMockTest {
  private static final String NODE = "gpu-node-0";
  private static final String NODE_PATH = "/api/v1/nodes/" + NODE;

  @TempDir Path dir;
  @AutoClose private ClosedLoopHarness h;

  static final Consumer<Node> UNCORDON = n -> n.getSpec().setUnschedulable(false);
  static final Consumer<Node> UNTAINT = n -> n.getSpec().setTaints(n.getSpec().getTaints().stream()
      .filter(t -> !t.getKey().equals("gpu-remediator.io/unhealthy")).toList());

  /** What the human does, as an edit of the Node (kubectl uncordon, kubectl taint ...-). */
  private void human(Consumer<Node> edit) {
    h.client.nodes().withName(NODE).edit(n -> {
      edit.accept(n);
      return n;
    });
  }

  private void assertOverriddenAndLeftAlone(String what) {
    h.look(NODE);
    assertThat(h.decisions(Reason.HUMAN_OVERRIDE)).singleElement().satisfies(d -> assertThat(d.detail()).contains(what)
        .contains("nothing is put back"));
    assertThat(h.events("HumanOverride")).hasSize(1);
    assertThat(h.node(NODE).ledger().episodes()).isEmpty();
    assertThat(h.node(NODE).ledger().claims()).as("claims given back").doesNotContainKeys("cordon",
        "taint/gpu-remediator.io/unhealthy/NoSchedule");
    List<String> writes = nodeWrites();
    h.clock.advance(Duration.ofHours(1));
    h.look(NODE);
    h.look(NODE);
    assertThat(nodeWrites()).as("writes to the node after the episode ended").isEqualTo(writes);
    Node n = h.client.nodes().withName(NODE).get();
    assertThat(n.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
    assertThat(n.getSpec().getTaints()).noneMatch(t -> t.getKey().equals("gpu-remediator.io/unhealthy"));
  }

  private List<String> nodeWrites() {
    return h.server.requestLog().stream().filter(r -> (r.startsWith("PUT ") || r.startsWith("PATCH "))
        && r.contains(NODE_PATH)).toList();
  }

  private void midDrain() {
    h = new ClosedLoopHarness(dir, "evict", 1);
    Nodes.trainerHeldByBudget(h.client, h.server, NODE);
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.DRAINING, 3);
    h.look(NODE);
    assertThat(h.episode(NODE).progress().note()).contains("waiting on PDB");
  }

  private void midDiagnose() {
    h = new ClosedLoopHarness(dir, "evict", 1, true);
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.DRAINED, 2);
    h.fire(Alerts.resolved(Alerts.xid(NODE, "79")));
    h.lookUntil(NODE, Stage.DIAGNOSING, 2);
  }

  /** What the human does, and what the decision says of it. */
  enum Takeover {
    UNCORDON(HumanOverrideMockTest.UNCORDON, "the node was uncordoned"),
    UNTAINT(HumanOverrideMockTest.UNTAINT, "taint gpu-remediator.io/unhealthy:NoSchedule was removed"),
    BOTH(HumanOverrideMockTest.UNCORDON.andThen(HumanOverrideMockTest.UNTAINT),
        "the node was uncordoned and taint gpu-remediator.io/unhealthy:NoSchedule was removed");

    final Consumer<Node> edit;
    final String said;

    Takeover(Consumer<Node> edit, String said) {
      this.edit = edit;
      this.said = said;
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Takeover.class)
  void midDrainTheEpisodeEndsAndNothingIsWrittenAfter(Takeover takeover) {
    midDrain();
    int evictions = h.server.evictionRequests();
    human(takeover.edit);
    assertOverriddenAndLeftAlone(takeover.said);
    assertThat(h.server.evictionRequests()).as("no eviction after the human took over").isEqualTo(evictions);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Takeover.class)
  void midDiagnoseTheEpisodeEndsAndTheNextAlertIsANewEpisode(Takeover takeover) {
    midDiagnose();
    human(takeover.edit);
    assertOverriddenAndLeftAlone(takeover.said);
    assertThat(h.fire(Alerts.xid(NODE, "79")).reason()).as("the same episode again").isEqualTo(Reason.DUPLICATE_EPISODE);
    assertThat(h.fire(Alerts.startingAt(Alerts.xid(NODE, "79"), Alerts.STARTS.plus(Duration.ofHours(2)))).reason())
        .isEqualTo(Reason.ACTIONS_APPLIED);
    assertThat(h.client.nodes().withName(NODE).get().getSpec().getUnschedulable()).isTrue();
  }
}
