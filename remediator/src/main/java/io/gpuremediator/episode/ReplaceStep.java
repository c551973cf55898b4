package io.gpuremediator.episode;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.ProviderId;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.NodeLedger.Episode;
import io.gpuremediator.state.Progress.Task;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Replacing a node's cloud instance: the providerID read fresh from the API names the instance (another cloud,
 * or none, is refused before anything is called); the fleet's replacement budget admits it; the instance is marked
 * Unhealthy in its Auto Scaling group, which terminates and replaces it; the step ends when the Node object is gone.
 * The task's handle is empty until the instance is marked, then its id: a restart before the mark was recorded marks
 * again, and the port's look-up first finds it already unhealthy, so one episode sends one SetInstanceHealth.
 */
final class ReplaceStep {
  private final Cluster cluster;
  private final OutsidePorts ports;
  private final Duration retryDelay;
  /** Nodes whose instance was marked, with what their ledger last said: when the Node goes, the episode is over. */
  private final Map<String, Replacing> replacing = new ConcurrentHashMap<>();

  ReplaceStep(Cluster cluster, OutsidePorts ports, Duration retryDelay) {
    this.cluster = cluster;
    this.ports = ports;
    this.retryDelay = retryDelay;
  }

  /** A node being replaced, as last seen. */
  record Replacing(Episode episode, String instance, NodeLedger ledger) {}

  /** What asking to start a replacement found. */
  sealed interface Admission {
    /** Go: the instance to mark. */
    record Admitted(ProviderId.Aws instance) implements Admission {}

    /** It can never be replaced as things are (another cloud, no cloud configured): a human decides. */
    record Impossible(Reason reason, String why) implements Admission {}

    /** The budget, pause or breaker refused: wait. */
    record Refused(Refusal refusal) implements Admission {}
  }

  /** Reads the node's instance and asks the fleet's budget; nothing outside is called when it cannot be replaced. */
  Admission admit(String node) throws ClusterException {
    if (ports.instances() == InstanceHealth.NOT_CONFIGURED) {
      return new Admission.Impossible(Reason.REPLACE_FAILED, "cannot replace " + node + ": no cloud is configured"
          + " (cloud.aws in the service config); nothing was called");
    }
    ProviderId id = ProviderId.parse(cluster.providerId(node).orElse(null));
    if (id instanceof ProviderId.Unsupported u) {
      return new Admission.Impossible(Reason.PROVIDER_UNSUPPORTED, "cannot replace " + node + ": its providerID is "
          + u.seen() + "; nothing was called");
    }
    Optional<Refusal> no = ports.replaceBudget().admit(node);
    return no.<Admission>map(Admission.Refused::new).orElseGet(() -> new Admission.Admitted((ProviderId.Aws) id));
  }

  /**
   * What marking found.
   *
   * @param instance the instance marked (or found already marked); empty unless {@code result} succeeded
   */
  record Mark(StepResult result, String instance) {}

  /** Marks the instance unhealthy: succeeded names it, running says when to try again, failed says why not. */
  Mark mark(String node, Instant now) throws ClusterException {
    ProviderId id = ProviderId.parse(cluster.providerId(node).orElse(null));
    if (!(id instanceof ProviderId.Aws aws)) {
      return new Mark(new StepResult.Failed("cannot replace " + node + ": its providerID is now "
          + ((ProviderId.Unsupported) id).seen()), "");
    }
    try {
      InstanceHealth.Marked marked = ports.instances().markUnhealthy(aws);
      return new Mark(new StepResult.Succeeded(aws.instanceId() + (marked == InstanceHealth.Marked.ALREADY_UNHEALTHY
          ? " was already marked Unhealthy (nothing sent)" : " marked Unhealthy in its Auto Scaling group")), aws.instanceId());
    } catch (OutboundException e) {
      if (!e.retriable()) {
        return new Mark(new StepResult.Failed("instance " + aws.instanceId() + " of " + node + " not replaced: "
            + e.getMessage()), "");
      }
      Instant again = now.plus(retryDelay);
      return new Mark(new StepResult.Running("marking " + aws.instanceId() + " unhealthy: " + e.getMessage()
          + "; retried at " + again, Optional.of(again)), "");
    }
  }

  /** Remembers a node whose instance is marked, with its ledger (kept for the decision when the Node is gone). */
  void track(String node, Episode e, NodeLedger ledger) {
    replacing.put(node, new Replacing(e, e.progress().task().map(Task::handle).orElse(""), ledger));
  }

  /** The nodes being replaced, as last seen. */
  Map<String, Replacing> tracked() {
    return replacing;
  }

  /** Forgets a node (its Node object is gone, or the episode left stage replacing). */
  void forget(String node) {
    replacing.remove(node);
  }
}
