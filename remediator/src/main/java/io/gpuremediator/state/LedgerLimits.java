package io.gpuremediator.state;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How much a node's ledger may hold ({@code ledger: {max_bytes, max_episodes_per_node}}): it lives in an annotation of
 * the Node, where the API server takes 256 KiB of annotations in all, and past that the node could never be written
 * (never quarantined) again. A new episode that would not fit is refused ({@code ledger_full}); what an episode keeps of
 * its alert's annotations is cut to {@value #ANNOTATION_CHARS} characters each, {@value #ANNOTATIONS_CHARS} in all.
 *
 * @param maxBytes the ledger's size at most, as estimated by {@link #bytes(NodeLedger)}
 * @param maxEpisodesPerNode the episodes active on one node at most
 */
public record LedgerLimits(int maxBytes, int maxEpisodesPerNode) {
  /** The defaults: 64 KiB, 32 episodes. */
  public static final LedgerLimits DEFAULT = new LedgerLimits(64 * 1024, 32);
  /** What an episode keeps of one annotation's value. */
  public static final int ANNOTATION_CHARS = 1024;
  /** What an episode keeps of its annotations, keys and values together. */
  public static final int ANNOTATIONS_CHARS = 4096;
  /** An episode's own fields (times, progress, step handles) beside its labels and annotations, about. */
  private static final int EPISODE_OVERHEAD = 640;
  private static final int PAST_EPISODE = 200;
  /** What a {@code ledger_full} decision says beside its reason. */
  public static final String NOT_OPENED = "; no episode is opened, the node keeps the quarantine its episodes hold";

  /** Why a new episode of an alert with these labels and annotations cannot be kept on this ledger; empty: it can. */
  public Optional<String> refusal(NodeLedger ledger, Map<String, String> labels, Map<String, String> annotations) {
    if (ledger.episodes().size() >= maxEpisodesPerNode) {
      return Optional.of("the node's ledger already holds " + ledger.episodes().size() + " episodes, its most"
          + " (ledger.max_episodes_per_node)");
    }
    long after = bytes(ledger) + episodeBytes(labels, kept(annotations)) - (long) ledger.history().size() * PAST_EPISODE;
    if (after > maxBytes) {
      return Optional.of("the node's ledger would hold about " + after + " bytes with this episode, more than its "
          + maxBytes + " (ledger.max_bytes)");
    }
    return Optional.empty();
  }

  /** What an episode keeps of its alert's annotations: each value cut to its most, and no more than its most in all. */
  public static Map<String, String> kept(Map<String, String> annotations) {
    Map<String, String> out = new LinkedHashMap<>();
    int total = 0;
    for (Map.Entry<String, String> e : annotations.entrySet()) {
      String v = e.getValue().length() > ANNOTATION_CHARS ? e.getValue().substring(0, ANNOTATION_CHARS - 3) + "..."
          : e.getValue();
      total += e.getKey().length() + v.length();
      if (total > ANNOTATIONS_CHARS) {
        break;
      }
      out.put(e.getKey(), v);
    }
    return out;
  }

  /** The ledger's stored size, about: what the limits count. */
  public static long bytes(NodeLedger ledger) {
    long n = 64L + (long) ledger.history().size() * PAST_EPISODE;
    for (Held h : ledger.unheld()) {
      n += h.key().length() + h.value().length() + 24;
    }
    for (Map.Entry<String, Claim> c : ledger.claims().entrySet()) {
      n += c.getKey().length() + 32 + c.getValue().holders().stream().mapToLong(h -> h.length() + 3).sum();
    }
    for (Episode e : ledger.episodes().values()) {
      n += episodeBytes(e.labels(), e.annotations());
      n += e.holds().entrySet().stream().mapToLong(o -> o.getKey().length() + o.getValue().key().length()
          + o.getValue().value().length() + 30).sum();
      n += e.notified().stream().mapToLong(step -> step.length() + 3).sum();
    }
    return n;
  }

  private static long episodeBytes(Map<String, String> labels, Map<String, String> annotations) {
    long n = EPISODE_OVERHEAD;
    for (Map<String, String> m : List.of(labels, annotations)) {
      for (Map.Entry<String, String> e : m.entrySet()) {
        n += e.getKey().length() + e.getValue().length() + 6;
      }
    }
    return n;
  }
}
