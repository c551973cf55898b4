package io.gpuremediator.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every package says what it is for; which packages it may use is {@link PackageRulesTest}'s to check. */
class PackageInfoTest {
  private static final Path SRC = Path.of("src/main/java/io/gpuremediator");
  @Test
  void everyPackageSaysWhatItIsFor() throws IOException {
    try (Stream<Path> dirs = Files.walk(SRC)) {
      assertThat(dirs.filter(Files::isDirectory).filter(d -> {
        try (Stream<Path> files = Files.list(d)) {
          return files.anyMatch(f -> f.toString().endsWith(".java"));
        } catch (IOException e) {
          return true;
        }
      }).filter(d -> !Files.exists(d.resolve("package-info.java"))).toList()).isEmpty();
    }
  }
}
