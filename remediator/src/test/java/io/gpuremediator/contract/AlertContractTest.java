package io.gpuremediator.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.playbook.load.PlaybookLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.Yaml;

/**
 * The alert table of the design contract, held against rules/ (names, labels, annotations),
 * rules/runbooks/, rules/tests/ (a firing and a non-firing case each) and the shipped playbooks
 * (remediation-class alerts match one; the others match none); and the alerts on the remediator itself
 * (rules/remediator.rules.yml), which carry no node, never remediate="true", and have a runbook and tests each.
 */
class AlertContractTest {
  private static final Path RULES = Path.of("../rules");
  private static final Map<String, Map<String, Object>> ALERTS = new HashMap<>();
  private static final Map<String, String> RECORDS = new HashMap<>();
  private static final Map<String, List<Boolean>> TESTED = new HashMap<>();
  private static PlaybookSet playbooks;

  static Stream<Arguments> contract() {
    return Stream.of(
        Arguments.of("GpuXidHardwareError", "critical", true),
        Arguments.of("GpuXidApplicationError", "info", false),
        Arguments.of("GpuXidApplicationRepeated", "critical", true),
        Arguments.of("GpuRecoveryActionRequired", "critical", true),
        Arguments.of("GpuEccUncorrectable", "critical", true),
        Arguments.of("GpuEccCorrectableRate", "warning", false),
        Arguments.of("GpuRowRemapFailure", "critical", true),
        Arguments.of("GpuNvlinkDown", "critical", true),
        Arguments.of("GpuNvlinkErrors", "warning", false),
        Arguments.of("GpuFabricManagerDown", "critical", true),
        Arguments.of("GpuFabricDegraded", "critical", true),
        Arguments.of("GpuCountDropped", "critical", true),
        Arguments.of("GpuTelemetryMissing", "warning", false),
        Arguments.of("GpuTelemetryWedged", "critical", true),
        Arguments.of("GpuThermal", "warning", false),
        Arguments.of("NeuronHardwareError", "critical", true),
        Arguments.of("NeuronCollectivesHang", "warning", false),
        Arguments.of("NeuronEccUncorrected", "warning", false),
        Arguments.of("GpuPcieReplayRate", "warning", false),
        Arguments.of("GpuClocksThrottled", "warning", false),
        Arguments.of("GpuPeerOutlier", "warning", false),
        Arguments.of("NodeMemoryUncorrectable", "critical", true),
        Arguments.of("InfinibandLinkDown", "critical", true),
        Arguments.of("InfinibandLinkFlapping", "warning", false),
        Arguments.of("GpuPcieLinkDegraded", "critical", true),
        Arguments.of("NodeConditionProblem", "critical", true));
  }

