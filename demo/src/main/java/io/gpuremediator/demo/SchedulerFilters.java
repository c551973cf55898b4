package io.gpuremediator.demo;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The filters of kube-scheduler's default profile a demo chapter needs to place a pod as the scheduler would, in the
 * order the profile runs them, each node failing at its first: NodeUnschedulable ({@code spec.unschedulable}, unless
 * tolerated), TaintToleration (a NoSchedule or NoExecute taint no toleration matches), NodeAffinity (the pod's
 * {@code nodeSelector}) and NodeResourcesFit ({@code nvidia.com/gpu} left of the node's allocatable by the pods bound
 * to it). When no node fits, the answer is the scheduler's FailedScheduling message: {@code 0/N nodes are available:}
 * then each reason's count, sorted as strings (pkg/scheduler/framework/types.go, FitError.Error). The scoring is left
 * out: of the nodes that fit, the first by name is taken.
 */
final class SchedulerFilters {
  static final String GPU = "nvidia.com/gpu";
  private static final String UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";

  /** Where the pod fits, or why it fits nowhere. */
  record Placement(Optional<String> node, String why) {}

  private SchedulerFilters() {}

  /** Runs the filters over every node for a pod not yet bound; {@code bound} are the pods bound to nodes now. */
  static Placement place(Pod pod, List<Node> nodes, List<Pod> bound) {
    Map<String, Integer> reasons = new TreeMap<>();
    List<String> fit = new ArrayList<>();
    for (Node n : nodes) {
      Optional<String> fails = firstFailure(pod, n, bound);
      if (fails.isPresent()) {
        reasons.merge(fails.get(), 1, Integer::sum);
      } else {
        fit.add(n.getMetadata().getName());
      }
    }
    if (!fit.isEmpty()) {
      return new Placement(Optional.of(fit.stream().sorted().findFirst().orElseThrow()), "");
    }
    List<String> counted = new ArrayList<>();
    reasons.forEach((reason, count) -> counted.add(count + " " + reason));
    counted.sort(null);
    return new Placement(Optional.empty(), "0/" + nodes.size() + " nodes are available: " + String.join(", ", counted) + ".");
  }

  private static Optional<String> firstFailure(Pod pod, Node n, List<Pod> bound) {
    List<Toleration> tolerations = pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations();
    if (Boolean.TRUE.equals(n.getSpec().getUnschedulable())
        && tolerations.stream().noneMatch(t -> tolerates(t, new Taint("NoSchedule", UNSCHEDULABLE_TAINT, null, null)))) {
      return Optional.of("node(s) were unschedulable");
    }
    List<Taint> taints = n.getSpec().getTaints() == null ? List.of() : n.getSpec().getTaints();
    Optional<Taint> untolerated = taints.stream().filter(t -> !"PreferNoSchedule".equals(t.getEffect()))
        .filter(t -> tolerations.stream().noneMatch(o -> tolerates(o, t))).findFirst();
    if (untolerated.isPresent()) {
      return Optional.of("node(s) had untolerated taint {" + untolerated.get().getKey() + ": "
          + (untolerated.get().getValue() == null ? "" : untolerated.get().getValue()) + "}");
    }
    Map<String, String> selector = pod.getSpec().getNodeSelector() == null ? Map.of() : pod.getSpec().getNodeSelector();
    Map<String, String> labels = n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
    if (!selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
      return Optional.of("node(s) didn't match Pod's node affinity/selector");
    }
    int free = gpus(n.getStatus().getAllocatable()) - bound.stream()
        .filter(b -> n.getMetadata().getName().equals(b.getSpec().getNodeName()))
        .filter(b -> !"Succeeded".equals(phase(b)) && !"Failed".equals(phase(b))).mapToInt(SchedulerFilters::requested).sum();
    return requested(pod) > free ? Optional.of("Insufficient " + GPU) : Optional.empty();
  }

  /** A toleration matches a taint by key (or an empty key with Exists), operator, value and effect (empty: every effect). */
  private static boolean tolerates(Toleration o, Taint t) {
    boolean effect = o.getEffect() == null || o.getEffect().isEmpty() || o.getEffect().equals(t.getEffect());
    boolean exists = "Exists".equals(o.getOperator());
    boolean key = o.getKey() == null || o.getKey().isEmpty() ? exists : o.getKey().equals(t.getKey());
    boolean value = exists || String.valueOf(o.getValue() == null ? "" : o.getValue())
        .equals(t.getValue() == null ? "" : t.getValue());
    return effect && key && value;
  }

  private static int requested(Pod pod) {
    return pod.getSpec().getContainers().stream().mapToInt(c -> c.getResources() == null ? 0
        : gpus(c.getResources().getLimits())).sum();
  }

  private static int gpus(Map<String, Quantity> resources) {
    return resources == null || !resources.containsKey(GPU) ? 0 : Integer.parseInt(resources.get(GPU).getAmount());
  }

  private static String phase(Pod p) {
    return p.getStatus() == null ? "" : p.getStatus().getPhase();
  }
}
