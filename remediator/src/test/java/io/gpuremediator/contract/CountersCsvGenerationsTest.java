package io.gpuremediator.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One counters CSV per dcgm-exporter generation, each loaded by every exporter of its generation the GPU Operator
 * shipped: dcgm-exporter exits on a row it does not know. What an exporter knows is recorded per release tag in
 * tests/real/dcgm-exporter/known-fields (the field-name maps of the go-dcgm its go.mod pins, and the DCGM_EXP_ names of
 * its own source; tests/real/SOURCES.md). Each older CSV carries every row of the newest that all its exporters know,
 * under the name they know it by.
 */
class CountersCsvGenerationsTest {
  private static final Path DCGM = Path.of("../dcgm");
  private static final Path KNOWN = Path.of("../tests/real/dcgm-exporter/known-fields");
  /** The names one DCGM field has had: a rule reads each; a CSV names the one its exporters know. */
  static final List<Set<String>> RENAMED = List.of(
      Set.of("DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION", "DCGM_FI_DEV_GPU_RECOVERY_ACTION"),
      Set.of("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"),
      Set.of("DCGM_FI_DEV_NVLINK_GET_STATE", "DCGM_FI_DEV_NVLINK_LINK_STATUS"));

  /** The dcgm-exporter each GPU Operator release ships (its values.yaml) and the CSV made for it. */
  static Stream<Arguments> shipped() {
    return Stream.of(
        Arguments.of("v23.9.1", "3.3.0-3.2.0", "counters-3.3.csv"),
        Arguments.of("v24.3.0", "3.3.5-3.4.1", "counters-3.3.csv"),
        Arguments.of("v24.6.0", "3.3.7-3.5.0", "counters-3.3.csv"),
        Arguments.of("v24.9.0", "3.3.8-3.6.0", "counters-3.3.csv"),
        Arguments.of("v24.9.2", "3.3.9-3.6.1", "counters-3.3.csv"),
        Arguments.of("v25.3.0", "4.1.1-4.0.4", "counters-4.1.csv"),
        Arguments.of("v25.10.0", "4.4.1-4.6.0", "counters-4.1.csv"),
        Arguments.of("v26.3.0", "4.5.1-4.8.0", "counters.csv"),
        Arguments.of("(exporter release)", "4.5.2-4.8.1", "counters.csv"));
  }

  /** The enabled rows of a CSV, or with {@code commented} also the rows commented out for an opt-in. */
  static List<String> rows(Path csv, boolean commented) throws IOException {
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(csv)) {
      String row = commented && line.startsWith("# DCGM_") ? line.substring(2) : line;
      if (!row.isBlank() && !row.startsWith("#")) {
        out.add(row.split(",", 2)[0].strip());
      }
    }
    return out;
  }

  private static Set<String> known(String exporter) throws IOException {
    Set<String> out = new TreeSet<>();
    for (String line : Files.readAllLines(KNOWN.resolve(exporter + ".txt"))) {
      if (!line.isBlank() && !line.startsWith("#")) {
        out.add(line.strip());
      }
    }
    return out;
  }

  /** The names a field has had, itself included. */
  static Set<String> namesOf(String field) {
    return RENAMED.stream().filter(s -> s.contains(field)).findFirst().orElse(Set.of(field));
  }

  @ParameterizedTest(name = "GPU Operator {0}: dcgm-exporter {1} loads {2}")
  @MethodSource("shipped")
  void everyRowOfTheGenerationsCsvIsAFieldItsExporterKnows(String operator, String exporter, String csv) throws IOException {
    Set<String> known = known(exporter);
    assertThat(known).as("known fields of " + exporter).hasSizeGreaterThan(300);
    assertThat(rows(DCGM.resolve(csv), true)).as(csv + " (opt-in rows uncommented) for dcgm-exporter " + exporter)
        .allSatisfy(row -> assertThat(known).contains(row));
  }

  /**
   * What every exporter that loads {@code csv} knows: a row one of them lacks would make it exit
   * (DCGM_EXP_XID_ERRORS_COUNT, from 3.3.5, stays out of the CSV 3.3.0 loads too).
   */
  private static Set<String> knownToAll(String csv) throws IOException {
    Set<String> out = null;
    for (Arguments a : shipped().toList()) {
      if (a.get()[2].equals(csv)) {
        Set<String> k = known((String) a.get()[1]);
        if (out == null) {
          out = new TreeSet<>(k);
        } else {
          out.retainAll(k);
        }
      }
    }
    return out;
  }

  @ParameterizedTest(name = "GPU Operator {0}: {2} leaves out only what an exporter loading it ({1} among them) cannot serve")
  @MethodSource("shipped")
  void theGenerationsCsvCarriesEveryRowOfTheNewestItsExporterKnows(String operator, String exporter, String csv)
      throws IOException {
    Set<String> known = knownToAll(csv);
    List<String> rows = rows(DCGM.resolve(csv), true);
    Map<String, String> missing = new LinkedHashMap<>();
    for (String newest : rows(DCGM.resolve("counters.csv"), true)) {
      Set<String> names = namesOf(newest);
      boolean carried = rows.stream().anyMatch(names::contains);
      boolean servable = names.stream().anyMatch(known::contains);
      if (!carried && servable) {
        missing.put(newest, "known to every exporter loading " + csv + " as "
            + names.stream().filter(known::contains).toList());
      }
    }
    assertThat(missing).as(csv).isEmpty();
  }
}
