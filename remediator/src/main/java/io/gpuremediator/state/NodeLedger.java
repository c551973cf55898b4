package io.gpuremediator.state;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The ledger of one node: each change we made (a claim) with the alerts holding it, and the alert
 * episodes active on the node. A change is undone only when its last holder releases it, and never
 * when it was there before us. Immutable; every modification returns a new ledger.
 */
public record NodeLedger(Map<String, Claim> claims, Map<String, Episode> episodes) {
  /** The ledger of a node we never touched. */
  public static final NodeLedger EMPTY = new NodeLedger(Map.of(), Map.of());

  /** Copies into sorted maps so that the stored form is deterministic. */
  public NodeLedger {
    claims = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(claims));
    episodes = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(episodes));
  }

  /**
   * One change we made or adopted.
   *
   * @param holders the fingerprints of the alerts that need the change
   * @param preexisting true when the node already had it before we claimed it: we never undo it
   */
  public record Claim(SortedSet<String> holders, boolean preexisting) {
    /** Copies the holders. */
    public Claim {
      holders = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(holders));
    }
  }

  /** An alert episode being remediated on the node. */
  public record Episode(String fingerprint, String alertname, String playbook, Instant startsAt, Instant since) {
    /** Validates presence. */
    public Episode {
      Objects.requireNonNull(fingerprint, "fingerprint");
      Objects.requireNonNull(alertname, "alertname");
      Objects.requireNonNull(playbook, "playbook");
      Objects.requireNonNull(startsAt, "startsAt");
      Objects.requireNonNull(since, "since");
    }
  }

  /** The claim on a change, if we hold it. */
  public Optional<Claim> claim(String key) {
    return Optional.ofNullable(claims.get(key));
  }

  /** Adds {@code holder} to a claim, creating it (with {@code preexisting}) when new. */
  public NodeLedger hold(String key, String holder, boolean preexisting) {
    Claim existing = claims.get(key);
    TreeSet<String> holders = new TreeSet<>(existing == null ? java.util.Set.of() : existing.holders());
    holders.add(holder);
    Map<String, Claim> next = new TreeMap<>(claims);
    next.put(key, new Claim(holders, existing == null ? preexisting : existing.preexisting()));
    return new NodeLedger(next, episodes);
  }

  /** Removes {@code holder} from a claim, dropping the claim when no holder is left. */
  public NodeLedger release(String key, String holder) {
    Claim existing = claims.get(key);
    if (existing == null) {
      return this;
    }
    TreeSet<String> holders = new TreeSet<>(existing.holders());
    holders.remove(holder);
    Map<String, Claim> next = new TreeMap<>(claims);
    if (holders.isEmpty()) {
      next.remove(key);
    } else {
      next.put(key, new Claim(holders, existing.preexisting()));
    }
    return new NodeLedger(next, episodes);
  }

  /** Records an active episode (replacing one with the same fingerprint). */
  public NodeLedger withEpisode(Episode episode) {
    Map<String, Episode> next = new TreeMap<>(episodes);
    next.put(episode.fingerprint(), episode);
    return new NodeLedger(claims, next);
  }

  /** Forgets the active episode of an alert. */
  public NodeLedger withoutEpisode(String fingerprint) {
    if (!episodes.containsKey(fingerprint)) {
      return this;
    }
    Map<String, Episode> next = new TreeMap<>(episodes);
    next.remove(fingerprint);
    return new NodeLedger(claims, next);
  }

  /** Whether nothing is remembered, so the annotation can go. */
  public boolean isEmpty() {
    return claims.isEmpty() && episodes.isEmpty();
  }
}
