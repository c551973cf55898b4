package io.gpuremediator.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.action.TaintAction.TaintSpec;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.load.PlaybookLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shipped playbooks against Kueue's own taint semantics for topology-aware scheduling (tests/real/kueue: its node
 * controller at ff69552e79, and the feature gates' defaults). With {@code TASReplaceNodeOnNodeTaints} (Beta, on by
 * default since 0.17) a node whose NoSchedule or NoExecute taint a TAS workload's pod sets do not tolerate is
 * unhealthy for that workload; with {@code TASReplaceNodeOnPodTermination} (Beta, on since 0.14) only once none of the
 * workload's pods on the node is progressing (each being deleted or terminated). Every shipped playbook that takes a
 * node out of service adds such a taint (its own, and the cordon's node.kubernetes.io/unschedulable): Kueue replaces
 * the node for a running gang as soon as our drain's eviction of its pod is granted, and not before, so a drain that
 * waits for a checkpoint also holds the swap back until then. A NoExecute taint would have the taint manager delete
 * every untolerating pod at once, past PodDisruptionBudgets and drain policies: the shipped effect stays NoSchedule.
 */
class KueueTaintReplacementTest {
  /** A taint on the node, as Kueue's classifyTaints sees it. */
  private record Taint(String key, String effect) {}

  /** A toleration of a TAS pod set (operator Exists, or Equal on a value; an empty effect tolerates every effect). */
  private record Toleration(String key, String effect) {
    /** corev1helpers.TolerationsTolerateTaint for the operator Exists: the key (empty: any key), the effect (empty: any). */
    boolean tolerates(Taint t) {
      return (key.isEmpty() || key.equals(t.key())) && (effect.isEmpty() || effect.equals(t.effect()));
    }
  }

  /** What a training gang's pods typically tolerate: the GPU taint GPU node pools carry. */
  private static final List<Toleration> GANG = List.of(new Toleration("nvidia.com/gpu", "NoSchedule"));

  /**
   * Kueue's getWorkloadStatus on the taint path, both gates on: unhealthy when a NoSchedule or NoExecute taint is not
   * tolerated and no pod of the workload on the node is progressing.
   */
  private static boolean unhealthy(List<Taint> taints, List<Toleration> podSet, boolean podsProgressing) {
    boolean untolerated = taints.stream().filter(t -> t.effect().equals("NoSchedule") || t.effect().equals("NoExecute"))
        .anyMatch(t -> podSet.stream().noneMatch(tol -> tol.tolerates(t)));
    return untolerated && !podsProgressing;
  }

  @Test
  void theRecordedKueueSourceSaysWhatThisTestAssumes() throws IOException {
    String controller = Files.readString(Path.of("../tests/real/kueue/node_controller-taints.go.txt"));
    assertThat(controller).contains("return taint.Effect == corev1.TaintEffectNoExecute || taint.Effect =="
        + " corev1.TaintEffectNoSchedule").contains("if hasProgressingPods && (!hasUntoleratedTaints ||"
        + " features.Enabled(features.TASReplaceNodeOnPodTermination))")
        .contains("return pod.DeletionTimestamp.IsZero() && !utilpod.IsTerminated(pod)");
    String gates = Files.readString(Path.of("../tests/real/kueue/feature-gates.go.txt"));
    assertThat(gates).contains("TASReplaceNodeOnNodeTaints: {\n\t\t{Version: version.MustParse(\"0.17\"), Default: true");
  }

  @Test
  void everyPlaybookThatTakesANodeOutLetsKueueSwapItOnceTheDrainEvictsTheGangsPod() {
    List<Playbook> out = new ArrayList<>();
    for (Playbook p : PlaybookLoader.load(List.of(Path.of("../deploy/playbooks"))).set().playbooks()) {
      if (p.takesNodeOutOfService()) {
        out.add(p);
      }
    }
    assertThat(out).isNotEmpty();
    for (Playbook p : out) {
      List<Taint> taints = new ArrayList<>();
      p.actions().stream().filter(TaintSpec.class::isInstance).map(TaintSpec.class::cast)
          .forEach(t -> taints.add(new Taint(t.key(), t.effect().apiName())));
      if (p.actions().stream().anyMatch(a -> a.kind().equals("cordon"))) {
        taints.add(new Taint("node.kubernetes.io/unschedulable", "NoSchedule")); // the node lifecycle controller's
      }
      assertThat(taints).as(p.name() + ": its quarantine taints NoSchedule, never NoExecute (drains and budgets hold)")
          .isNotEmpty().allMatch(t -> !t.effect().equals("NoExecute"));
      assertThat(unhealthy(taints, GANG, true)).as(p.name() + ": the gang's pod still runs: Kueue waits").isFalse();
      assertThat(unhealthy(taints, GANG, false)).as(p.name() + ": evicted by our drain: Kueue replaces the node").isTrue();
    }
  }
}
