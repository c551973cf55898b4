package io.gpuremediator.playbook.load;

import io.gpuremediator.playbook.Playbook;
import java.nio.file.Path;
import java.util.List;

/** What one playbook file yielded: its playbooks when valid, and every error in it. */
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
