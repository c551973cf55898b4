package io.gpuremediator.episode;

import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.action.NodeDraft;
import io.gpuremediator.action.PreparedAction;
import io.gpuremediator.action.StepPorts;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.safety.SafetyGate;
import java.util.List;
import java.util.Optional;

/**
 * A dry-run's decision: nothing written; the actions record what would change, the detail which limit would refuse a
 * new episode, and what the first long step would find on the cluster (the device a {@code fence_gpu} would fence, read
 * from the node's ResourceSlices, and whether the GPU limits have room for it), read only.
 */
final class EngineDryRun {
  private final boolean globalDryRun;
  private final SafetyGate gate;
  private final Optional<StepPorts> ports;
  private final AlertDecisions decisions;

  EngineDryRun(boolean globalDryRun, SafetyGate gate, Optional<StepPorts> ports, AlertDecisions decisions) {
    this.globalDryRun = globalDryRun;
    this.gate = gate;
    this.ports = ports;
    this.decisions = decisions;
  }

  /** The dry-run's decision, when this alert's actions are a dry-run; empty when they act. */
  Optional<Decision> decide(Alert alert, NodeInfo node, Playbook playbook, Phase phase, List<ActionSpec> specs,
      List<PreparedAction> steps, String note) {
    Optional<Reason> dryRun = reason(playbook, specs);
    if (dryRun.isEmpty()) {
      return Optional.empty();
    }
    Optional<Refusal> refusal = phase == Phase.FIRING ? gate.check(EpisodeAdmission.candidate(node, playbook))
        : Optional.empty();
    boolean noEpisode = phase == Phase.RESOLVED && !node.ledger().episodes().containsKey(alert.fingerprint());
    List<ActionRecord> records = StepRecords.simulate(new NodeDraft(node, alert.fingerprint(), phase, decisions.now()),
        specs, steps, noEpisode);
    TemplateContext ctx = new TemplateContext(alert.labels(), alert.annotations(), node.name(), alert.alertname(),
        alert.fingerprint());
    Optional<String> found = phase != Phase.FIRING ? Optional.empty() : ports.flatMap(p -> specs.stream()
        .filter(ActionSpec::isLongStep).findFirst().flatMap(s -> ActionRegistry.dryRunFindings(s, ctx, p, node.name(),
            decisions.now())));
    String detail = note + refusal.map(r -> "would be refused: " + r.reason().code() + " (" + r.detail() + ")")
        .orElse("nothing written; the actions record what would have been done") + found.map(f -> "; " + f).orElse("");
    Decision d = decisions.decision(alert, node.name(), playbook.name(), dryRun.get(), detail, records);
    return Optional.of(new Decision(d.time(), d.fingerprint(), d.startsAt(), d.alertname(), d.status(), d.node(),
        d.playbook(), d.reason(), d.detail(), d.actions(), refusal));
  }

  /** Why the actions are a dry-run: the service, the playbook, or every action; empty when they act. */
  Optional<Reason> reason(Playbook playbook, List<ActionSpec> specs) {
    if (globalDryRun) {
      return Optional.of(Reason.DRY_RUN_GLOBAL);
    }
    if (playbook.dryRun()) {
      return Optional.of(Reason.DRY_RUN_PLAYBOOK);
    }
    if (specs.stream().allMatch(ActionSpec::dryRun)) {
      return Optional.of(Reason.DRY_RUN_ACTION);
    }
    return Optional.empty();
  }
}
