package io.gpuremediator.action;

import io.gpuremediator.action.ReplaceAction.ReplaceSpec;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeOwner;
import io.gpuremediator.value.Durations;
import java.util.Optional;

/**
 * {@code provider: karpenter}: deletes the {@code karpenter.sh/v1} NodeClaim whose {@code status.nodeName} is the node;
 * Karpenter drains and terminates the node and provisions what pending pods need. No cloud credentials: the service's
 * RBAC ({@code deploy/karpenter}) allows get, list and delete on nodeclaims. The claim is looked up fresh before the
 * delete: one already being deleted, or gone, is not deleted again (a lost answer, a restart, Karpenter's own disruption).
 */
final class KarpenterReplacement implements Replacement {
  static final String NAME = "karpenter";
  private static final String CLAIM = "NodeClaim ";

  @Override
  public String what(ReplaceSpec spec, String node) {
    return "replace " + node + ": delete its Karpenter NodeClaim (Karpenter drains and terminates the node), then wait"
        + " up to " + Durations.format(spec.timeout()) + " for the Node object to go";
  }

  @Override
  public Optional<String> whileWaiting(LongStepRun<ReplaceSpec> run) throws ClusterException {
    String handle = run.task().handle();
    if (!handle.startsWith(CLAIM)) {
      return Optional.empty();
    }
    return Optional.of(run.ports().cluster().owner(NodeOwner.Kind.NODE_CLAIM, "", handle.substring(CLAIM.length()))
        .map(c -> c.deleting() ? handle + " is terminating (Karpenter drains and terminates the node)"
            : handle + " is still there")
        .orElse(handle + " is gone") + "; waiting for the Node object to go");
  }

  @Override
  public Optional<StepStart.Impossible> check(LongStepRun<ReplaceSpec> run) throws ClusterException {
    Optional<StepStart.Impossible> off = ReplaceAction.notConfigured(run, NAME, "karpenter");
    if (off.isPresent()) {
      return off;
    }
    if (run.ports().cluster().nodeClaimOf(run.node()).isEmpty()) {
      return Optional.of(new StepStart.Impossible(Reason.PROVIDER_UNSUPPORTED, "cannot replace " + run.node() + ": no"
          + " karpenter.sh/v1 NodeClaim has status.nodeName " + run.node() + " (not provisioned by Karpenter); nothing"
          + " was deleted"));
    }
    return Optional.empty();
  }

  @Override
  public StepResult ask(LongStepRun<ReplaceSpec> run) throws ClusterException {
    Optional<NodeOwner> claim = run.ports().cluster().nodeClaimOf(run.node());
    if (claim.isEmpty()) {
      return ReplaceAction.asked(run, "the NodeClaim of " + run.node(), "no NodeClaim names " + run.node()
          + " any more: it was deleted already (nothing sent)");
    }
    if (claim.get().deleting()) {
      return ReplaceAction.asked(run, claim.get().toString(), claim.get() + " is already being deleted (nothing sent)");
    }
    try {
      run.ports().cluster().deleteOwner(claim.get());
    } catch (ClusterException e) {
      if (!e.isTransient()) {
        return new StepResult.Failed(Reason.REPLACE_FAILED, claim.get() + " of " + run.node() + " not deleted: "
            + e.getMessage());
      }
      return ReplaceAction.retried(run, "deleting " + claim.get(), e.getMessage());
    }
    return ReplaceAction.asked(run, claim.get().toString(), claim.get() + " deleted: Karpenter drains and terminates "
        + run.node());
  }
}
