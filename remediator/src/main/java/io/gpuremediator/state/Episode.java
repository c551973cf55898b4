package io.gpuremediator.state;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An alert episode being remediated on the node.
 *
 * @param progress where it is in the closed loop
 * @param labels the alert's labels, kept (capped) so steps run later render the same templates
 * @param annotations the alert's annotations, likewise
 * @param outbound what the episode did outside Kubernetes, by step key, as the ledger keeps it: read and written
 *     through {@link #silence} and {@link #notified} ({@code silence/<key>} holds a {@link HeldSilence},
 *     {@code notify/<key>} marks a notification sent, {@code evidence/<key>} names an evidence Job,
 *     {@code fenced/<key>} holds a {@link FencedGpu})
 * @param matched the playbook the alert matched; {@code playbook} runs it (another after an escalation)
 */
public record Episode(String fingerprint, String alertname, String playbook, Instant startsAt, Instant since,
    Progress progress, SortedMap<String, String> labels, SortedMap<String, String> annotations,
    SortedMap<String, String> outbound, String matched) {
  /** The key prefix of a held silence. */
  static final String SILENCE_PREFIX = "silence/";
  /** The key prefix of a notification sent. */
  static final String NOTIFY_PREFIX = "notify/";
  /** The key prefix of an evidence Job a {@code collect} step created. */
  static final String EVIDENCE_PREFIX = "evidence/";
  /** The key prefix of a GPU a {@code fence_gpu} step fenced. */
  static final String FENCED_PREFIX = "fenced/";
  private static final String SENT = "sent";
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
    outbound = Collections.unmodifiableSortedMap(new TreeMap<>(outbound == null ? Map.of() : outbound));
    matched = matched == null || matched.isEmpty() ? playbook : matched;
  }

  /** An episode whose firing steps all ran, with no alert context kept. */
  public Episode(String fingerprint, String alertname, String playbook, Instant startsAt, Instant since) {
    this(fingerprint, alertname, playbook, startsAt, since, Progress.settled(since), Map.of(), Map.of());
  }

  /** Builds from any maps, with nothing done outside Kubernetes yet. */
  public Episode(String fingerprint, String alertname, String playbook, Instant startsAt, Instant since,
      Progress progress, Map<String, String> labels, Map<String, String> annotations) {
    this(fingerprint, alertname, playbook, startsAt, since, progress, labels, annotations, Map.of(), null);
  }

  /** Builds from any maps (capped and copied), for an alert that matched {@code matched} (null: {@code playbook}). */
  public Episode(String fingerprint, String alertname, String playbook, Instant startsAt, Instant since,
      Progress progress, Map<String, String> labels, Map<String, String> annotations, Map<String, String> outbound,
      String matched) {
    this(fingerprint, alertname, playbook, startsAt, since, progress, new TreeMap<>(labels), new TreeMap<>(annotations),
        new TreeMap<>(outbound), matched);
  }

  /** The same episode at another point of its progress. */
  public Episode with(Progress p) {
    return new Episode(fingerprint, alertname, playbook, startsAt, since, p, labels, annotations, outbound, matched);
  }

  /** The same episode run by another playbook (an escalation), from its first step; what it holds outside stays. */
  public Episode escalatedTo(String other, Progress p) {
    return new Episode(fingerprint, alertname, other, startsAt, since, p, labels, annotations, outbound, matched);
  }

  /** The same episode with an outbound entry set (a value) or removed (null). */
  private Episode withOutbound(String key, String value) {
    TreeMap<String, String> next = new TreeMap<>(outbound);
    if (value == null) {
      next.remove(key);
    } else {
      next.put(key, value);
    }
    return new Episode(fingerprint, alertname, playbook, startsAt, since, progress, labels, annotations, next,
        matched);
  }

  /** The silence the episode's step {@code stepKey} holds, if any. */
  public Optional<HeldSilence> silence(String stepKey) {
    return Optional.ofNullable(outbound.get(SILENCE_PREFIX + stepKey)).map(HeldSilence::parse);
  }

  /** The same episode holding this silence for its step {@code stepKey}, or none (null: it was lost). */
  public Episode withSilence(String stepKey, HeldSilence held) {
    return withOutbound(SILENCE_PREFIX + stepKey, held == null ? null : held.value());
  }

  /** Whether the notification of the episode's step {@code stepKey} was sent (recorded before it is queued). */
  public boolean notified(String stepKey) {
    return outbound.containsKey(NOTIFY_PREFIX + stepKey);
  }

  /** The same episode with its step {@code stepKey}'s notification recorded as sent. */
  public Episode withNotified(String stepKey) {
    return withOutbound(NOTIFY_PREFIX + stepKey, SENT);
  }

  /** The same episode with the evidence Job ({@code namespace/name}) its step {@code stepKey} created. */
  public Episode withEvidence(String stepKey, String job) {
    return withOutbound(EVIDENCE_PREFIX + stepKey, job);
  }

  /** The evidence Jobs the episode's collect steps created ({@code namespace/name}), by their steps' keys. */
  public List<String> evidence() {
    return outbound.entrySet().stream().filter(o -> o.getKey().startsWith(EVIDENCE_PREFIX)).map(Map.Entry::getValue)
        .toList();
  }

  /** The same episode with the GPU its step {@code stepKey} fenced. */
  public Episode withFenced(String stepKey, FencedGpu gpu) {
    return withOutbound(FENCED_PREFIX + stepKey, gpu.value());
  }

  /** The same episode with none of its GPUs fenced any more (its rules were deleted). */
  public Episode withoutFenced() {
    Episode out = this;
    for (String key : outbound.keySet()) {
      if (key.startsWith(FENCED_PREFIX)) {
        out = out.withOutbound(key, null);
      }
    }
    return out;
  }

  /** The same episode holding the GPUs {@code earlier} (an episode of the same alert it replaces) fenced. */
  public Episode holdingFencesOf(Episode earlier) {
    Episode out = this;
    for (Map.Entry<String, String> o : earlier.outbound.entrySet()) {
      if (o.getKey().startsWith(FENCED_PREFIX)) {
        out = out.withOutbound(FENCED_PREFIX + "inherited/" + o.getKey().substring(FENCED_PREFIX.length()), o.getValue());
      }
    }
    return out;
  }

  /** The GPUs the episode's fence_gpu steps fenced, in step order. */
  public List<FencedGpu> fenced() {
    return outbound.entrySet().stream().filter(o -> o.getKey().startsWith(FENCED_PREFIX))
        .flatMap(o -> FencedGpu.parse(o.getValue()).stream()).toList();
  }

  /** The ids of the silences the episode holds. */
  public List<String> silenceIds() {
    List<String> ids = new ArrayList<>();
    outbound.forEach((k, v) -> {
      if (k.startsWith(SILENCE_PREFIX) && !v.isBlank()) {
        ids.add(v.split(" ", 2)[0]);
      }
    });
    return ids;
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
