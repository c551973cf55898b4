package io.gpuremediator.playbook;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The playbooks in force, in precedence order (file name, then order in the file). Immutable: a
 * reload builds a new set and swaps it in whole.
 *
 * @param version a digest of the sources, to tell which set decided
 * @param builtIn the service's own playbooks (the pre-flight gate's): found by name, never matched by an alert
 */
public record PlaybookSet(List<Playbook> playbooks, String version, List<Playbook> builtIn) {
  /** The set with no playbooks. */
  public static final PlaybookSet EMPTY = new PlaybookSet(List.of(), "");

  /** Copies the lists. */
  public PlaybookSet {
    playbooks = List.copyOf(playbooks);
    builtIn = List.copyOf(builtIn);
  }

  /** The playbooks of files, with no built-in one. */
  public PlaybookSet(List<Playbook> playbooks, String version) {
    this(playbooks, version, List.of());
  }

  /** The same set with a built-in playbook (one of that name is replaced). */
  public PlaybookSet withBuiltIn(Playbook p) {
    List<Playbook> next = new ArrayList<>(builtIn.stream().filter(b -> !b.name().equals(p.name())).toList());
    next.add(p);
    return new PlaybookSet(playbooks, version, next);
  }

  /** The first playbook whose matchers all hold. */
  public Optional<Playbook> firstMatch(Map<String, String> labels) {
    return firstMatch(labels, Map.of());
  }

  /**
   * The first playbook whose alert matchers hold for the alert's labels and whose node matchers ({@code match_node})
   * hold for its Node's labels (empty when the node is not known: only playbooks without node matchers then match).
   */
  public Optional<Playbook> firstMatch(Map<String, String> labels, Map<String, String> nodeLabels) {
    for (Playbook p : playbooks) {
      if (p.matches(labels, nodeLabels)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * The rungs of {@code playbook}'s ladder: it and every playbook that escalates to the same one (a node alternating
   * between a reset-class and a reboot-class XID is one repeat offender); just it when it does not escalate.
   */
  public Set<String> ladderOf(Playbook playbook) {
    Set<String> ladder = new TreeSet<>();
    ladder.add(playbook.name());
    playbook.escalate().ifPresent(e -> playbooks.stream()
        .filter(other -> other.escalate().map(o -> o.to().equals(e.to())).orElse(false))
        .forEach(other -> ladder.add(other.name())));
    return ladder;
  }

  /** The playbook of this name (a built-in one first: no file may take its name). */
  public Optional<Playbook> named(String name) {
    for (Playbook p : builtIn) {
      if (p.name().equals(name)) {
        return Optional.of(p);
      }
    }
    return playbooks.stream().filter(p -> p.name().equals(name)).findFirst();
  }
}
