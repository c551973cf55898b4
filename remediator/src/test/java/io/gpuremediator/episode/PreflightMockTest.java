package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.gpuremediator.action.PreflightSettings;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.value.CountOrPercent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pre-flight gate against the emulated API server: a new node registering with {@code gpu-remediator.io/preflight}
 * runs a pinned Job before it takes work; a pass removes only that taint (both effects of its key, no other taint); a
 * failure keeps it and escalates; thirty nodes at once never run more Jobs than {@code max_concurrent}; a restart mid-Job
 * runs no second Job; a node deleted meanwhile ends its episode once.
 */
class PreflightMockTest {
  private static final String PREFLIGHT = "gpu-remediator.io/preflight";
  private static final String PLAYBOOKS = String.format(ClosedLoopHarness.PLAYBOOKS, "evict", ", on_fail: gpu-needs-human");
  private static final PreflightSettings GATE = new PreflightSettings(PREFLIGHT,
      "nvcr.io/nvidia/cloud-native/dcgm:4.2.3-1-ubuntu22.04", List.of("dcgmi", "diag", "-r", "2", "-j"),
      Duration.ofMinutes(30), Optional.of("gpu-needs-human"), new CountOrPercent(10, false));

  @TempDir Path dir;
  private final List<ClosedLoopHarness> harnesses = new ArrayList<>();

  @AfterEach
  void close() {
    ClosedLoopHarness.closeAll(harnesses);
  }

  private ClosedLoopHarness start() {
    ClosedLoopHarness h = harnesses.isEmpty() ? new ClosedLoopHarness(dir, PLAYBOOKS, GATE)
        : harnesses.get(0).restarted(dir, PLAYBOOKS, OutboundPorts.NONE);
    harnesses.add(h);
    return h;
  }

  /** A GPU node as the kubelet registers it with {@code --register-with-taints}: the pre-flight taint, and these. */
  private static void register(ClosedLoopHarness h, String name, Taint... more) {
    Node n = Nodes.gpu(name, "10.0.1." + (name.hashCode() & 0x7f));
    List<Taint> taints = new ArrayList<>(List.of(new TaintBuilder().withKey(PREFLIGHT).withEffect("NoSchedule").build()));
    taints.addAll(List.of(more));
    n.getSpec().setTaints(taints);
    h.client.nodes().resource(n).create();
  }

  private static List<String> taints(ClosedLoopHarness h, String node) {
    return h.client.nodes().withName(node).get().getSpec().getTaints().stream()
        .map(t -> t.getKey() + ":" + t.getEffect()).toList();
  }

