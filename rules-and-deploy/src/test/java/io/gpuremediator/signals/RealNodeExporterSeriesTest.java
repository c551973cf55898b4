package io.gpuremediator.signals;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * rules/tests/real-node-exporter_test.yml says its node-exporter series are node_exporter's recorded ones: every one
 * of them is a label set of tests/real/node-exporter/ plus only the labels our scrape adds, starting at its recorded
 * value, so the test stays built from the capture and not from what we would like node_exporter to print.
 */
class RealNodeExporterSeriesTest {
  private static final Path CAPTURE = Path.of("../tests/real/node-exporter/e2e-output-infiniband-edac.prom");
  private static final Path TEST = Path.of("../rules/tests/real-node-exporter_test.yml");
  private static final Set<String> SCRAPE_LABELS = Set.of("job", "instance", "node");

  @Test
  void everyNodeExporterSeriesOfTheTestIsARecordedLabelSetStartingAtItsRecordedValue() throws Exception {
    Map<Map<String, String>, Double> recorded = new HashMap<>();
    for (String line : Files.readAllLines(CAPTURE)) {
      if (!line.startsWith("#") && !line.isBlank()) {
        int space = line.lastIndexOf(' ');
        recorded.put(PromtoolTests.selector(line.substring(0, space)), Double.parseDouble(line.substring(space + 1)));
      }
    }
    assertThat(recorded).as("the capture's samples").hasSizeGreaterThan(20);
    Set<String> families = new HashSet<>();
    List<PromtoolTests.Case> cases = PromtoolTests.read(TEST).cases();
    int checked = 0;
    for (PromtoolTests.Case c : cases) {
      for (PromtoolTests.Input in : c.series()) {
        if (!in.labels().get("__name__").startsWith("node_")) {
          continue;
        }
        Map<String, String> asRecorded = new TreeMap<>(in.labels());
        assertThat(asRecorded.keySet()).as("%s carries the scrape's labels", in.labels()).containsAll(SCRAPE_LABELS);
        asRecorded.keySet().removeAll(SCRAPE_LABELS);
        assertThat(recorded).as("%s is a recorded label set", asRecorded).containsKey(asRecorded);
        assertThat(in.values().get(0)).as("%s starts at its recorded value", asRecorded).isEqualTo(recorded.get(asRecorded));
        families.add(asRecorded.get("__name__"));
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(10);
    assertThat(families).as("every family the rules read").contains("node_infiniband_state_id",
        "node_infiniband_link_downed_total", "node_infiniband_link_error_recovery_total", "node_edac_uncorrectable_errors_total",
        "node_edac_csrow_uncorrectable_errors_total");
  }
}
