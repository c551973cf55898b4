package io.gpuremediator.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.sweep.SweepPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sweeps}: each item decoded with its defaults, and each mistake named with its line. */
class SweepsDecoderTest {
  @TempDir Path dir;

  private ConfigLoader.Result load(String... lines) throws IOException {
    Path f = dir.resolve("remediator.yaml");
    Files.writeString(f, "auth: {insecure_no_auth: true}\n" + String.join("\n", lines) + "\n");
    return ConfigLoader.load(f);
  }

  @Test
  void decodesEachSweepWithItsDefaults() throws IOException {
    RemediatorConfig c = load("sweeps:",
        "  - {name: weekly-diag, every: 7d, playbook: gpu-sweep}",
        "  - {name: train-pool, every: 1d, playbook: gpu-sweep, select: \"pool=train\", max_concurrent: 4,",
        "     priority_class: idle-only}").config().orElseThrow();
    assertThat(c.sweeps()).hasSize(2);
    SweepPolicy weekly = c.sweeps().get(0);
    assertThat(weekly.every()).isEqualTo(Duration.ofDays(7));
    assertThat(weekly.maxConcurrent()).isEqualTo(1);
    assertThat(weekly.select()).isEmpty();
    assertThat(weekly.priorityClass()).isEqualTo("gpu-remediator-sweep");
    SweepPolicy train = c.sweeps().get(1);
    assertThat(train.maxConcurrent()).isEqualTo(4);
    assertThat(train.priorityClass()).isEqualTo("idle-only");
    assertThat(train.select().orElseThrow().matches(Map.of("pool", "train"))).isTrue();
    assertThat(load("dry_run: false").config().orElseThrow().sweeps()).isEmpty();
  }

  @Test
  void namesEachMistakeWithItsLine() throws IOException {
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load("sweeps:",
        "  - {name: Weekly_Diag, every: 5m, playbook: gpu-sweep, max_concurrent: 0, priority_class: \"Not A Class\", at: 3}",
        "  - {every: 40d}",
        "  - {name: twice, every: 1h, playbook: gpu-sweep}",
        "  - {name: twice, every: 2h, playbook: gpu-sweep}").errors()).containsExactly(
        f + ":3: \"name\" in sweeps item must be a lowercase RFC 1123 label of at most 63 characters (a-z, 0-9, '-'), not"
            + " \"Weekly_Diag\"",
        f + ":3: \"every\" in sweeps item must be from 10m to 30d, not 5m",
        f + ":3: \"max_concurrent\" in sweeps item must be 1 to 100, not 0",
        f + ":3: \"priority_class\" in sweeps item: \"Not A Class\" is not a lowercase RFC 1123 subdomain (a-z, 0-9, '-',"
            + " '.')",
        f + ":3: unknown key \"at\" in sweeps item",
        f + ":4: missing required key \"name\" in sweeps item",
        f + ":4: \"every\" in sweeps item must be from 10m to 30d, not 40d",
        f + ":4: missing required key \"playbook\" in sweeps item",
        f + ":6: sweeps item: \"name\" twice is given twice (each sweep's Jobs are told apart by it)");
  }
}