  /** The alerts on the remediator itself ("Watching the watcher"), by severity: none is a remediation alert. */
  static Stream<Arguments> selfAlerts() {
    return Stream.of(
        Arguments.of("GpuRemediatorDown", "critical"),
        Arguments.of("GpuRemediatorBreakerOpen", "critical"),
        Arguments.of("GpuRemediatorPausedLong", "warning"),
        Arguments.of("GpuRemediatorNodesNeedHuman", "warning"),
        Arguments.of("GpuRemediatorStepOverdue", "warning"),
        Arguments.of("GpuRemediatorWebhookFailing", "critical"),
        Arguments.of("GpuRemediatorBudgetExhausted", "warning"),
        Arguments.of("GpuRemediatorNotificationsDropped", "warning"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("selfAlerts")
  @SuppressWarnings("unchecked")
  void aSelfAlertGoesToPeopleWithItsRunbookAndBothKindsOfTest(String alert, String severity) {
    assertThat(ALERTS).containsKey(alert);
    Map<String, String> labels = (Map<String, String>) ALERTS.get(alert).get("labels");
    assertThat(labels).containsEntry("severity", severity).doesNotContainKey("remediate");
    Map<String, String> annotations = (Map<String, String>) ALERTS.get(alert).get("annotations");
    assertThat(annotations).containsKeys("summary", "description")
        .containsEntry("runbook_url", "https://gpu-remediator.io/runbooks/" + alert);
    assertThat(RULES.resolve("runbooks/" + alert + ".md")).exists();
    assertThat(TESTED.get(alert)).as("alert_rule_test cases of " + alert).contains(true, false);
    assertThat(playbooks.firstMatch(Map.of("alertname", alert, "severity", severity))).isEmpty();
  }

  @BeforeAll
  @SuppressWarnings("unchecked")
  static void read() throws IOException {
    RuleFiles.Rules rules = RuleFiles.read(RULES);
    RECORDS.putAll(rules.records());
    ALERTS.putAll(rules.alerts());
    try (Stream<Path> files = Files.list(RULES.resolve("tests"))) {
      for (Path f : files.filter(p -> p.toString().endsWith("_test.yml")).toList()) {
        Map<String, Object> doc = new Yaml().load(Files.readString(f));
        for (Map<String, Object> test : (List<Map<String, Object>>) doc.get("tests")) {
          for (Map<String, Object> t : (List<Map<String, Object>>) test.getOrDefault("alert_rule_test", List.of())) {
            List<?> expected = (List<?>) t.get("exp_alerts");
            TESTED.computeIfAbsent((String) t.get("alertname"), k -> new ArrayList<>()).add(!expected.isEmpty());
          }
        }
      }
    }
    playbooks = PlaybookLoader.load(List.of(Path.of("../deploy/playbooks"))).set();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("contract")
  @SuppressWarnings("unchecked")
  void alertCarriesItsContractLabelsAndAnnotations(String alert, String severity, boolean remediate) {
    assertThat(ALERTS).containsKey(alert);
    Map<String, String> labels = (Map<String, String>) ALERTS.get(alert).get("labels");
    assertThat(labels.get("severity")).isEqualTo(severity);
    assertThat(labels.get("remediate")).isEqualTo(remediate ? "true" : null);
    Map<String, String> annotations = (Map<String, String>) ALERTS.get(alert).get("annotations");
    assertThat(annotations).containsKeys("summary", "description", "runbook_url");
    assertThat(annotations.get("runbook_url")).isEqualTo("https://gpu-remediator.io/runbooks/" + alert);
    assertThat(RULES.resolve("runbooks/" + alert + ".md")).exists();
    assertThat(withRecordsItReads((String) ALERTS.get(alert).get("expr"))).contains("node");
  }

  /** An alert that reads only recorded series gets its node label from their expressions. */
  private static String withRecordsItReads(String expr) {
    StringBuilder all = new StringBuilder(expr);
    RECORDS.forEach((name, recordExpr) -> {
      if (expr.contains(name)) {
        all.append('\n').append(recordExpr);
      }
    });
    return all.toString();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("contract")
  void alertHasAFiringAndANonFiringUnitTest(String alert, String severity, boolean remediate) {
    assertThat(TESTED.get(alert)).as("alert_rule_test cases of " + alert).contains(true, false);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("contract")
  void onlyRemediationClassAlertsMatchAShippedPlaybook(String alert, String severity, boolean remediate) {
    Map<String, String> labels = new HashMap<>(Map.of("alertname", alert, "severity", severity, "node", "gpu-node-1"));
    if (remediate) {
      labels.put("remediate", "true");
    }
    assertThat(playbooks.firstMatch(labels).isPresent()).isEqualTo(remediate);
  }

  @Test
  void everyDcgmMetricTheRulesReadIsEnabledInTheCountersCsv() throws IOException {
    Set<String> enabled = new TreeSet<>();
    for (String line : Files.readAllLines(Path.of("../dcgm/counters.csv"))) {
      if (!line.isBlank() && !line.startsWith("#")) {
        enabled.add(line.split(",", 2)[0].strip());
      }
    }
    Set<String> read = dcgmFieldsReadBy(RULES);
    assertThat(read).isNotEmpty();
    // A renamed field is read under each of its names (CountersCsvGenerationsTest.RENAMED); the CSV enables one.
    assertThat(read).allSatisfy(metric -> assertThat(CountersCsvGenerationsTest.namesOf(metric)).as(metric)
        .containsAnyElementsOf(enabled));
  }

  /** The DCGM fields the rule files of {@code dir} read (their comments aside). */
  private static Set<String> dcgmFieldsReadBy(Path dir) throws IOException {
    Set<String> read = new TreeSet<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".rules.yml")).toList()) {
        Matcher m = Pattern.compile("\\bDCGM_(?:FI|EXP)_[A-Z0-9_]+").matcher(
            Files.readString(f).replaceAll("(?m)^\\s*#.*$", ""));
        while (m.find()) {
          read.add(m.group());
        }
      }
    }
    return read;
  }

  /** An opt-in rule file reads a field the CSV carries as a commented row: turning it on is uncommenting it. */
  @Test
  void everyDcgmMetricAnOptInRuleReadsIsACommentedRowOfTheCountersCsv() throws IOException {
    String csv = Files.readString(Path.of("../dcgm/counters.csv"));
    Set<String> read = dcgmFieldsReadBy(RULES.resolve("opt-in"));
    assertThat(read).isNotEmpty();
    for (String metric : read) {
      assertThat(CountersCsvGenerationsTest.namesOf(metric)).as(metric)
          .anySatisfy(name -> assertThat(csv).containsPattern("(?m)^# " + name + ", "));
    }
  }

  /** Every node condition the node-health rules name is one node-problem-detector's shipped configs write (tests/real/npd). */
  @Test
  void everyNodeConditionTheRulesNameIsOneNpdWrites() throws IOException {
    Set<String> written = new TreeSet<>();
    try (Stream<Path> configs = Files.list(Path.of("../tests/real/npd"))) {
      for (Path f : configs.toList()) {
        Matcher m = Pattern.compile("\\{\\s*\"type\":\\s*\"([A-Z]\\w+)\"").matcher(Files.readString(f));
        while (m.find()) {
          written.add(m.group(1));
        }
      }
    }
    String expr = (String) ALERTS.get("NodeConditionProblem").get("expr");
    Matcher named = Pattern.compile("condition=~?\"([^\"]+)\"").matcher(expr);
    Set<String> read = new TreeSet<>();
    while (named.find()) {
      read.addAll(List.of(named.group(1).split("\\|")));
    }
    assertThat(read).contains("KernelDeadlock", "ReadonlyFilesystem", "FrequentKubeletRestart", "CperHardwareErrorFatal");
    assertThat(written).containsAll(read);
  }

  /** Every DCGM health code the rules name is a string dcgm-exporter writes (tests/real/dcgm-exporter/health-error-codes.txt). */
  @Test
  void everyHealthCodeTheRulesNameIsOneTheExporterWrites() throws IOException {
    String written = Files.readString(Path.of("../tests/real/dcgm-exporter/health-error-codes.txt"));
    Set<String> named = new TreeSet<>();
    try (Stream<Path> files = Files.list(RULES)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".rules.yml")).toList()) {
        Matcher m = Pattern.compile("health_error_code(?:=|!~|=~)\"([^\"]+)\"").matcher(Files.readString(f));
        while (m.find()) {
          named.addAll(List.of(m.group(1).split("\\|")));
        }
      }
    }
    assertThat(named).contains("DCGM_FR_NVLINK_DOWN", "DCGM_FR_IMEX_UNHEALTHY")
        .allSatisfy(code -> assertThat(written).containsPattern(":\\s+\"" + code + "\","));
  }

  @Test
  void noAlertOutsideTheContract() {
    assertThat(ALERTS.keySet()).containsExactlyInAnyOrderElementsOf(Stream.concat(contract(), selfAlerts())
        .map(a -> (String) a.get()[0]).toList());
  }
}
