package io.gpuremediator.verdict;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The verdicts of the recorded {@code dcgmi diag -j} documents of tests/real/dcgm (SOURCES.md): a passing run has none;
 * a GPU's faulty memory (DCGM_FR_FAULTY_MEMORY, hardware memory) goes to service; a host-side PCIe replay violation
 * (DCGM_FR_PCIE_H_REPLAY_VIOLATION, hardware PCIe) reboots; NVLinks down (DCGM_FR_NVLINK_DOWN, hardware
 * NVLink) reset the GPU. Several failures take the worst rung.
 */
class DcgmDiagVerdictTest {
  private static String recorded(String name) throws IOException {
    return Files.readString(Path.of("../tests/real/dcgm/diag-v4-" + name + ".json"));
  }

  @Test
  void aPassingRunHasNoVerdict() throws IOException {
    assertThat(DcgmDiagVerdict.isDocument(recorded("pass"))).isTrue();
    assertThat(DcgmDiagVerdict.of(recorded("pass"))).isEmpty();
  }

  @Test
  void faultyMemoryGoesToService() throws IOException {
    assertThat(DcgmDiagVerdict.of(recorded("memory-fail"))).hasValueSatisfying(v -> {
      assertThat(v.rung()).isEqualTo(Rung.SERVICE);
      assertThat(v.failures()).containsExactly("diagnostic GPU 3: error 52 (severity isolate, hardware memory): Found 4"
          + " faulty memory elements on GPU 3");
    });
  }

  @Test
  void aPcieReplayViolationReboots() throws IOException {
    assertThat(DcgmDiagVerdict.of(recorded("pcie-replay-fail"))).hasValueSatisfying(v -> {
      assertThat(v.rung()).isEqualTo(Rung.REBOOT);
      assertThat(v.describe()).isEqualTo("verdict reboot (pcie GPU 5: error 98 (severity isolate, hardware PCIe): GPU 5"
          + " host-side PCIe replay violation, see dmesg for more information)");
    });
  }

  @Test
  void nvlinksDownResetTheGpu() throws IOException {
    assertThat(DcgmDiagVerdict.of(recorded("nvlink-down-fail"))).hasValueSatisfying(v -> {
      assertThat(v.rung()).isEqualTo(Rung.RESET_GPU);
      assertThat(v.failures()).hasSize(5).allSatisfy(f -> assertThat(f).contains("error 14 (severity triage, hardware NVLink)"));
      assertThat(v.failures().get(0)).endsWith("GPU 0's NvLink link 0 is currently down");
    });
  }

  @Test
  void severalFailuresTakeTheWorstRungAndALogLineBeforeTheDocumentIsSkipped() throws IOException {
    String nvlink = recorded("nvlink-down-fail");
    assertThat(DcgmDiagVerdict.of("Successfully ran diagnostic for group.\n" + nvlink)).hasValueSatisfying(v ->
        assertThat(v.rung()).isEqualTo(Rung.RESET_GPU));
    String memoryAndNvlink = recorded("memory-fail").replace(recorded("pass").substring(recorded("pass")
        .indexOf("\"category\": \"Integration\"")), nvlink.substring(nvlink.indexOf("\"category\": \"Integration\"")));
    assertThat(DcgmDiagVerdict.of(memoryAndNvlink)).hasValueSatisfying(v -> {
      assertThat(v.rung()).as("service outranks a GPU reset").isEqualTo(Rung.SERVICE);
      assertThat(v.failures()).hasSize(6);
    });
  }

  @Test
  void textThatIsNoDiagnosticDocumentHasNoVerdict() {
    assertThat(DcgmDiagVerdict.of("Error: unable to establish a connection to the host engine")).isEmpty();
    assertThat(DcgmDiagVerdict.of("{\"other\": {}}")).isEmpty();
    assertThat(DcgmDiagVerdict.of("{ truncated")).isEmpty();
  }
}
