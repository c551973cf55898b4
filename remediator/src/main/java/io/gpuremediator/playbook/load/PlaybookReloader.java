package io.gpuremediator.playbook.load;

import io.gpuremediator.playbook.PlaybookSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the playbooks in force and reloads them when their files change. A new version is swapped in
 * whole only when every file is valid; an invalid one keeps the previous set, and says so through the
 * listener and the log. {@link #check()} is called periodically by the service; it blocks on file I/O.
 */
public final class PlaybookReloader {
  private static final Logger LOGGER = LoggerFactory.getLogger(PlaybookReloader.class);

  private final List<Path> sources;
  private final Listener listener;
  private final AtomicReference<PlaybookSet> current = new AtomicReference<>(PlaybookSet.EMPTY);
  private volatile List<String> lastStamp;
  private volatile boolean loaded;

  /** Told about each load. */
  @FunctionalInterface
  public interface Listener {
    /** A load finished; {@code result} says whether it was valid. */
    void loaded(LoadResult result);
  }

  /** Creates a reloader over these configured sources. */
  public PlaybookReloader(List<Path> sources, Listener listener) {
    this.sources = List.copyOf(sources);
    this.listener = listener;
  }

  /** The playbooks in force. */
  public PlaybookSet current() {
    return current.get();
  }

  /** Whether a valid set has ever been loaded. */
  public boolean isLoaded() {
    return loaded;
  }

  /** Loads the playbooks if their files changed since the last check (or never loaded); returns the load, if any. */
  public synchronized Optional<LoadResult> check() {
    List<String> stamp = stamp();
    if (Objects.equals(stamp, lastStamp)) {
      return Optional.empty();
    }
    lastStamp = stamp;
    LoadResult result = PlaybookLoader.load(sources);
    if (result.isValid()) {
      current.set(result.set());
      loaded = true;
      LOGGER.info("playbooks loaded: {} playbooks, version {}", result.set().playbooks().size(), result.set().version());
    } else {
      LOGGER.error("playbooks NOT reloaded, keeping version {} in force; errors: {}", current.get().version(),
          String.join(" | ", result.errors()));
    }
    listener.loaded(result);
    return Optional.of(result);
  }

  /** What identifies the sources' current content cheaply: each file's path, size and modification time. */
  private List<String> stamp() {
    List<String> stamp = new ArrayList<>();
    try {
      for (Path f : PlaybookSources.expand(sources)) {
        stamp.add(f + "|" + (Files.exists(f) ? Files.size(f) + "|" + Files.getLastModifiedTime(f).toMillis() : "missing"));
      }
    } catch (IOException e) {
      stamp.add("unlistable|" + e.getMessage());
    }
    return stamp;
  }
}
