package io.gpuremediator.playbook.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Expands configured playbook paths (files or directories) into the files to load, in precedence
 * order: by file name, then by path. In a directory, only {@code *.yaml}/{@code *.yml} regular files
 * count, and names starting with a dot (a ConfigMap volume's {@code ..data} machinery) are skipped.
 */
public final class PlaybookSources {
  private PlaybookSources() {}

  /** The files to load; a path that does not exist is returned as is, so loading reports it. */
  public static List<Path> expand(List<Path> paths) throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path p : paths) {
      if (Files.isDirectory(p)) {
        try (Stream<Path> entries = Files.list(p)) {
          entries.filter(PlaybookSources::isPlaybookFile).forEach(files::add);
        }
      } else {
        files.add(p);
      }
    }
    files.sort(Comparator.comparing((Path f) -> f.getFileName().toString()).thenComparing(Path::toString));
    return files;
  }

  private static boolean isPlaybookFile(Path p) {
    String name = p.getFileName().toString();
    return !name.startsWith(".") && (name.endsWith(".yaml") || name.endsWith(".yml")) && Files.isRegularFile(p);
  }
}
