package io.gpuremediator.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.OffsetDateTime;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Rfc3339Test {
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"2026-11-22T10:00:00Z", "2026-11-22T10:00:00.123Z", "2026-11-22T10:00:00.123456789Z",
      "2026-11-22T10:00:00.5+05:30", "2026-11-22T10:00:00-08:00", "0001-01-01T00:00:00Z", "2024-02-29T23:59:59Z"})
  void agreesWithTheJdkOnValidTimes(String text) {
    assertThat(Rfc3339.parse(text)).contains(OffsetDateTime.parse(text).toInstant());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"2026-02-29T10:00:00Z", "2026-13-01T10:00:00Z", "2026-11-22 10:00:00Z", "2026-11-22T24:00:00Z",
      "2026-11-22T10:00:00", "2026-11-22T10:00:00.1234567891Z", "yesterday", "2026-11-22T10:00:00+5:30"})
  void refusesWhatIsNotRfc3339(String text) {
    assertThat(Rfc3339.parse(text)).isEmpty();
  }
}
