package io.gpuremediator.action;

import io.gpuremediator.node.Cluster;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.safety.ReplaceLimit;
import io.gpuremediator.safety.StepLimits;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Progress.Task;
import io.gpuremediator.state.Stage;
import io.gpuremediator.workload.Workloads;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** One look of a long step on a node, over ports held in memory: what a kind decides, without an API server. */
final class Runs {
  static final Instant T = Instant.parse("2026-11-27T10:00:00Z");

  /** Pods and Jobs these steps never touch: any call fails the test. */
  static final Workloads NO_WORKLOADS = (Workloads) Proxy.newProxyInstance(Workloads.class.getClassLoader(),
      new Class<?>[] {Workloads.class}, (proxy, method, args) -> {
        throw new AssertionError("no workload call expected: " + method.getName());
      });

  private Runs() {}

  /** The ports of these tests: the cluster given, no workloads, the outside given, slots for one node each. */
  static StepPorts ports(Cluster cluster, OutboundPorts outside, ReplaceLimit replacements, Set<String> providers) {
    StepLimits limits = StepLimits.onlyReplacing(replacements);
    return new StepPorts(cluster, NO_WORKLOADS, outside, limits, Duration.ofSeconds(5), "gpu-remediator", providers);
  }

  /** A look at {@code spec}'s step, started at {@link #T}, its handle as given, at {@code now}. */
  static <S extends ActionSpec> LongStepRun<S> run(String node, S spec, String handle, Instant now, StepPorts ports,
      List<String> warnings) {
    Task task = new Task(spec.kind(), 2, T, 1, handle, Optional.empty());
    Episode e = new Episode("fp1", "GpuXidHardwareError", "gpu-repair", T.minusSeconds(60), T,
        Progress.startingIn(Stage.REPAIRING, T, 2, "").running(task), Map.of(), Map.of(), "gpu-repair");
    Playbook playbook = new Playbook("gpu-repair", "", List.of(), List.of(), false, Optional.empty(), Optional.empty(),
        List.of(spec), List.of(), Optional.empty(), "");
    return new LongStepRun<>(node, e, playbook, spec, task, now, ports, (reason, message) -> warnings.add(reason));
  }

  static List<String> warnings() {
    return new ArrayList<>();
  }
}
