package io.gpuremediator.state;

import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The ledger of one node: each change we made (a claim) with the alerts holding it, and the alert
 * episodes active on the node. A change is undone only when its last holder releases it, and never
 * when it was there before us. Immutable; every modification returns a new ledger.
 */
public final class NodeLedger {
  /** The ledger of a node we never touched. */
  public static final NodeLedger EMPTY = new NodeLedger(new TreeMap<>(), new TreeMap<>());

  private final SortedMap<String, Claim> claims;
  private final SortedMap<String, Episode> episodes;

  /** Trusts its arguments: only called with maps this class built and never shares. */
  private NodeLedger(TreeMap<String, Claim> claims, TreeMap<String, Episode> episodes) {
    this.claims = Collections.unmodifiableSortedMap(claims);
    this.episodes = Collections.unmodifiableSortedMap(episodes);
  }

  /** A ledger with copies of these claims and episodes, sorted so that the stored form is deterministic. */
  public static NodeLedger of(Map<String, Claim> claims, Map<String, Episode> episodes) {
    return new NodeLedger(new TreeMap<>(claims), new TreeMap<>(episodes));
  }

  /** Every claim, by claim key. */
  public SortedMap<String, Claim> claims() {
    return claims;
  }

  /** Every active episode, by fingerprint. */
  public SortedMap<String, Episode> episodes() {
    return episodes;
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
      holders = Collections.unmodifiableSortedSet(new TreeSet<>(holders));
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
    if (existing != null && existing.holders().contains(holder)) {
      return this;
    }
    TreeSet<String> holders = existing == null ? new TreeSet<>() : new TreeSet<>(existing.holders());
    holders.add(holder);
    TreeMap<String, Claim> next = new TreeMap<>(claims);
    next.put(key, new Claim(holders, existing == null ? preexisting : existing.preexisting()));
    return new NodeLedger(next, new TreeMap<>(episodes));
  }

  /** Removes {@code holder} from a claim, dropping the claim when no holder is left. */
  public NodeLedger release(String key, String holder) {
    Claim existing = claims.get(key);
    if (existing == null || !existing.holders().contains(holder)) {
      return this;
    }
    TreeSet<String> holders = new TreeSet<>(existing.holders());
    holders.remove(holder);
    TreeMap<String, Claim> next = new TreeMap<>(claims);
    if (holders.isEmpty()) {
      next.remove(key);
    } else {
      next.put(key, new Claim(holders, existing.preexisting()));
    }
    return new NodeLedger(next, new TreeMap<>(episodes));
  }

  /** Records an active episode (replacing one with the same fingerprint). */
  public NodeLedger withEpisode(Episode episode) {
    TreeMap<String, Episode> next = new TreeMap<>(episodes);
    next.put(episode.fingerprint(), episode);
    return new NodeLedger(new TreeMap<>(claims), next);
  }

  /** Forgets the active episode of an alert. */
  public NodeLedger withoutEpisode(String fingerprint) {
    if (!episodes.containsKey(fingerprint)) {
      return this;
    }
    TreeMap<String, Episode> next = new TreeMap<>(episodes);
    next.remove(fingerprint);
    return new NodeLedger(new TreeMap<>(claims), next);
  }

  /** Whether nothing is remembered, so the annotation can go. */
  public boolean isEmpty() {
    return claims.isEmpty() && episodes.isEmpty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NodeLedger other && claims.equals(other.claims) && episodes.equals(other.episodes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(claims, episodes);
  }

  @Override
  public String toString() {
    return "NodeLedger[claims=" + claims + ", episodes=" + episodes + "]";
  }
}
