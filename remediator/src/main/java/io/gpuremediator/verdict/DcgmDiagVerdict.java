package io.gpuremediator.verdict;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a {@code dcgmi diag -j} document (DCGM 4's {@code "DCGM Diagnostic"}, DCGM 3's {@code "DCGM GPU Diagnostic"}:
 * {@code test_categories[].tests[].results[]}) into a {@link Verdict}. Each failed result's warnings carry DCGM's
 * {@code error_id}, {@code error_severity} and {@code error_category} (dcgmlib/dcgm_errors.h, the table of
 * dcgm_errors.c); a warning's rung is {@link Rung#RESET_GPU} where DCGM says "drain and reset" (severity RESET) or the
 * fault is NVLink's (DCGM's next step for a link down: "Reset GPU. Restart DCGM. Rerun diagnostics."), {@link
 * Rung#REBOOT} for the PCIe link and the software stack, and {@link Rung#SERVICE} for memory, NVSwitch, thermal, power
 * and other hardware. The verdict is the worst rung over every failure; a document with no failure that names a
 * category (or none at all) has no verdict, and the step's {@code on_fail} decides.
 */
public final class DcgmDiagVerdict {
  /** DCGM's {@code DCGM_ERROR_RESET}: "Drain and reset GPU". */
  private static final int SEVERITY_RESET = 6;
  private static final Map<Integer, String> SEVERITIES = Map.of(0, "none", 1, "monitor", 2, "isolate", 3, "unknown",
      4, "triage", 5, "config", 6, "reset");
  /** {@code dcgmErrorCategory_t}: the name, and the rung a fault of it needs (none: not a hardware verdict). */
  private static final Map<Integer, Category> CATEGORIES = Map.ofEntries(
      Map.entry(3, new Category("software config", Rung.REBOOT)), Map.entry(4, new Category("software library", Rung.REBOOT)),
      Map.entry(5, new Category("software XID", Rung.REBOOT)), Map.entry(6, new Category("software CUDA", Rung.REBOOT)),
      Map.entry(7, new Category("software EUD", Rung.REBOOT)), Map.entry(8, new Category("software other", Rung.REBOOT)),
      Map.entry(9, new Category("hardware thermal", Rung.SERVICE)), Map.entry(10, new Category("hardware memory", Rung.SERVICE)),
      Map.entry(11, new Category("hardware NVLink", Rung.RESET_GPU)),
      Map.entry(12, new Category("hardware NVSwitch", Rung.SERVICE)), Map.entry(13, new Category("hardware PCIe", Rung.REBOOT)),
      Map.entry(14, new Category("hardware power", Rung.SERVICE)), Map.entry(15, new Category("hardware other", Rung.SERVICE)));
  private static final List<String> ENVELOPES = List.of("DCGM Diagnostic", "DCGM GPU Diagnostic");
  private static final ObjectMapper JSON = new ObjectMapper();

  private record Category(String name, Rung rung) {}

  private DcgmDiagVerdict() {}

  /** Whether the text holds a DCGM diagnostic document (its envelope's name appears in it). */
  public static boolean isDocument(String text) {
    return ENVELOPES.stream().anyMatch(e -> text.contains("\"" + e + "\""));
  }

  /** The verdict of the document in {@code log} (from its first '{'); empty when it is none or names no failure. */
  public static Optional<Verdict> of(String log) {
    int start = log.indexOf('{');
    JsonNode root;
    try {
      root = start < 0 ? null : JSON.readTree(log.substring(start));
    } catch (IOException e) {
      return Optional.empty();
    }
    JsonNode diag = root == null ? null : ENVELOPES.stream().map(root::path).filter(JsonNode::isObject).findFirst()
        .orElse(null);
    if (diag == null) {
      return Optional.empty();
    }
    Rung worst = null;
    List<String> failures = new ArrayList<>();
    for (JsonNode category : diag.path("test_categories")) {
      for (JsonNode test : category.path("tests")) {
        for (JsonNode result : test.path("results")) {
          if (!result.path("status").asText().toLowerCase(Locale.ROOT).equals("fail")) {
            continue;
          }
          for (JsonNode w : result.path("warnings")) {
            Optional<Rung> rung = rung(w);
            if (rung.isPresent()) {
              worst = worst == null || rung.get().compareTo(worst) > 0 ? rung.get() : worst;
              failures.add(describe(test.path("name").asText(), result, w));
            }
          }
        }
      }
    }
    return worst == null ? Optional.empty() : Optional.of(new Verdict(worst, failures));
  }

  private static Optional<Rung> rung(JsonNode warning) {
    if (warning.path("error_severity").asInt(-1) == SEVERITY_RESET) {
      return Optional.of(Rung.RESET_GPU);
    }
    return Optional.ofNullable(CATEGORIES.get(warning.path("error_category").asInt(-1))).map(Category::rung);
  }

  private static String describe(String test, JsonNode result, JsonNode w) {
    String entity = result.has("entity_id") ? "GPU " + result.path("entity_id").asText()
        : "GPU " + result.path("gpu_ids").asText("?");
    Category c = CATEGORIES.get(w.path("error_category").asInt(-1));
    return test + " " + entity + ": error " + w.path("error_id").asText("?") + " (severity "
        + SEVERITIES.getOrDefault(w.path("error_severity").asInt(-1), "?") + ", " + (c == null ? "no category" : c.name())
        + "): " + w.path("warning").asText("");
  }
}
