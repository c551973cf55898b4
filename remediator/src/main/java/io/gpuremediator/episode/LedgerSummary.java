package io.gpuremediator.episode;

import io.gpuremediator.state.Episode;
import io.gpuremediator.state.NodeLedger;
import java.util.ArrayList;
import java.util.List;

/** A node's ledger in one line, for the decision that outlives the Node (a replacement). */
final class LedgerSummary {
  private LedgerSummary() {}

  static String of(NodeLedger ledger) {
    List<String> episodes = new ArrayList<>();
    for (Episode e : ledger.episodes().values()) {
      episodes.add(e.alertname() + " " + e.fingerprint() + " (playbook " + e.playbook() + ", since " + e.since() + ", "
          + e.progress().stage().code() + (e.progress().note().isEmpty() ? "" : ": " + e.progress().note()) + ")");
    }
    return "episodes " + episodes + ", changes " + ledger.claims().keySet() + ", " + ledger.history().size()
        + " past episodes";
  }
}