  @Test
  void aPassRemovesThePreflightTaintAndNoOther() {
    ClosedLoopHarness h = start();
    register(h, "gpu-new-0", new TaintBuilder().withKey(PREFLIGHT).withEffect("NoExecute").build(),
        new TaintBuilder().withKey("nvidia.com/gpu").withValue("present").withEffect("NoSchedule").build());
    h.look("gpu-new-0");
    Episode e = h.episode("gpu-new-0");
    assertThat(e.playbook()).isEqualTo("preflight");
    assertThat(e.progress().stage()).isEqualTo(Stage.PREFLIGHT);
    Job job = h.job("preflight");
    assertThat(job.getSpec().getTemplate().getSpec().getNodeName()).isEqualTo("gpu-new-0");
    assertThat(job.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand())
        .containsExactly("dcgmi", "diag", "-r", "2", "-j");
    assertThat(job.getSpec().getTemplate().getSpec().getTolerations()).extracting(t -> t.getKey()).contains(PREFLIGHT);
    assertThat(h.decisions(Reason.PREFLIGHT_STARTED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("pre-flight job gpu-remediator/" + job.getMetadata().getName()));
    assertThat(taints(h, "gpu-new-0")).contains(PREFLIGHT + ":NoSchedule", PREFLIGHT + ":NoExecute");

    h.finishJob("preflight", "Complete", "Completed");
    h.look("gpu-new-0");
    assertThat(taints(h, "gpu-new-0")).containsExactly("nvidia.com/gpu:NoSchedule");
    assertThat(h.node("gpu-new-0").ledger().episodes()).isEmpty();
    assertThat(h.decisions(Reason.PREFLIGHT_PASSED)).hasSize(1);
    assertThat(h.decisions(Reason.RELEASED)).singleElement().satisfies(d -> assertThat(d.playbook()).isEqualTo("preflight"));
    assertThat(h.events("PreflightPassed")).hasSize(1);
    h.look("gpu-new-0"); // passed once: never again for this boot of the node
    assertThat(h.jobs("preflight")).hasSize(1);
  }

  @Test
  void aFailureKeepsTheTaintAndEscalates() {
    ClosedLoopHarness h = start();
    register(h, "gpu-new-0");
    h.look("gpu-new-0");
    h.server.log("gpu-remediator", "preflight-pod", "GPU 2: Fail");
    h.finishJob("preflight", "Failed", "BackoffLimitExceeded");
    h.look("gpu-new-0");
    assertThat(taints(h, "gpu-new-0")).containsExactly(PREFLIGHT + ":NoSchedule");
    assertThat(h.decisions(Reason.PREFLIGHT_FAILED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("failed").endsWith("escalated to gpu-needs-human"));
    assertThat(h.events("PreflightFailed")).hasSize(1);
    assertThat(h.node("gpu-new-0").labels()).containsEntry("gpu-remediator.io/needs-human", "true");
    assertThat(h.episode("gpu-new-0").playbook()).isEqualTo("gpu-needs-human");
    h.look("gpu-new-0");
    assertThat(h.jobs("preflight")).hasSize(1);
  }

  @Test
  void thirtyNewNodesNeverRunMoreJobsThanMaxConcurrent() {
    ClosedLoopHarness h = start();
    List<String> nodes = IntStream.range(0, 30).mapToObj(i -> "gpu-new-" + i).toList();
    nodes.forEach(n -> register(h, n));
    int passed = 0;
    while (passed < 30) {
      for (String n : nodes) {
        h.look(n);
        long running = h.jobs("preflight").stream().filter(j -> j.getStatus() == null).count();
        assertThat(running).as("pre-flight jobs running at once").isLessThanOrEqualTo(10);
      }
      List<Job> running = h.jobs("preflight").stream().filter(j -> j.getStatus() == null).toList();
      assertThat(running).hasSizeBetween(1, 10);
      for (Job j : running) {
        h.finish(j, "Complete", "Completed");
        passed++;
      }
    }
    nodes.forEach(h::look);
    assertThat(h.jobs("preflight")).hasSize(30);
    assertThat(h.decisions(Reason.PREFLIGHT_PASSED)).hasSize(30);
    assertThat(h.decisions(Reason.PREFLIGHT_WAITING)).hasSize(20);
    nodes.forEach(n -> assertThat(h.client.nodes().withName(n).get().getSpec().getTaints()).isEmpty());
  }

  @Test
  void aRestartMidJobRunsNoSecondJob() {
    ClosedLoopHarness h = start();
    register(h, "gpu-new-0");
    h.look("gpu-new-0");
    String job = h.job("preflight").getMetadata().getName();

    ClosedLoopHarness restarted = start();
    restarted.look("gpu-new-0");
    restarted.look("gpu-new-0");
    assertThat(restarted.jobs("preflight")).singleElement().satisfies(j -> assertThat(j.getMetadata().getName()).isEqualTo(job));
    restarted.finishJob("preflight", "Complete", "Completed");
    restarted.look("gpu-new-0");
    assertThat(restarted.client.nodes().withName("gpu-new-0").get().getSpec().getTaints()).isEmpty();
    assertThat(restarted.decisions(Reason.PREFLIGHT_PASSED)).hasSize(1);
  }

  @Test
  void aNodeDeletedMeanwhileEndsItsEpisodeOnce() {
    ClosedLoopHarness h = start();
    register(h, "gpu-new-0");
    h.look("gpu-new-0");
    h.client.nodes().withName("gpu-new-0").delete();
    h.look("gpu-new-0");
    h.look("gpu-new-0");
    assertThat(h.decisions(Reason.NODE_DELETED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("the Node object was deleted while preflight was under way"));
  }
}
