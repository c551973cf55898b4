package io.gpuremediator.playbook.load;

import io.gpuremediator.playbook.PlaybookSet;
import java.util.List;

/**
 * The result of loading every playbook source: the set (meaningful only when {@link #isValid()}) and
 * each file's result, in precedence order.
 */
public record LoadResult(PlaybookSet set, List<PlaybookFile> files) {
  /** Copies the list. */
  public LoadResult {
    files = List.copyOf(files);
  }

  /** Whether every file is valid (and the sources were readable). */
  public boolean isValid() {
    return files.stream().allMatch(PlaybookFile::isValid);
  }

  /** Every error of every file. */
  public List<String> errors() {
    return files.stream().flatMap(f -> f.errors().stream()).toList();
  }
}
