package io.gpuremediator.service;

import io.gpuremediator.action.PreflightSettings;
import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.node.ReplaceProvider;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.sweep.SweepPlaybooks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the playbooks ask of the world outside Kubernetes that the config does not provide: a notify step's
 * receiver not defined, a silence step without {@code alertmanager}, a replace or reboot step without {@code cloud.aws},
 * a replace step by karpenter or cluster-api without {@code cloud.karpenter} or {@code cloud.cluster_api} (the
 * provider's overlay, whose RBAC it needs, is not the one deployed) (warnings: such a step is a recorded refusal, or a counted notification, when it runs, and the rest of the episode
 * goes on; {@code validate} prints them and {@code serve} logs them at start), a collect step whose report has no
 * store to leave the node for; a reboot by redfish without
 * {@code cloud.redfish} (an error, {@link #errors}: {@code validate} fails and {@code serve} does not start).
 */
public final class OutboundReadiness {
  private OutboundReadiness() {}

  /**
   * What the playbooks and this config ask of each other that cannot work at all, one message each: a reboot by redfish
   * with no {@code cloud.redfish} (no credentials file; {@code file:line} of the step), a {@code preflight.on_fail} that
   * names no playbook. An error, not a warning: every such reboot would be
   * refused, and a BMC is the one way to restart a hung node.
   */
  public static List<String> errors(RemediatorConfig config, PlaybookSet playbooks) {
    List<String> out = new ArrayList<>();
    config.preflight().flatMap(PreflightSettings::onFail).filter(name -> playbooks.named(name).isEmpty())
        .ifPresent(name -> out.add("preflight.on_fail names playbook " + name + ", which no playbook file defines: a"
            + " failed pre-flight would have nowhere to escalate"));
    out.addAll(SweepPlaybooks.unmet(config.sweeps(), playbooks));
    if (config.redfish().isPresent()) {
      return out;
    }
    for (Playbook p : playbooks.playbooks()) {
      for (int i = 0; i < p.actions().size(); i++) {
        ActionSpec spec = p.actions().get(i);
        if (!spec.dryRun() && spec.needs().equals(Optional.of(new ActionSpec.Needs(ActionSpec.Port.CLOUD, "redfish")))) {
          out.add(p.source() + ": playbook " + p.name() + ", actions step " + (i + 1) + " (" + spec.kind() + "): method"
              + " redfish needs cloud.redfish.credentials_file in the service config, which has no cloud.redfish");
        }
      }
    }
    return out;
  }

  /** One sentence per missing piece, naming the playbooks that need it. */
  public static List<String> warnings(RemediatorConfig config, PlaybookSet playbooks) {
    Set<String> receivers = new TreeSet<>();
    config.receivers().forEach(r -> receivers.add(r.name()));
    Map<String, Set<String>> unknownReceivers = new TreeMap<>();
    Set<String> silencing = new TreeSet<>();
    Set<String> replacing = new TreeSet<>();
    Map<String, Set<String>> undeployed = new TreeMap<>();
    for (Use use : uses(playbooks)) {
      String name = use.needs().name();
      switch (use.needs().port()) {
        case RECEIVER -> {
          if (!receivers.contains(name)) {
            unknownReceivers.computeIfAbsent(name, r -> new TreeSet<>()).add(use.playbook());
          }
        }
        case ALERTMANAGER -> {
          if (config.alertmanager().isEmpty()) {
            silencing.add(use.playbook());
          }
        }
        case CLOUD -> {
          if ("aws".equals(name) && config.aws().isEmpty()) {
            replacing.add(use.playbook());
          } else if (ReplaceProvider.named(name).flatMap(ReplaceProvider::owner).isPresent()
              && !config.replaceProviders().contains(name)) {
            undeployed.computeIfAbsent(name, k -> new TreeSet<>()).add(use.playbook());
          }
        }
      }
    }
    config.safety().page().stream().filter(r -> !receivers.contains(r))
        .forEach(r -> unknownReceivers.computeIfAbsent(r, k -> new TreeSet<>()).add("safety.page"));
    List<String> out = new ArrayList<>();
    if (!unknownReceivers.isEmpty()) {
      unknownReceivers.forEach((receiver, users) -> out.add("notify receiver " + receiver + " is not defined in"
          + " notify.receivers (used by " + String.join(", ", users) + "): its messages are counted as unknown_receiver and not"
          + " sent"));
    }
    if (!silencing.isEmpty()) {
      out.add("silence steps with no alertmanager configured: " + String.join(", ", silencing)
          + ": each is a silence_failed decision, and the episodes go on unsilenced");
    }
    if (!replacing.isEmpty()) {
      out.add("replace or reboot steps by aws with no cloud.aws configured: " + String.join(", ", replacing)
          + ": each is a replace_failed or repair_failed decision, nothing is called, and the node waits for a human"
          + " (or its on_fail)");
    }
    unstored(config, playbooks).ifPresent(out::add);
    undeployed.forEach((name, users) -> {
      ReplaceProvider provider = ReplaceProvider.named(name).orElseThrow();
      out.add("replace steps by " + name + " with no cloud." + provider.configKey() + " configured: " + String.join(", ", users)
          + ": the " + provider.overlay() + " overlay sets it and grants the RBAC the provider needs; without it each is a"
          + " replace_failed decision, nothing is called, and the node waits for a human (or its on_fail)");
    });
    return out;
  }

  /** The playbooks whose collect steps have no store, when the config names none either. */
  private static Optional<String> unstored(RemediatorConfig config, PlaybookSet playbooks) {
    Set<String> unstored = new TreeSet<>();
    if (config.evidenceStore().isEmpty()) {
      playbooks.playbooks().forEach(p -> p.actions().stream().filter(a -> !a.dryRun() && a.evidenceTimeout().isPresent()
          && a.evidenceStore().isEmpty()).findFirst().ifPresent(a -> unstored.add(p.name())));
    }
    return unstored.isEmpty() ? Optional.empty() : Optional.of("collect steps with no store, and no evidence.store"
        + " configured: " + String.join(", ", unstored) + ": each report stays only as its Job's pod log, on the node"
        + " that is then rebooted or replaced");
  }

  /** A step that acts (not a dry-run) and needs something outside Kubernetes, by the playbook it stands in. */
  private record Use(String playbook, ActionSpec.Needs needs) {}

  private static List<Use> uses(PlaybookSet playbooks) {
    List<Use> out = new ArrayList<>();
    for (Playbook p : playbooks.playbooks()) {
      List<ActionSpec> all = new ArrayList<>(p.actions());
      all.addAll(p.onResolved());
      for (ActionSpec spec : all) {
        if (!spec.dryRun()) {
          spec.needs().ifPresent(needs -> out.add(new Use(p.name(), needs)));
        }
      }
    }
    return out;
  }
}
