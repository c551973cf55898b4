package io.gpuremediator.playbook.load;

import io.gpuremediator.playbook.Playbook;
import java.nio.file.Path;
import java.util.List;

/**
 * What one playbook file yielded: every playbook that parsed, and every error in the file. The file is
 * valid, and its playbooks usable, only when there is no error.
 */
public record PlaybookFile(Path path, List<Playbook> playbooks, List<String> errors) {
  /** Copies the lists. */
  public PlaybookFile {
    playbooks = List.copyOf(playbooks);
    errors = List.copyOf(errors);
  }

  /** Whether the file has no error. */
  public boolean isValid() {
    return errors.isEmpty();
  }
}
