package io.gpuremediator.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rules/gpu-xid.rules.yml held to NVIDIA's Xid catalog spreadsheet itself (tests/real/xid-catalog): every code of the
 * catalog is given to the rules as dcgm-exporter reports it, and promtool checks that exactly the codes whose immediate
 * action is a repair or a human raise GpuXidHardwareError, each with the action its bucket asks for (rules/README.md,
 * "XID catalog").
 */
class XidCatalogRulesTest {
  private static final Path RULES = Path.of("../rules").toAbsolutePath().normalize();
  /** Every bucket the catalog may name in its immediate-action column; a new one must be mapped before it is trusted. */
  private static final Set<String> KNOWN_BUCKETS = Set.of("RESET_GPU", "WORKFLOW_XID_48", "WORKFLOW_NVLINK_ERR",
      "RESTART_BM", "RESTART_VM", "CONTACT_SUPPORT", "CHECK_MECHANICALS", "UPDATE_SWFW", "CHECK_UVM",
      "WORKFLOW_NVLINK5_ERR", "RESTART_APP", "IGNORE", "WORKFLOW_XID_45", "XID_154", "");
  private static XidCatalog catalog;
  @TempDir Path dir;

  @BeforeAll
  static void read() throws Exception {
    catalog = XidCatalog.read();
  }

  /**
   * What a code reported by dcgm-exporter asks for, by its immediate action, on whichever GPU reports it (the catalog's
   * columns name four architectures; older GPUs report codes "Unused" on all four): nothing for the workload's buckets
   * and IGNORE, and for NVLink5 codes whose decode rows differ (the exporter gives the number, not the message that
   * decides).
   */
  private static Optional<String> expectedFromDcgm(XidCatalog.Xid xid) {
    return switch (xid.immediateAction()) {
      case "RESET_GPU", "WORKFLOW_XID_48", "WORKFLOW_NVLINK_ERR" -> Optional.of("reset_gpu");
      case "RESTART_BM", "RESTART_VM" -> Optional.of("reboot");
      case "CONTACT_SUPPORT", "CHECK_MECHANICALS", "UPDATE_SWFW", "CHECK_UVM" -> Optional.of("service");
      case "WORKFLOW_NVLINK5_ERR" -> {
        Set<String> buckets = catalog.nvlink5Decode().stream().filter(r -> r.xid() == xid.code())
            .map(XidCatalog.DecodeRow::bucket).collect(Collectors.toSet());
        yield buckets.equals(Set.of("RESET_GPU")) ? Optional.of("reset_gpu") : Optional.empty();
      }
      default -> Optional.empty();
    };
  }

  @Test
  void theCatalogIsTheRevisionTheRulesFollow() {
    assertThat(catalog.xids()).hasSize(172);
    assertThat(catalog.xids().get(160).immediateAction()).isEqualTo("IGNORE");
    assertThat(catalog.xids().get(154).mnemonic()).isEqualTo("GPU_RECOVERY_ACTION_CHANGED");
    assertThat(catalog.xids().values()).extracting(XidCatalog.Xid::immediateAction)
        .allSatisfy(bucket -> assertThat(KNOWN_BUCKETS).contains(bucket));
    assertThat(catalog.nvlink5Decode()).extracting(XidCatalog.DecodeRow::xid).containsOnly(144, 145, 146, 147, 148, 149, 150);
  }

  @Test
  void theWorkloadsXidsAreNeverARepairInTheCatalog() {
    for (int code : new int[] {13, 31, 43, 45, 68}) {
      assertThat(catalog.xids().get(code).immediateAction()).as("XID " + code)
          .isIn("RESTART_APP", "IGNORE", "WORKFLOW_XID_45");
    }
  }

  /**
   * The NPD XID plugin reads an NVLink5 line by the driver's own word: "Nonfatal" asks for nothing, "Fatal" for a reset.
   * Every Non-fatal row of the decode sheet is IGNORE or left to Xid 154, so the first never drops a repair the catalog
   * asks for; the Fatal rows are RESET_GPU but for the two IGNORE rows of 149 named here (a reset the catalog does not
   * ask for, unless the driver's Xid 154 says otherwise, which the plugin follows first).
   */
  @Test
  void theNvlink5DecodeSheetAgreesWithTheDriversFatalWord() {
    for (XidCatalog.DecodeRow row : catalog.nvlink5Decode()) {
      if (row.severity().startsWith("Non-fatal")) {
        assertThat(row.bucket()).as(row.toString()).isIn("IGNORE", "XID_154_EVAL");
      }
    }
    assertThat(catalog.nvlink5Decode().stream().filter(r -> !r.severity().startsWith("Non-fatal") && !r.bucket().equals("RESET_GPU")))
        .extracting(XidCatalog.DecodeRow::xid, XidCatalog.DecodeRow::bucket)
        .containsExactly(tuple(149, "IGNORE"), tuple(149, "IGNORE"));
  }

  @Test
  void everyCodeOfTheCatalogRaisesExactlyWhatItsBucketAsks() throws Exception {
    StringBuilder series = new StringBuilder();
    Map<String, String> expected = new TreeMap<>();
    for (XidCatalog.Xid xid : catalog.xids().values()) {
      series.append("      - series: 'DCGM_FI_DEV_XID_ERRORS{gpu=\"0\",device=\"nvidia0\",Hostname=\"xid-").append(xid.code())
          .append("\",err_code=\"").append(xid.code()).append("\",err_msg=\"").append(xid.mnemonic().replaceAll("[^A-Z0-9_ ]", " "))
          .append("\",job=\"dcgm-exporter\",node=\"xid-").append(xid.code()).append("\"}'\n")
          .append("        values: '").append(xid.code()).append("x5'\n");
      expectedFromDcgm(xid).ifPresent(action -> expected.put(String.valueOf(xid.code()), action));
    }
    assertThat(expected).containsEntry("110", "reset_gpu").containsEntry("136", "reset_gpu").containsEntry("151", "reboot")
        .containsEntry("54", "service").containsEntry("142", "service").containsEntry("150", "reset_gpu")
        .containsEntry("57", "service").doesNotContainKeys("160", "147", "148", "152", "13");
    assertThat(catalog.xids().get(57).occursOnDatacenterGpus()).as("XID 57 is Unused on the four columns").isFalse();
    StringBuilder samples = new StringBuilder();
    expected.forEach((code, action) -> samples.append("          - {labels: '{xid=\"").append(code)
        .append("\", recommended_action=\"").append(action).append("\"}', value: 1}\n"));
    String test = "rule_files: [" + RULES.resolve("gpu-xid.rules.yml") + ", " + RULES.resolve("node-conditions.rules.yml") + "]\n"
        + "evaluation_interval: 1m\n"
        + "tests:\n"
        + "  - name: every code of Xid-Catalog.xlsx\n"
        + "    interval: 1m\n"
        + "    input_series:\n" + series
        + "    promql_expr_test:\n"
        + "      - expr: count by (xid, recommended_action) (ALERTS{alertname=\"GpuXidHardwareError\", alertstate=\"firing\"})\n"
        + "        eval_time: 2m\n"
        + "        exp_samples:\n" + samples;
    Path file = dir.resolve("xid-catalog_test.yml");
    Files.writeString(file, test);
    Process p = new ProcessBuilder("promtool", "test", "rules", file.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("SUCCESS");
  }
}
