package io.gpuremediator.episode;

import io.gpuremediator.action.PreflightSettings;
import io.gpuremediator.action.UntaintAction.UntaintSpec;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.Taint;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Stage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * New nodes earn their place: a selected node carrying the pre-flight taint gets an episode of the gate's own playbook
 * ({@value #PLAYBOOK}: the pre-flight Job, then untaint), which the {@link StepRunner} carries on like any other. The
 * episode takes over the taint as a claim of its own, so the untaint removes exactly it and nothing else, and only
 * after the Job passed; a failure keeps it and escalates. One episode per boot of the node (its fingerprint follows
 * from the bootID), remembered in the ledger's history: a restart never opens a second one, and a node whose gate
 * failed and that a human released is not tested again until it boots again.
 */
final class PreflightGate {
  /** The gate's playbook, built from the config; a playbook file may not take the name. */
  static final String PLAYBOOK = "preflight";
  /** The alert name its episodes carry in decisions. */
  static final String ALERTNAME = "Preflight";

  private final Optional<PreflightSettings> settings;
  private final Optional<Playbook> playbook;

  PreflightGate(Optional<PreflightSettings> settings) {
    this.settings = settings;
    this.playbook = settings.map(s -> new Playbook(PLAYBOOK, "A new node proves itself before it takes work.", List.of(),
        List.of(), false, Optional.empty(), Optional.empty(), List.of(s.job(), new UntaintSpec(s.taint(), Optional.empty(),
        false)), List.of(), Optional.empty(), "service config: preflight"));
  }

  /** The playbooks with the gate's own, which no alert matches. */
  PlaybookSet with(PlaybookSet set) {
    return playbook.map(set::withBuiltIn).orElse(set);
  }

  /** Whether the node should open a pre-flight episode now (selection is the caller's). */
  boolean wants(NodeInfo n) {
    if (settings.isEmpty() || n.isExcluded() || n.ledgerFault().isPresent() || !carriesTaint(n)) {
      return false;
    }
    String fp = fingerprint(n);
    return !n.ledger().episodes().containsKey(fp) && n.ledger().history().stream().noneMatch(p -> p.fingerprint().equals(fp));
  }

  /**
   * Opens the node's pre-flight episode, on the node read fresh, taking over each of its pre-flight taints as the
   * episode's claim; empty when fenced out or no longer wanted.
   */
  Optional<Episode> open(String node, EpisodeWriter writer) throws ClusterException {
    Instant now = writer.now();
    Transition.PREFLIGHT_OPENED.check(Optional.empty(), Stage.PREFLIGHT, Optional.empty());
    return writer.open(node, fresh -> {
      if (!wants(fresh)) {
        return Optional.empty();
      }
      String fp = fingerprint(fresh);
      NodeLedger ledger = fresh.ledger();
      for (Taint t : fresh.taints()) {
        if (t.key().equals(settings.get().taint())) {
          ledger = ledger.hold(ClaimKey.taint(t.key(), t.effect().apiName()), fp, false);
        }
      }
      Progress p = Progress.startingIn(Stage.PREFLIGHT, now, 0, "registered with "
          + settings.get().taint() + ": it proves itself before it takes work");
      Episode e = new Episode(fp, ALERTNAME, PLAYBOOK, now, now, p, Map.of("node", node), Map.of(), PLAYBOOK);
      return Optional.of(ledger.withEpisode(e));
    }, PreflightGate::fingerprint);
  }

  private boolean carriesTaint(NodeInfo n) {
    for (Taint t : n.taints()) {
      if (t.key().equals(settings.get().taint())) {
        return true;
      }
    }
    return false;
  }

  /** One per boot of the node: a hash of its bootID (its name when it reports none). */
  static String fingerprint(NodeInfo n) {
    String boot = n.bootId().isEmpty() ? n.name() : n.bootId();
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(boot.getBytes(StandardCharsets.UTF_8));
      return "preflight-" + HexFormat.of().formatHex(digest, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JVM", e);
    }
  }
}
