package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeOwner;
import io.gpuremediator.node.ReplaceProvider;
import io.gpuremediator.value.Durations;
import java.util.Optional;

/**
 * {@code provider: cluster-api}: the Machine named by the node's {@code cluster.x-k8s.io/machine} and
 * {@code cluster.x-k8s.io/cluster-namespace} annotations (without them, the Machine whose {@code status.nodeRef} names
 * the node). {@code via: delete} deletes it only when a MachineSet is its
 * controller (so one comes back); {@code via: remediate_annotation} sets {@code cluster.x-k8s.io/remediate-machine} and
 * leaves the rest to the MachineHealthCheck (which honours its own maxUnhealthy). A Machine that is missing, or has no
 * controller, is {@code provider_unsupported} and nothing is called. The Machine is read fresh before acting.
 */
final class ClusterApiReplacement implements Replacement {
  /** The Node annotation naming its Machine. */
  static final String MACHINE_ANNOTATION = "cluster.x-k8s.io/machine";
  /** The Node annotation naming the namespace of its Machine (and Cluster). */
  static final String NAMESPACE_ANNOTATION = "cluster.x-k8s.io/cluster-namespace";
  /** The Machine annotation a MachineHealthCheck remediates on. */
  static final String REMEDIATE_ANNOTATION = "cluster.x-k8s.io/remediate-machine";

  private final NodeOwner.Kind machines;

  ClusterApiReplacement(ReplaceProvider row) {
    this.machines = row.owner().orElseThrow();
  }

  @Override
  public String what(ReplaceRequest spec, String node) {
    String how = spec.via() == ReplaceVia.DELETE ? "delete its Cluster API Machine (its MachineSet creates another)"
        : "annotate its Cluster API Machine " + REMEDIATE_ANNOTATION + " (its MachineHealthCheck remediates it)";
    return "replace " + node + ": " + how + ", then wait up to " + Durations.format(spec.timeout())
        + " for the Node object to go";
  }

  @Override
  public Optional<String> whileWaiting(LongStepRun<?> run) throws ClusterException {
    String handle = run.task().handle();
    String[] ref = handle.startsWith("Machine ") ? handle.substring("Machine ".length()).split("/", 2) : new String[0];
    if (ref.length != 2) {
      return Optional.empty();
    }
    return Optional.of(run.ports().cluster().owner(machines, ref[0], ref[1])
        .map(m -> m.deleting() ? handle + " is being deleted" : handle + " is still there"
            + (m.annotations().containsKey(REMEDIATE_ANNOTATION) ? " (marked for remediation)" : ""))
        .orElse(handle + " is gone") + "; waiting for the Node object to go");
  }

  @Override
  public Optional<StepStart.Impossible> check(LongStepRun<?> run, ReplaceRequest spec) throws ClusterException {
    Lookup found = lookUp(run, spec);
    return found.refusal().map(why -> new StepStart.Impossible(Reason.PROVIDER_UNSUPPORTED, why + "; nothing was called"));
  }

  @Override
  public StepResult ask(LongStepRun<?> run, ReplaceRequest spec) throws ClusterException {
    Lookup found = lookUp(run, spec);
    if (found.machine().isEmpty() && found.name().isPresent()) {
      return ReplaceSteps.asked(run, spec, found.name().get(), found.name().get() + " is gone already (nothing sent)");
    }
    if (found.refusal().isPresent()) {
      return new StepResult.Failed(Reason.PROVIDER_UNSUPPORTED, found.refusal().get() + "; nothing was called");
    }
    NodeOwner machine = found.machine().get();
    if (machine.deleting()) {
      return ReplaceSteps.asked(run, spec, machine.toString(), machine + " is already being deleted (nothing sent)");
    }
    boolean delete = spec.via() == ReplaceVia.DELETE;
    if (!delete && machine.annotations().containsKey(REMEDIATE_ANNOTATION)) {
      return ReplaceSteps.asked(run, spec, machine.toString(), machine + " already carries " + REMEDIATE_ANNOTATION
          + " (nothing sent)");
    }
    try {
      if (delete) {
        run.ports().cluster().deleteOwner(machine);
      } else {
        run.ports().cluster().annotateOwner(machine, REMEDIATE_ANNOTATION, "");
      }
    } catch (ClusterException e) {
      String doing = (delete ? "deleting " : "annotating ") + machine;
      if (!e.isTransient()) {
        return new StepResult.Failed(Reason.REPLACE_FAILED, doing + " of " + run.node() + " failed: " + e.getMessage());
      }
      return ReplaceSteps.retried(run, doing, e.getMessage());
    }
    return ReplaceSteps.asked(run, spec, machine.toString(), delete
        ? machine + " deleted: its " + machine.controller().orElseThrow() + " creates another"
        : machine + " annotated " + REMEDIATE_ANNOTATION + ": its MachineHealthCheck remediates it");
  }

  /**
   * The Machine the node names, read now. {@code name} is empty when the node names none; {@code refusal} says why
   * this node cannot be replaced this way (no annotations, no Machine, no controller, no MachineSet to delete through).
   */
  private record Lookup(Optional<String> name, Optional<NodeOwner> machine, Optional<String> refusal) {}

  private Lookup lookUp(LongStepRun<?> run, ReplaceRequest spec) throws ClusterException {
    String node = run.node();
    Optional<NodeInfo> fresh = run.ports().cluster().freshNode(node);
    String machineName = fresh.map(n -> n.annotations().get(MACHINE_ANNOTATION)).orElse("");
    String namespace = fresh.map(n -> n.annotations().get(NAMESPACE_ANNOTATION)).orElse("");
    Optional<NodeOwner> machine;
    String name;
    if (machineName == null || namespace == null || machineName.isEmpty() || namespace.isEmpty()) {
      // No annotations (stripped, or a Cluster API release before them): the Machine whose nodeRef is the node.
      machine = run.ports().cluster().ownerOf(machines, node);
      if (machine.isEmpty()) {
        return new Lookup(Optional.empty(), machine, Optional.of("cannot replace " + node + ": it has no "
            + MACHINE_ANNOTATION + " and " + NAMESPACE_ANNOTATION + " annotations, and no Machine's status.nodeRef names"
            + " it (not a Cluster API machine)"));
      }
      name = machine.get().toString();
    } else {
      name = "Machine " + namespace + "/" + machineName;
      machine = run.ports().cluster().owner(machines, namespace, machineName);
    }
    if (machine.isEmpty()) {
      return new Lookup(Optional.of(name), machine, Optional.of("cannot replace " + node + ": " + name
          + ", which its annotations name, does not exist"));
    }
    Optional<String> controller = machine.get().controller();
    if (controller.isEmpty()) {
      return new Lookup(Optional.of(name), machine, Optional.of("cannot replace " + node + ": " + name + " has no"
          + " controller (an orphan Machine): nothing would bring another back"));
    }
    if (spec.via() == ReplaceVia.DELETE && !controller.get().startsWith("MachineSet/")) {
      return new Lookup(Optional.of(name), machine, Optional.of("cannot replace " + node + ": " + name + " is"
          + " controlled by " + controller.get() + ", not a MachineSet: via: delete needs a MachineSet to bring one back"
          + " (via: remediate_annotation leaves it to the MachineHealthCheck)"));
    }
    return new Lookup(Optional.of(name), machine, Optional.empty());
  }
}
