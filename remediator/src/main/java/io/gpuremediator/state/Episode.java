package io.gpuremediator.state;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An alert episode being remediated on the node.
 *
 * @param progress where it is in the closed loop
 * @param labels the alert's labels, kept (capped) so steps run later render the same templates
 * @param annotations the alert's annotations, likewise
 * @param holds what the episode holds off its node (a silence, a GPU fence, an evidence Job), by the key of the step
 *     that took it ({@code handed_over/<key>}: one an earlier episode of the same node handed over); the ledger sees
 *     each as a holding with its holders ({@link NodeLedger#holdings})
 * @param notified the keys of the steps whose notification was sent (recorded before it is queued)
 * @param matched the playbook the alert matched; {@code playbook} runs it (another after an escalation)
 */
public record Episode(String fingerprint, String alertname, String playbook, Instant startsAt, Instant since,
    Progress progress, SortedMap<String, String> labels, SortedMap<String, String> annotations,
    SortedMap<String, Held> holds, SortedSet<String> notified, String matched) {
  /** The step key prefix of a holding handed over by an earlier episode. */
  public static final String HANDED_OVER = "handed_over/";
  /** The most labels or annotations an episode keeps, and the most characters of each value. */
  public static final int CONTEXT_ENTRIES = 64;
  /** The most characters of a kept label or annotation value. */
  public static final int CONTEXT_VALUE_CHARS = 1024;

  /** Validates presence; caps and copies the alert's labels and annotations. */
  public Episode {
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(alertname, "alertname");
    Objects.requireNonNull(playbook, "playbook");
    Objects.requireNonNull(startsAt, "startsAt");
    Objects.requireNonNull(since, "since");
    Objects.requireNonNull(progress, "progress");
    labels = capped(labels);
    annotations = capped(annotations);
    holds = Collections.unmodifiableSortedMap(once(holds == null ? Map.of() : holds));
    notified = Collections.unmodifiableSortedSet(new TreeSet<>(notified == null ? Set.of() : notified));
    matched = matched == null || matched.isEmpty() ? playbook : matched;
  }

  /** An episode whose firing steps all ran, with no alert context kept. */
  public Episode(String fingerprint, String alertname, String playbook, Instant startsAt, Instant since) {
    this(fingerprint, alertname, playbook, startsAt, since, Progress.settled(since), Map.of(), Map.of());
  }

  /** Builds from any maps, holding nothing yet. */
  public Episode(String fingerprint, String alertname, String playbook, Instant startsAt, Instant since,
      Progress progress, Map<String, String> labels, Map<String, String> annotations) {
    this(fingerprint, alertname, playbook, startsAt, since, progress, labels, annotations, null);
  }

  /** Builds from any maps (capped and copied), holding nothing yet, for an alert that matched {@code matched}. */
  public Episode(String fingerprint, String alertname, String playbook, Instant startsAt, Instant since,
      Progress progress, Map<String, String> labels, Map<String, String> annotations, String matched) {
    this(fingerprint, alertname, playbook, startsAt, since, progress, new TreeMap<>(labels), new TreeMap<>(annotations),
        new TreeMap<>(), new TreeSet<>(), matched);
  }

  /** The same episode at another point of its progress. */
  public Episode with(Progress p) {
    return new Episode(fingerprint, alertname, playbook, startsAt, since, p, labels, annotations, holds, notified,
        matched);
  }

  /** The same episode run by another playbook (an escalation), from its first step; what it holds stays. */
  public Episode escalatedTo(String other, Progress p) {
    return new Episode(fingerprint, alertname, other, startsAt, since, p, labels, annotations, holds, notified,
        matched);
  }

  private Episode holding(SortedMap<String, Held> next) {
    return new Episode(fingerprint, alertname, playbook, startsAt, since, progress, labels, annotations, next, notified,
        matched);
  }

  /** The same episode holding {@code held} for its step {@code stepKey} (replacing what that step held). */
  public Episode withHeld(String stepKey, Held held) {
    TreeMap<String, Held> next = new TreeMap<>(holds);
    next.put(stepKey, held);
    return holding(next);
  }

  /** The same episode no longer holding what its step {@code stepKey} held (it was lost, or given back). */
  public Episode withoutHeld(String stepKey) {
    TreeMap<String, Held> next = new TreeMap<>(holds);
    next.remove(stepKey);
    return holding(next);
  }

  /** The same episode holding nothing of {@code kind} any more (given back by a step). */
  public Episode withoutKind(String kind) {
    TreeMap<String, Held> next = new TreeMap<>(holds);
    next.values().removeIf(h -> h.kind().equals(kind));
    return holding(next);
  }

  /**
   * The same episode holding, besides its own, what {@code earlier} (an episode it replaces on the node) holds of
   * {@code kind}: an added holder, so the thing is never given back between the two.
   */
  public Episode handedOver(Episode earlier, String kind) {
    TreeMap<String, Held> next = new TreeMap<>(holds);
    earlier.holds.forEach((key, h) -> {
      if (h.kind().equals(kind)) {
        next.put(key.startsWith(HANDED_OVER) ? key : HANDED_OVER + key, h);
      }
    });
    return holding(next);
  }

  /** What the episode holds of {@code kind}, in step order. */
  public List<Held> held(String kind) {
    return holds.values().stream().filter(h -> h.kind().equals(kind)).toList();
  }

  /**
   * The key of a step of {@code playbook}, as the episode's holdings, silences and notifications are kept:
   * {@code <playbook>/actions/<step>}, or {@code <playbook>/on_resolved/<step>} for a step of on_resolved.
   */
  public static String stepKey(String playbook, boolean onResolved, int step) {
    return playbook + (onResolved ? "/on_resolved/" : "/actions/") + step;
  }

  /** The evidence Job the episode's step {@code stepKey} created, if it holds one. */
  public Optional<EvidenceJob> evidenceJob(String stepKey) {
    return Optional.ofNullable(holds.get(stepKey)).flatMap(EvidenceJob::of);
  }

  /** The silence the episode's step {@code stepKey} holds, if any. */
  public Optional<HeldSilence> silence(String stepKey) {
    return Optional.ofNullable(holds.get(stepKey)).flatMap(HeldSilence::of);
  }

  /** The same episode holding this silence for its step {@code stepKey}, or none (null: it was lost). */
  public Episode withSilence(String stepKey, HeldSilence held) {
    return held == null ? withoutHeld(stepKey) : withHeld(stepKey, held.held());
  }

  /** Whether the notification of the episode's step {@code stepKey} was sent (recorded before it is queued). */
  public boolean notified(String stepKey) {
    return notified.contains(stepKey);
  }

  /** The same episode with its step {@code stepKey}'s notification recorded as sent. */
  public Episode withNotified(String stepKey) {
    TreeSet<String> next = new TreeSet<>(notified);
    next.add(stepKey);
    return new Episode(fingerprint, alertname, playbook, startsAt, since, progress, labels, annotations, holds, next,
        matched);
  }

  /** The evidence Jobs the episode's collect steps created, as people read them ({@link EvidenceJob#toString}). */
  public List<String> evidence() {
    return holds.values().stream().flatMap(h -> EvidenceJob.of(h).stream()).map(EvidenceJob::toString).toList();
  }

  /** The GPUs the episode's fence_gpu steps fenced (and those handed over to it), in step order. */
  public List<FencedGpu> fenced() {
    return holds.values().stream().flatMap(h -> FencedGpu.of(h).stream()).toList();
  }

  /** The ids of the silences the episode holds. */
  public List<String> silenceIds() {
    return held(HeldSilence.KIND).stream().map(Held::name).toList();
  }

  /** Each held thing once, under the first step key (in order) that holds it: the ledger keeps one holder per episode. */
  private static TreeMap<String, Held> once(Map<String, Held> holds) {
    TreeMap<String, Held> out = new TreeMap<>();
    Set<String> seen = new TreeSet<>();
    new TreeMap<>(holds).forEach((step, h) -> {
      if (seen.add(h.key())) {
        out.put(step, h);
      }
    });
    return out;
  }

  private static SortedMap<String, String> capped(Map<String, String> in) {
    TreeMap<String, String> out = new TreeMap<>();
    for (Map.Entry<String, String> e : (in == null ? Map.<String, String>of() : in).entrySet()) {
      if (out.size() >= CONTEXT_ENTRIES) {
        break;
      }
      String v = e.getValue();
      out.put(e.getKey(), v.length() <= CONTEXT_VALUE_CHARS ? v : v.substring(0, CONTEXT_VALUE_CHARS));
    }
    return Collections.unmodifiableSortedMap(out);
  }
}
