package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.device.Device;
import io.gpuremediator.device.FenceRule;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.LongStepSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.FencedGpu;
import io.gpuremediator.state.Stage;
import io.gpuremediator.yaml.MapReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code unfence_gpu: {}}: deletes the DeviceTaintRules of the episode's {@code fence_gpu} steps (one already gone is
 * fine): its GPUs are back in service. A DRA driver's own taint still on such a GPU (NVIDIA's driver keeps the taint of
 * a fatal XID until its plugin restarts) is named in the decision and in a warning Event: the scheduler still keeps
 * work off that GPU, and only a human or the driver lifts it.
 */
public final class UnfenceGpuAction extends BackgroundKind<UnfenceGpuAction.UnfenceGpuSpec> {
  /** Gives the episode's fenced GPUs back. */
  public record UnfenceGpuSpec(boolean dryRun) implements LongStepSpec {}

  private static final StepStages STAGES = new StepStages(Stage.FENCED, Optional.empty(), Stage.NEEDS_HUMAN,
      Reason.GPU_UNFENCED, Reason.GPU_UNFENCED, Reason.GPU_UNFENCED);

  /** Whether the episode's unfence step has started: the rules it deletes are ours going, not a human's doing. */
  public static boolean unfencing(Episode e) {
    return e.progress().task().filter(t -> t.kind().equals(ActionSpec.kindOf(UnfenceGpuSpec.class))).isPresent();
  }

  UnfenceGpuAction() {
    super(UnfenceGpuSpec.class, Set.of(Phase.FIRING, Phase.RESOLVED), STAGES);
  }

  @Override
  public Optional<UnfenceGpuSpec> decode(MapReader params, boolean dryRun) {
    return Optional.of(new UnfenceGpuSpec(dryRun));
  }

  @Override
  public PreparedAction prepare(UnfenceGpuSpec spec, TemplateContext ctx) {
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, "delete the DeviceTaintRules of the episode's fenced"
        + " GPUs on " + ctx.node());
  }

  @Override
  public StepStart start(LongStepRun<UnfenceGpuSpec> run) {
    return new StepStart.Go("unfencing " + run.episode().fenced(), Optional.empty());
  }

  @Override
  public StepResult look(LongStepRun<UnfenceGpuSpec> run) throws ClusterException {
    List<FencedGpu> fenced = run.episode().fenced();
    if (fenced.isEmpty()) {
      return new StepResult.Succeeded("no GPU of " + run.node() + " is fenced by this episode", new StepResult.Kept.GaveBack(FencedGpu.KIND));
    }
    List<String> remains = giveBack(run.node(), run.episode(), run.ports());
    remains.forEach(r -> run.warn().accept("DriverTaintRemains", r));
    return new StepResult.Succeeded("GPU " + String.join(", ", fenced.stream().map(FencedGpu::uuid).toList()) + " of "
        + run.node() + " unfenced (DeviceTaintRule " + String.join(", ", fenced.stream().map(FencedGpu::rule).toList())
        + " deleted)" + (remains.isEmpty() ? "" : "; " + String.join("; ", remains)), new StepResult.Kept.GaveBack(FencedGpu.KIND));
  }

  /**
   * Deletes the episode's DeviceTaintRules (its end, a human's release, or this step), those it recorded and, while a
   * fence is under way, any its label names (written by an instance that stopped before recording it), and says which
   * of its GPUs still carry a taint of their driver's own.
   */
  static List<String> giveBack(String node, Episode e, StepPorts ports) throws ClusterException {
    Set<String> rules = new TreeSet<>(e.fenced().stream().map(FencedGpu::rule).toList());
    if (rules.isEmpty() && !e.progress().task().filter(t -> t.kind().equals("fence_gpu")).isPresent()) {
      return List.of(); // nothing fenced, no fence under way: no call
    }
    String hash = EpisodeNames.episodeHash(node, e);
    List<String> labelled = ports.devices().rulesLabelled(EpisodeNames.JOB_EPISODE_LABEL, hash);
    rules.addAll(labelled);
    List<String> remains = new ArrayList<>();
    for (String rule : rules) {
      // A name the ledger gives is deleted only when the rule is one we wrote for this node (our label, the name we
      // give its device; one handed over from an earlier episode keeps that episode's label): a ledger can be written
      // by whoever can write the Node, and must never delete a rule of someone else's, nor another node's.
      Optional<FenceRule> found = labelled.contains(rule) ? Optional.empty() : ports.devices().rule(rule);
      if (found.isPresent() && !ours(node, found.get())) {
        remains.add("DeviceTaintRule " + rule + " is not one we wrote for " + node + " (no " + NodeKeys.MANAGED_LABEL
            + " label, or not the name we give its device): not deleted");
      } else if (found.isPresent() || labelled.contains(rule)) {
        ports.devices().unfence(rule);
      }
    }
    if (e.fenced().isEmpty()) {
      return remains;
    }
    for (Device d : ports.devices().onNode(node, ports.draDriver())) {
      for (FencedGpu g : e.fenced()) {
        if (d.ref().pool().equals(g.pool()) && d.ref().device().equals(g.device()) && !d.taints().isEmpty()) {
          remains.add("the driver's own taint " + d.taints() + " is still on GPU " + g.uuid() + " of " + node
              + " (its driver lifts it when its plugin restarts; until then no new work lands on that GPU)");
        }
      }
    }
    return remains;
  }

  /**
   * Gives back one DeviceTaintRule no episode holds any more (the give-back loop's row of {@code gpu_fence}): deleted
   * when it is still there and one we wrote for the node; says which.
   */
  static String giveBackRule(String node, String rule, StepPorts ports) throws ClusterException {
    Optional<FenceRule> found = ports.devices().rule(rule);
    if (found.isEmpty()) {
      return "DeviceTaintRule " + rule + " is gone";
    }
    if (!ours(node, found.get())) {
      return "DeviceTaintRule " + rule + " is not one we wrote for " + node + ": not deleted";
    }
    ports.devices().unfence(rule);
    return "DeviceTaintRule " + rule + " deleted";
  }

  private static boolean ours(String node, FenceRule rule) {
    return "true".equals(rule.labels().get(NodeKeys.MANAGED_LABEL))
        && rule.name().equals(EpisodeNames.fenceRuleName(node, rule.device().pool(), rule.device().device()));
  }
}
