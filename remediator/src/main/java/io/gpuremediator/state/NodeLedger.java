package io.gpuremediator.state;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The ledger of one node: each change we made on it (a claim) with the alerts holding it, each thing held off it (a
 * holding: a silence, a GPU fence, an evidence Job) with the episodes holding it, and the alert episodes active on the
 * node. A change is undone, and a held thing given back, only when its last holder releases it; a change is never
 * undone when it was there before us. Immutable; every modification returns a new ledger.
 */
public final class NodeLedger {
  /** The ledger of a node we never touched. */
  public static final NodeLedger EMPTY = new NodeLedger(new TreeMap<>(), new TreeMap<>());

  /** The most held things kept waiting to be given back: far more than a node's episodes ever hold. */
  public static final int UNHELD_LIMIT = 64;

  /** Past episodes kept per node: enough for escalation and duplicate detection, small on the Node. */
  public static final int HISTORY_LIMIT = 32;

  private final SortedMap<String, Claim> claims;
  private final SortedMap<String, Episode> episodes;
  private final List<PastEpisode> history;
  private final List<Held> unheld;

  /** Trusts its arguments: only called with collections this class built and never shares. */
  private NodeLedger(TreeMap<String, Claim> claims, TreeMap<String, Episode> episodes, List<PastEpisode> history,
      List<Held> unheld) {
    this.claims = Collections.unmodifiableSortedMap(claims);
    this.episodes = Collections.unmodifiableSortedMap(episodes);
    this.history = Collections.unmodifiableList(history);
    this.unheld = Collections.unmodifiableList(unheld);
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

  /**
   * The same, with the things ended episodes held still to be given back (the newest {@value #UNHELD_LIMIT} are kept;
   * one an active episode holds again is not given back).
   */
  public static NodeLedger of(Map<String, Claim> claims, Map<String, Episode> episodes, List<PastEpisode> history,
      List<Held> unheld) {
    List<PastEpisode> kept = history.size() > HISTORY_LIMIT
        ? history.subList(history.size() - HISTORY_LIMIT, history.size()) : history;
    Set<String> held = heldKeys(episodes.values());
    List<Held> left = new ArrayList<>();
    for (Held h : unheld) {
      if (!held.contains(h.key()) && left.stream().noneMatch(o -> o.key().equals(h.key()))) {
        left.add(h);
      }
    }
    List<Held> newest = new ArrayList<>(left.size() > UNHELD_LIMIT ? left.subList(left.size() - UNHELD_LIMIT, left.size())
        : left);
    newest.sort(Comparator.comparing(Held::key)); // in key order, as the stored form keeps them
    return new NodeLedger(new TreeMap<>(claims), new TreeMap<>(episodes), new ArrayList<>(kept), newest);
  }

  private static Set<String> heldKeys(Collection<Episode> episodes) {
    Set<String> keys = new TreeSet<>();
    episodes.forEach(e -> e.holds().values().forEach(h -> keys.add(h.key())));
    return keys;
  }

  /**
   * What ended episodes held and no active one holds, still to be given back: an episode's end (a release) moves here
   * in the same write what it alone held, so that an outside service down then (Alertmanager, the API server) does
   * not leave a silence muting the node or a GPU fenced. The give-back loop empties it.
   */
  public List<Held> unheld() {
    return unheld;
  }

  /**
   * Every held thing on the node, by its key ({@link Held#key}), with its holders: the active episodes holding it, each
   * with the key of the step that holds it. One no episode holds any more (still to be given back) has none.
   */
  public SortedMap<String, Holding> holdings() {
    TreeMap<String, TreeMap<String, String>> holders = new TreeMap<>();
    TreeMap<String, Held> things = new TreeMap<>();
    unheld.forEach(h -> {
      things.put(h.key(), h);
      holders.put(h.key(), new TreeMap<>());
    });
    for (Episode e : episodes.values()) {
      e.holds().forEach((step, h) -> {
        things.putIfAbsent(h.key(), h);
        holders.computeIfAbsent(h.key(), k -> new TreeMap<>()).putIfAbsent(e.fingerprint(), step);
      });
    }
    TreeMap<String, Holding> out = new TreeMap<>();
    things.forEach((key, h) -> out.put(key, new Holding(h, holders.get(key))));
    return Collections.unmodifiableSortedMap(out);
  }

  /** Without its oldest past episode (the first to go when the ledger would outgrow its limit). */
  public NodeLedger withoutOldestPastEpisode() {
    return history.isEmpty() ? this : of(claims, episodes, history.subList(1, history.size()), unheld);
  }

  /** Without these things still to be given back, by key (they were given back, or seen gone). */
  public NodeLedger withoutUnheld(Collection<String> keys) {
    List<Held> left = new ArrayList<>(unheld);
    left.removeIf(h -> keys.contains(h.key()));
    return of(claims, episodes, history, left);
  }

  /** Past episodes, oldest first. */
  public List<PastEpisode> history() {
    return history;
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
    List<Held> toGiveBack = new ArrayList<>(unheld);
    toGiveBack.addAll(active.holds().values()); // of() keeps out those another active episode still holds
    return of(claims, next, past, toGiveBack);
  }

  /** Every claim, by claim key. */
  public SortedMap<String, Claim> claims() {
    return claims;
  }

  /** Every active episode, by fingerprint. */
  public SortedMap<String, Episode> episodes() {
    return episodes;
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
    return new NodeLedger(next, new TreeMap<>(episodes), history, unheld);
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
    return new NodeLedger(next, new TreeMap<>(episodes), history, unheld);
  }

  /** Records an active episode (replacing one with the same fingerprint); what it holds is no longer to be given back. */
  public NodeLedger withEpisode(Episode episode) {
    TreeMap<String, Episode> next = new TreeMap<>(episodes);
    next.put(episode.fingerprint(), episode);
    if (unheld.isEmpty() || episode.holds().isEmpty()) {
      return new NodeLedger(new TreeMap<>(claims), next, history, unheld);
    }
    return of(claims, next, history, unheld);
  }

  /** Whether nothing is remembered, so the annotation can go. */
  public boolean isEmpty() {
    return claims.isEmpty() && episodes.isEmpty() && history.isEmpty() && unheld.isEmpty();
  }

  /** Whether we hold any change on the node: it is quarantined by us. */
  public boolean holdsChanges() {
    return !claims.isEmpty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NodeLedger other && claims.equals(other.claims) && episodes.equals(other.episodes)
        && history.equals(other.history) && unheld.equals(other.unheld);
  }

  @Override
  public int hashCode() {
    return Objects.hash(claims, episodes, history, unheld);
  }

  @Override
  public String toString() {
    return "NodeLedger[claims=" + claims + ", episodes=" + episodes + ", history=" + history + ", unheld=" + unheld + "]";
  }
}
