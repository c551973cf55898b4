package io.gpuremediator.kube;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpuremediator.state.Held;
import io.gpuremediator.state.Holding;
import io.gpuremediator.state.NodeLedger;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a stored ledger says its episodes hold, read before the episodes are built: each episode's holds by step key,
 * the steps it notified (version 1 kept them with its holds), and what no episode holds any more.
 */
final class LedgerHolds {
  private final Map<String, SortedMap<String, Held>> byEpisode = new HashMap<>();
  private final Map<String, Set<String>> notified = new HashMap<>();
  private final List<Held> unheld = new ArrayList<>();

  /** The episode {@code fingerprint}'s step {@code step} holds {@code held}. */
  void hold(String fingerprint, String step, Held held) {
    byEpisode.computeIfAbsent(fingerprint, k -> new TreeMap<>()).put(step, held);
  }

  /** The episode {@code fingerprint}'s step {@code step} sent its notification. */
  void notified(String fingerprint, String step) {
    notified.computeIfAbsent(fingerprint, k -> new TreeSet<>()).add(step);
  }

  /** No episode holds {@code held}: it is to be given back. */
  void unheld(Held held) {
    unheld.add(held);
  }

  Map<String, SortedMap<String, Held>> byEpisode() {
    return byEpisode;
  }

  Set<String> notifiedBy(String fingerprint) {
    return notified.getOrDefault(fingerprint, Set.of());
  }

  List<Held> unheld() {
    return unheld;
  }

  /** Version 2's holdings, shared out to their holders. */
  static LedgerHolds read(JsonNode holdings) {
    LedgerHolds out = new LedgerHolds();
    for (Iterator<Map.Entry<String, JsonNode>> it = holdings.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> h = it.next();
      Held held = Held.fromKey(h.getKey(), h.getValue().path("value").asText(""))
          .orElseThrow(() -> new IllegalArgumentException("holding " + h.getKey() + " names no kind"));
      Map<String, String> holders = JsonStrings.strings(h.getValue().path("holders"));
      if (holders.isEmpty()) {
        out.unheld(held);
      }
      holders.forEach((fp, step) -> out.hold(fp, step, held));
    }
    return out;
  }

  /** Every held thing with its value and its holders, under {@code holdings}; left out when there is none. */
  static void write(JsonGenerator g, NodeLedger ledger) throws IOException {
    if (ledger.unheld().isEmpty() && ledger.episodes().values().stream().allMatch(e -> e.holds().isEmpty())) {
      return;
    }
    g.writeObjectFieldStart("holdings");
    for (Map.Entry<String, Holding> h : ledger.holdings().entrySet()) {
      g.writeObjectFieldStart(h.getKey());
      if (!h.getValue().held().value().isEmpty()) {
        g.writeStringField("value", h.getValue().held().value());
      }
      if (h.getValue().holders().isEmpty()) {
        g.writeObjectFieldStart("holders");
        g.writeEndObject();
      } else {
        JsonStrings.strings(g, "holders", h.getValue().holders());
      }
      g.writeEndObject();
    }
    g.writeEndObject();
  }
}
