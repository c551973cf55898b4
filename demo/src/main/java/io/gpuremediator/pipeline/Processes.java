package io.gpuremediator.pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The processes the pipeline started, each stopped by its PID: SIGTERM, then SIGKILL after a grace
 * period. Their PIDs are also written to a file, so that a run killed before it could stop them is
 * cleaned up by the next one.
 */
public final class Processes implements AutoCloseable {
  private static final long GRACE_SECONDS = 15;

  /** One started process. */
  public record Started(String name, Process process, Path log) {
    public long pid() {
      return process.pid();
    }
  }

  private final Path pidFile;
  private final Path workingDirectory;
  private final List<Started> started = new ArrayList<>();

  public Processes(Path pidFile, Path workingDirectory) {
    this.pidFile = pidFile;
    this.workingDirectory = workingDirectory;
  }

  /** Starts {@code command} with stdout and stderr going to {@code log}. */
  public synchronized Started start(String name, List<String> command, Path log) throws IOException {
    Process p = new ProcessBuilder(command).directory(workingDirectory.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    Started s = new Started(name, p, log);
    started.add(s);
    Files.writeString(pidFile, p.pid() + " " + name + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    return s;
  }

  public synchronized List<Started> started() {
    return List.copyOf(started);
  }

  /** Stops every process by its PID, the last started first. */
  @Override
  public synchronized void close() {
    for (int i = started.size() - 1; i >= 0; i--) {
      stop(started.get(i).process());
    }
    try {
      Files.deleteIfExists(pidFile);
    } catch (IOException e) {
      // A stale file only makes the next run check PIDs that are gone.
    }
  }

  private static void stop(Process p) {
    p.destroy();
    try {
      if (!p.waitFor(GRACE_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(GRACE_SECONDS, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops what a previous run left behind: each PID in {@code pidFile} that is still alive and whose
   * command line names {@code workDir} (a PID reused by an unrelated process is left alone).
   * Returns how many were stopped.
   */
  public static int reapStale(Path pidFile, Path workDir) throws IOException {
    if (!Files.exists(pidFile)) {
      return 0;
    }
    int reaped = 0;
    for (String line : Files.readAllLines(pidFile)) {
      String[] f = line.split(" ", 2);
      if (f.length < 2 || !f[0].matches("\\d+")) {
        continue;
      }
      var handle = ProcessHandle.of(Long.parseLong(f[0]));
      if (handle.isPresent() && handle.get().info().commandLine().orElse("").contains(workDir.toString())) {
        handle.get().destroy();
        try {
          handle.get().onExit().get(GRACE_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
          handle.get().destroyForcibly();
        }
        reaped++;
      }
    }
    Files.delete(pidFile);
    return reaped;
  }
}
