package io.gpuremediator.state;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
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
 * The ledger of one node: each change we made (a claim) with the alerts holding it, and the alert
 * episodes active on the node. A change is undone only when its last holder releases it, and never
 * when it was there before us. Immutable; every modification returns a new ledger.
 */
public final class NodeLedger {
  /** The ledger of a node we never touched. */
  public static final NodeLedger EMPTY = new NodeLedger(new TreeMap<>(), new TreeMap<>());

  /** The most silence ids kept waiting to be expired: far more than a node's episodes ever hold. */
  public static final int EXPIRING_LIMIT = 64;

  /** Past episodes kept per node: enough for escalation and duplicate detection, small on the Node. */
  public static final int HISTORY_LIMIT = 32;

  private final SortedMap<String, Claim> claims;
  private final SortedMap<String, Episode> episodes;
  private final List<PastEpisode> history;
  private final List<String> expiring;

  /** Trusts its arguments: only called with collections this class built and never shares. */
  private NodeLedger(TreeMap<String, Claim> claims, TreeMap<String, Episode> episodes, List<PastEpisode> history,
      List<String> expiring) {
    this.claims = Collections.unmodifiableSortedMap(claims);
    this.episodes = Collections.unmodifiableSortedMap(episodes);
    this.history = Collections.unmodifiableList(history);
    this.expiring = Collections.unmodifiableList(expiring);
  }

  private NodeLedger(TreeMap<String, Claim> claims, TreeMap<String, Episode> episodes) {
    this(claims, episodes, List.of(), List.of());
  }

  /**
   * A ledger with copies of these claims, episodes and past episodes (oldest first; only the newest
   * {@value #HISTORY_LIMIT} are kept), sorted so that the stored form is deterministic.
   */
  public static NodeLedger of(Map<String, Claim> claims, Map<String, Episode> episodes, List<PastEpisode> history) {
    return of(claims, episodes, history, List.of());
  }

  /** The same, with the Alertmanager silences of ended episodes still to be expired (the newest are kept). */
  public static NodeLedger of(Map<String, Claim> claims, Map<String, Episode> episodes, List<PastEpisode> history,
      List<String> expiring) {
    List<PastEpisode> kept = history.size() > HISTORY_LIMIT
        ? history.subList(history.size() - HISTORY_LIMIT, history.size()) : history;
    List<String> ids = expiring.size() > EXPIRING_LIMIT
        ? expiring.subList(expiring.size() - EXPIRING_LIMIT, expiring.size()) : expiring;
    return new NodeLedger(new TreeMap<>(claims), new TreeMap<>(episodes), new ArrayList<>(kept), new ArrayList<>(ids));
  }

  /**
   * The ids of Alertmanager silences that ended episodes held, still to be expired: an episode's end (a release)
   * moves them here in the same write, so an Alertmanager that is down then does not leave them muting the node.
   */
  public List<String> expiring() {
    return expiring;
  }

  /** Without its oldest past episode (the first to go when the ledger would outgrow its limit). */
  public NodeLedger withoutOldestPastEpisode() {
    return history.isEmpty() ? this : of(claims, episodes, history.subList(1, history.size()), expiring);
  }

  /** Without these silence ids (they were expired). */
  public NodeLedger withoutExpiring(Collection<String> expired) {
    List<String> left = new ArrayList<>(expiring);
    left.removeAll(expired);
    return of(claims, episodes, history, left);
  }

  /** Past episodes, oldest first. */
  public List<PastEpisode> history() {
    return history;
  }

  /** An episode that ended (released, or its node replaced): {@code playbook} ran it last, its alert {@code matched}. */
  public record PastEpisode(String fingerprint, Instant startsAt, String playbook, Instant since, Instant releasedAt,
      String matched) {
    /** Validates presence; an episode recorded before {@code matched} was kept matched the playbook that ran it. */
    public PastEpisode {
      Objects.requireNonNull(playbook, "playbook");
      matched = matched == null || matched.isEmpty() ? playbook : matched;
    }
  }

  /**
   * Whether this episode (fingerprint + startsAt) was already handled on this node: the one "already handled" check of
   * the webhook, the engine's write and the storm count. A firing alert is handled when its episode is active; a
   * resolution when its episode already waits to be released or is releasing; either when it is past.
   */
  public boolean handled(String fingerprint, Instant startsAt, boolean firing) {
    Episode active = episodes.get(fingerprint);
    if (active != null && active.startsAt().equals(startsAt)
        && (firing || active.progress().resolved() || active.progress().releasing())) {
      return true;
    }
    for (PastEpisode p : history) {
      if (p.fingerprint().equals(fingerprint) && p.startsAt().equals(startsAt)) {
        return true;
      }
    }
    return false;
  }

  /** When a playbook's episode on this node was last released. */
  public Optional<Instant> lastRelease(String playbook) {
    Instant last = null;
    for (PastEpisode p : history) {
      if (p.playbook().equals(playbook) && (last == null || p.releasedAt().isAfter(last))) {
        last = p.releasedAt();
      }
    }
    return Optional.ofNullable(last);
  }

  /**
   * How many episodes whose alert matched one of {@code playbooks} started on this node since {@code from}, active and
   * past, whatever they ran after (an episode escalated by a failed repair still counts: a repair loop ends on the
   * ladder).
   */
  public int episodesSince(Set<String> playbooks, Instant from) {
    long active = episodes.values().stream().filter(e -> playbooks.contains(e.matched()) && !e.since().isBefore(from)).count();
    long past = history.stream().filter(p -> playbooks.contains(p.matched()) && !p.since().isBefore(from)).count();
    return (int) (active + past);
  }

  /** Ends an active episode: it moves to the history with its release time. */
  public NodeLedger released(String fingerprint, Instant now) {
    Episode active = episodes.get(fingerprint);
    if (active == null) {
      return this;
    }
    TreeMap<String, Episode> next = new TreeMap<>(episodes);
    next.remove(fingerprint);
    List<PastEpisode> past = new ArrayList<>(history);
    past.add(new PastEpisode(active.fingerprint(), active.startsAt(), active.playbook(), active.since(), now,
        active.matched()));
    List<String> toExpire = new ArrayList<>(expiring);
    toExpire.addAll(active.silenceIds());
    return of(claims, next, past, toExpire);
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
    return new NodeLedger(next, new TreeMap<>(episodes), history, expiring);
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
    return new NodeLedger(next, new TreeMap<>(episodes), history, expiring);
  }

  /** Records an active episode (replacing one with the same fingerprint). */
  public NodeLedger withEpisode(Episode episode) {
    TreeMap<String, Episode> next = new TreeMap<>(episodes);
    next.put(episode.fingerprint(), episode);
    return new NodeLedger(new TreeMap<>(claims), next, history, expiring);
  }

  /** Whether nothing is remembered, so the annotation can go. */
  public boolean isEmpty() {
    return claims.isEmpty() && episodes.isEmpty() && history.isEmpty() && expiring.isEmpty();
  }

  /** Whether we hold any change on the node: it is quarantined by us. */
  public boolean holdsChanges() {
    return !claims.isEmpty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NodeLedger other && claims.equals(other.claims) && episodes.equals(other.episodes)
        && history.equals(other.history) && expiring.equals(other.expiring);
  }

  @Override
  public int hashCode() {
    return Objects.hash(claims, episodes, history, expiring);
  }

  @Override
  public String toString() {
    return "NodeLedger[claims=" + claims + ", episodes=" + episodes + ", history=" + history + ", expiring=" + expiring + "]";
  }
}
