package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A node's times in the API server's plain form read as the general parser reads them; any other form is left to it. */
class NodeMapperTimeTest {
  @Test
  void thePlainFormReadsAsInstantParseReadsIt() {
    for (String text : List.of("2026-11-27T23:27:07Z", "1970-01-01T00:00:00Z", "2024-02-29T12:00:59Z", "9999-12-31T23:59:59Z")) {
      assertThat(NodeMapper.plainUtc(text)).as(text).isEqualTo(Instant.parse(text));
    }
  }

  /** A real GKE Node as its API server wrote it (tests/real/nodes/gke-k80-default-pool.yaml, source in SOURCES.md). */
  @Test
  void aRealApiServersTimestampReadsAsInstantParseReadsIt() throws IOException {
    String line = Files.readAllLines(Path.of("../tests/real/nodes/gke-k80-default-pool.yaml")).stream()
        .filter(l -> l.strip().startsWith("creationTimestamp:")).findFirst().orElseThrow();
    String text = line.substring(line.indexOf(':') + 1).strip();
    assertThat(text).isEqualTo("2017-11-02T14:00:08Z");
    assertThat(NodeMapper.plainUtc(text)).isEqualTo(Instant.parse(text));
  }

  @Test
  void anyOtherFormOrAnImpossibleDateIsLeftToTheGeneralParser() {
    for (String text : List.of("2026-11-27T23:27:07.5Z", "2026-11-27T23:27:07+01:00", "2026-11-27t23:27:07Z",
        "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-1a-01T00:00:00Z", "2026-11-27T24:00:00Z")) {
      assertThatThrownBy(() -> NodeMapper.plainUtc(text)).as(text).isInstanceOfAny(DateTimeException.class,
          NumberFormatException.class);
    }
  }
}
