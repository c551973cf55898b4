package io.gpuremediator.action;

import io.gpuremediator.node.ClusterException;
import io.gpuremediator.workload.Eviction;
import io.gpuremediator.workload.PodInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A {@code NoExecute} fence's own eviction: each pod that holds the fenced GPU, but those it keeps, is asked to leave
 * through the Eviction API, once per look (a budget that refuses is asked again at the next). Pods go with their own
 * termination grace period (30 s where they set none).
 *
 * @param waiting what still holds the GPU and why, while any pod was refused; empty when every one is gone or going
 * @param done what was evicted and kept, for the step's note ("; evicted ml/trainer-3; kept running ...")
 */
record HolderEvictions(Optional<String> waiting, String done) {
  private static final long DEFAULT_GRACE_SECONDS = 30;

  static HolderEvictions of(LongStepRun<?> run, GpuHolders holders, String uuid) throws ClusterException {
    List<String> evicted = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    for (PodInfo pod : holders.moved()) {
      Eviction answer = run.ports().workloads().evict(pod, pod.gracePeriodSeconds().orElse(DEFAULT_GRACE_SECONDS));
      if (answer instanceof Eviction.Granted) {
        PodNotices.tell(run, pod, "was evicted by a fence of the GPU it holds", "GPU " + uuid);
      }
      if (answer instanceof Eviction.Granted || answer instanceof Eviction.Gone) {
        evicted.add(pod.ref());
      } else {
        refused.add(pod.ref() + " (" + why(answer) + ")");
      }
    }
    String kept = holders.kept().isEmpty() ? "" : "; kept running (dra.keep_namespaces): "
        + String.join(", ", holders.kept().stream().map(PodInfo::ref).toList());
    String done = (evicted.isEmpty() ? "" : "; evicted " + String.join(", ", evicted) + " through the Eviction API") + kept;
    return new HolderEvictions(refused.isEmpty() ? Optional.empty()
        : Optional.of("its pods are evicted before it passes; refused: " + String.join(", ", refused) + done), done);
  }

  private static String why(Eviction refusal) {
    if (refusal instanceof Eviction.BudgetBlocked b) {
      return b.message();
    }
    if (refusal instanceof Eviction.SeveralBudgets s) {
      return s.message();
    }
    if (refusal instanceof Eviction.Refused r) {
      return r.code() + " " + r.message();
    }
    return "the API server throttled the eviction";
  }
}
