package io.gpuremediator.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.EvidenceJob;
import io.gpuremediator.state.FencedGpu;
import io.gpuremediator.state.Held;
import io.gpuremediator.state.HeldSilence;
import java.util.Iterator;
import java.util.Map;

/**
 * What a version 1 ledger (written by releases before holdings) says its episodes hold: each episode's
 * {@code outbound} map, keyed by prefix ({@code silence/<step>}: {@code "<id> <startsAt> <endsAt>"};
 * {@code notify/<step>}: sent; {@code evidence/<step>}: {@code "<ns>/<name>[ -> <where>]"}; {@code fenced/<step>} and
 * {@code fenced/inherited/<step>}: {@code "<driver> <pool> <device> <uuid> <rule>"}), and the ledger's
 * {@code expiring_silences}. Read once: the next write stores version 2.
 */
final class LedgerV1 {
  static final int VERSION = 1;
  private static final String INHERITED = "fenced/inherited/";

  private LedgerV1() {}

  static LedgerHolds holds(JsonNode root) {
    LedgerHolds out = new LedgerHolds();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.path("episodes").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonStrings.strings(e.getValue().path("outbound")).forEach((key, value) -> entry(out, e.getKey(), key, value));
    }
    root.path("expiring_silences").forEach(id -> {
      if (!id.asText().isEmpty()) {
        out.unheld(new Held(HeldSilence.KIND, id.asText(), ""));
      }
    });
    return out;
  }

  /** One outbound entry; one that reads as nothing (a blank silence, a fence not of five words) holds nothing. */
  private static void entry(LedgerHolds out, String fingerprint, String key, String value) {
    String[] words = value.split(" ");
    if (key.startsWith("notify/")) {
      out.notified(fingerprint, key.substring("notify/".length()));
    } else if (key.startsWith("silence/") && !value.isBlank()) {
      String times = words.length == 3 ? words[1] + " " + words[2] : "";
      out.hold(fingerprint, key.substring("silence/".length()), new Held(HeldSilence.KIND, words[0], times));
    } else if (key.startsWith("evidence/") && !value.isBlank()) {
      String[] parts = value.split(" -> ", 2);
      out.hold(fingerprint, key.substring("evidence/".length()),
          new EvidenceJob(parts[0], parts.length == 2 ? parts[1] : "").held());
    } else if (key.startsWith("fenced/") && words.length == 5) {
      String step = key.startsWith(INHERITED) ? Episode.HANDED_OVER + key.substring(INHERITED.length())
          : key.substring("fenced/".length());
      out.hold(fingerprint, step, new FencedGpu(words[0], words[1], words[2], words[3], words[4]).held());
    }
  }
}
