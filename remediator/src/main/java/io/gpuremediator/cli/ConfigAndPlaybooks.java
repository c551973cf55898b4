package io.gpuremediator.cli;

import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.playbook.load.LoadResult;
import io.gpuremediator.playbook.load.PlaybookLoader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;

/** The service config and the playbooks it names, as the offline commands read them; every error printed. */
record ConfigAndPlaybooks(RemediatorConfig config, PlaybookSet playbooks) {
  /** Both, or empty once each error is printed on {@code err}. */
  static Optional<ConfigAndPlaybooks> read(Path file, PrintStream err) {
    ConfigLoader.Result loaded = ConfigLoader.load(file);
    if (loaded.config().isEmpty()) {
      loaded.errors().forEach(err::println);
      return Optional.empty();
    }
    LoadResult playbooks = PlaybookLoader.load(loaded.config().get().playbooks());
    if (!playbooks.isValid()) {
      playbooks.errors().forEach(err::println);
      return Optional.empty();
    }
    return Optional.of(new ConfigAndPlaybooks(loaded.config().get(), playbooks.set()));
  }
}
