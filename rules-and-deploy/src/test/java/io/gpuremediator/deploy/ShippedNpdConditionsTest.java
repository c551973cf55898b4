package io.gpuremediator.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The shipped GPU NPD writes the node conditions NodeConditionProblem reads. Its {@code command} replaces the image's
 * ENTRYPOINT ({@code --config.system-log-monitor=/config/kernel-monitor.json,/config/readonly-monitor.json} in
 * kubernetes/node-problem-detector's Dockerfile at the release shipped), so NPD's own monitors run only when it names
 * them; they are read here as that release ships them (tests/real/npd).
 */
class ShippedNpdConditionsTest {
  private static final Path DAEMONSET = Path.of("../deploy/npd/daemonset-gpu.yaml");
  private static final Path RECORDED = Path.of("../tests/real/npd");
  private static final Path RULE = Path.of("../rules/node-health.rules.yml");
  private static final Pattern MONITORS = Pattern.compile("--config\\.(system-log|custom-plugin)-monitor=(.+)");

  @Test
  void everyConditionTheNodeConditionRuleReadsIsWrittenByAMonitorTheShippedNpdRuns() throws IOException {
    List<String> command = command();
    Set<String> written = new LinkedHashSet<>();
    for (String monitor : monitors(command)) {
      if (monitor.startsWith("/config/plugin/")) {
        continue; // our GPU plugins, mounted from deploy/npd
      }
      Path shipped = RECORDED.resolve(Path.of(monitor).getFileName());
      assertThat(shipped).as("%s is a config the NPD image ships (recorded in tests/real/npd)", monitor).exists();
      written.addAll(conditionTypes(Files.readString(shipped)));
    }
    assertThat(written).containsAll(ruleConditions());
  }

  @Test
  void theImageIsTheReleaseWhoseConfigsAreRecorded() throws IOException {
    String image = (String) container().get("image");
    String tag = image.substring(image.lastIndexOf(':') + 1);
    assertThat(Files.readString(RECORDED.resolveSibling("SOURCES.md"))).as("tests/real/SOURCES.md names " + tag)
        .contains("`config/` @ " + tag);
  }

  @Test
  void noVolumeHidesTheConfigsTheImageShips() {
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> mounts = (List<Map<String, Object>>) container().get("volumeMounts");
    assertThat(mounts).extracting(m -> (String) m.get("mountPath")).noneMatch(p -> p.equals("/config") || p.equals("/config/"));
  }

  private static List<String> command() {
    @SuppressWarnings("unchecked")
    List<String> command = (List<String>) container().get("command");
    return command;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> container() {
    try {
      Map<String, Object> ds = Manifests.byKey(Files.readString(DAEMONSET)).values().iterator().next();
      Map<String, Object> pod = Manifests.map(Manifests.map(Manifests.map(ds, "spec"), "template"), "spec");
      return ((List<Map<String, Object>>) pod.get("containers")).get(0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> monitors(List<String> command) {
    List<String> out = new ArrayList<>();
    for (String arg : command) {
      Matcher m = MONITORS.matcher(arg);
      if (m.matches()) {
        out.addAll(List.of(m.group(2).split(",")));
      }
    }
    return out;
  }

  /** The condition types a monitor config declares ({@code conditions[].type}; JSON, read as the YAML it also is). */
  @SuppressWarnings("unchecked")
  private static Set<String> conditionTypes(String config) {
    Map<String, Object> monitor = new Yaml().load(config);
    Set<String> out = new LinkedHashSet<>();
    for (Map<String, Object> c : (List<Map<String, Object>>) monitor.getOrDefault("conditions", List.of())) {
      out.add((String) c.get("type"));
    }
    return out;
  }

  /** The NPD conditions NodeConditionProblem reads, from its {@code condition} selectors. */
  private static List<String> ruleConditions() throws IOException {
    Matcher m = Pattern.compile("kube_node_status_condition\\{condition=~?\"([^\"]+)\"").matcher(Files.readString(RULE));
    assertThat(m.find()).as("NodeConditionProblem selects conditions by a regex").isTrue();
    List<String> out = new ArrayList<>(List.of(m.group(1).split("\\|")));
    while (m.find()) {
      out.addAll(List.of(m.group(1).split("\\|")));
    }
    return out;
  }
}
