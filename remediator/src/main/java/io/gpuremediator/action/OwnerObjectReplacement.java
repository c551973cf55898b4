package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeOwner;
import io.gpuremediator.node.ReplaceProvider;
import io.gpuremediator.value.Durations;
import java.util.Optional;

/**
 * A provider through the Kubernetes API ({@code provider: karpenter}, and any row of {@link ReplaceProvider#ROWS} with an
 * owner object): deletes the object whose status names the node (Karpenter's {@code karpenter.sh/v1} NodeClaim, by
 * {@code status.nodeName}); its controller drains and replaces the node. No cloud credentials: the service's RBAC (the
 * row's overlay) allows get, list and delete on the objects. The object is looked up fresh before the delete: one
 * already being deleted, or gone, is not deleted again (a lost answer, a restart, the controller's own disruption).
 */
final class OwnerObjectReplacement implements Replacement {
  private final ReplaceProvider row;
  private final NodeOwner.Kind kind;

  OwnerObjectReplacement(ReplaceProvider row) {
    this.row = row;
    this.kind = row.owner().orElseThrow(() -> new IllegalArgumentException(row.name() + " has no owner object"));
  }

  @Override
  public String what(ReplaceRequest spec, String node) {
    return "replace " + node + ": delete its " + row.controller() + " " + kind.kind() + " (" + row.controller() + " "
        + row.effect() + "), then wait up to " + Durations.format(spec.timeout()) + " for the Node object to go";
  }

  @Override
  public Optional<String> whileWaiting(LongStepRun<?> run) throws ClusterException {
    String handle = run.task().handle();
    if (!handle.startsWith(kind.kind() + " ")) {
      return Optional.empty();
    }
    String ref = handle.substring(kind.kind().length() + 1);
    String[] namespaced = kind.namespaced() ? ref.split("/", 2) : new String[] {"", ref};
    if (namespaced.length != 2) {
      return Optional.empty();
    }
    return Optional.of(run.ports().cluster().owner(kind, namespaced[0], namespaced[1])
        .map(o -> o.deleting() ? handle + " is being deleted (" + row.controller() + " " + row.effect() + ")"
            : handle + " is still there")
        .orElse(handle + " is gone") + "; waiting for the Node object to go");
  }

  @Override
  public Optional<StepStart.Impossible> check(LongStepRun<?> run, ReplaceRequest spec) throws ClusterException {
    if (run.ports().cluster().ownerOf(kind, run.node()).isEmpty()) {
      return Optional.of(new StepStart.Impossible(Reason.PROVIDER_UNSUPPORTED, "cannot replace " + run.node() + ": no "
          + kind.apiVersion() + " " + kind.kind() + " has status." + kind.nodeField() + " " + run.node()
          + " (not provisioned by " + row.controller() + "); nothing was deleted"));
    }
    return Optional.empty();
  }

  @Override
  public StepResult ask(LongStepRun<?> run, ReplaceRequest spec) throws ClusterException {
    Optional<NodeOwner> owner = run.ports().cluster().ownerOf(kind, run.node());
    if (owner.isEmpty()) {
      return ReplaceSteps.asked(run, spec, "the " + kind.kind() + " of " + run.node(), "no " + kind.kind() + " names "
          + run.node() + " any more: it was deleted already (nothing sent)");
    }
    if (owner.get().deleting()) {
      return ReplaceSteps.asked(run, spec, owner.get().toString(), owner.get() + " is already being deleted (nothing sent)");
    }
    try {
      run.ports().cluster().deleteOwner(owner.get());
    } catch (ClusterException e) {
      if (!e.isTransient()) {
        return new StepResult.Failed(Reason.REPLACE_FAILED, owner.get() + " of " + run.node() + " not deleted: "
            + e.getMessage());
      }
      return ReplaceSteps.retried(run, "deleting " + owner.get(), e.getMessage());
    }
    return ReplaceSteps.asked(run, spec, owner.get().toString(), owner.get() + " deleted: " + row.controller() + " "
        + row.effect().replace("the node", run.node()));
  }
}
