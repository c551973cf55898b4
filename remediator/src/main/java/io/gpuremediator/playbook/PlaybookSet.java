package io.gpuremediator.playbook;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The playbooks in force, in precedence order (file name, then order in the file). Immutable: a
 * reload builds a new set and swaps it in whole.
 *
 * @param version a digest of the sources, to tell which set decided
 */
public record PlaybookSet(List<Playbook> playbooks, String version) {
  /** The set with no playbooks. */
  public static final PlaybookSet EMPTY = new PlaybookSet(List.of(), "");

  /** Copies the list. */
  public PlaybookSet {
    playbooks = List.copyOf(playbooks);
  }

  /** The first playbook whose matchers all hold. */
  public Optional<Playbook> firstMatch(Map<String, String> labels) {
    for (Playbook p : playbooks) {
      if (p.matches(labels)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** The playbook of this name. */
  public Optional<Playbook> named(String name) {
    return playbooks.stream().filter(p -> p.name().equals(name)).findFirst();
  }
}
