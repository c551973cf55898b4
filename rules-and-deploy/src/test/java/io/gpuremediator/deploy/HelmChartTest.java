package io.gpuremediator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.gpuremediator.pipeline.Dirs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/helm/gpu-remediator through Helm's own engine (helm-java, no helm binary): lint and template with the default
 * values and with each provider overlay's values (ci/), every rendered object valid against the Kubernetes and
 * prometheus-operator schemas (tools/validate-manifests), and each render equal, object by object, to what kustomize
 * renders for the same install, but for the differences {@link DeliberateDifference} names.
 */
class HelmChartTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path CHART = ROOT.resolve("deploy/helm/gpu-remediator");
  private static final String TOKEN = "chart-test-webhook-token-0123456789";
  private static final List<String> PROVIDERS = List.of("aws", "karpenter", "cluster-api", "redfish");
  private static final long VALIDATE_SECONDS = 120;

  @TempDir static Path work;
  private static Kustomize kustomize;

  @BeforeAll
  static void copyDeploy() throws IOException {
    kustomize = Kustomize.copy(ROOT, work, TOKEN);
  }

  private static String render(Optional<String> provider, String... sets) {
    TemplateCommand template = new Helm(CHART).template().withName("gpu-remediator").withNamespace("gpu-remediator")
        .set("webhookToken.value", TOKEN).set("operatorToken.value", "operator-" + TOKEN)
        .set("ledgerKey.value", "ledger-key-of-" + TOKEN).set("tls.crt", Kustomize.tlsFile("tls.crt"))
        .set("tls.key", Kustomize.tlsFile("tls.key")).set("tls.ca", Kustomize.tlsFile("ca.crt"));
    provider.ifPresent(p -> template.withValuesFile(CHART.resolve("ci/" + p + "-values.yaml")));
    for (int i = 0; i < sets.length; i += 2) {
      template.set(sets[i], sets[i + 1]);
    }
    return template.call();
  }

  @Test
  void theChartLintsCleanWithItsDefaultsAndWithEachProvidersValues() throws IOException {
    List<String> lines = new ArrayList<>();
    for (Optional<String> provider : withDefault()) {
      // helm-java's lint reads the chart's own values.yaml: each provider's values are merged into a copy's.
      Path copy = copyChart(provider.orElse("default"));
      provider.ifPresent(p -> mergeValues(copy, CHART.resolve("ci/" + p + "-values.yaml")));
      LintResult result = new Helm(copy).lint().strict().call();
      assertThat(result.isFailed()).as("helm lint --strict, %s: %s", provider.orElse("defaults"), result.getMessages()).isFalse();
      lines.addAll(result.getMessages());
    }
    assertThat(lines).as("lint messages").noneMatch(l -> l.contains("[ERROR]") || l.contains("[WARNING]"));
  }

  @Test
  void everyRenderIsValidAgainstTheKubernetesAndPrometheusOperatorSchemas() throws Exception {
    List<String> command = new ArrayList<>(List.of("node", ROOT.resolve("tools/validate-manifests/validate.mjs").toString()));
    for (Optional<String> provider : withDefault()) {
      Path file = work.resolve("chart-" + provider.orElse("default") + ".yaml");
      Files.writeString(file, render(provider));
      command.add(file.toString());
    }
    assertThat(ROOT.resolve("tools/validate-manifests/node_modules")).as("the validator's modules (make test-deploy installs"
        + " them)").isDirectory();
    Path log = work.resolve("validate.log");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    assertThat(p.waitFor(VALIDATE_SECONDS, TimeUnit.SECONDS)).as("validation done within %d s", VALIDATE_SECONDS).isTrue();
    assertThat(p.exitValue()).as("validate-manifests: %s", Files.readString(log)).isZero();
  }

  @Test
  void theDefaultRenderIsWhatKustomizeInstallsWithPrometheusOperatorAndGrafana() throws Exception {
    assertSameObjects(render(Optional.empty()), kustomize.render("prometheus-operator") + "\n---\n" + kustomize.render("grafana"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"aws", "karpenter", "cluster-api", "redfish"})
  void eachProvidersValuesRenderWhatItsOverlayInstalls(String provider) throws Exception {
    assertSameObjects(render(Optional.of(provider)), kustomize.render(provider) + "\n---\n" + kustomize.render("grafana"));
  }

  @Test
  void withCreateNamespaceTheChartsNamespaceIsKustomizesWithItsPodSecurityLabels() throws Exception {
    Map<String, Map<String, Object>> chart = Manifests.byKey(render(Optional.empty(), "createNamespace", "true"));
    Map<String, Map<String, Object>> installed = Manifests.byKey(kustomize.render("base"));
    DeliberateDifference.named("helm-labels").erase().accept(chart, installed);
    String key = "Namespace gpu-remediator";
    assertThat(chart).containsKey(key);
    assertThat(dump(chart.get(key))).isEqualTo(dump(installed.get(key)));
  }

  @Test
  void onlyTheReplaceProvidersTheConfigNamesGetAClusterRole() {
    assertThat(clusterRoles(render(Optional.empty()))).containsExactly("gpu-remediator");
    assertThat(clusterRoles(render(Optional.of("aws")))).as("AWS needs IAM, not Kubernetes RBAC").containsExactly("gpu-remediator");
    assertThat(clusterRoles(render(Optional.of("karpenter")))).containsExactly("gpu-remediator", "gpu-remediator-karpenter");
    assertThat(clusterRoles(render(Optional.of("cluster-api")))).containsExactly("gpu-remediator", "gpu-remediator-cluster-api");
  }

  @Test
  void theSchemaKnowsEveryKeyOfTheExampleConfigAndRefusesOneTheServiceDoesNot() throws IOException {
    Path example = work.resolve("example-values.yaml");
    Files.writeString(example, "config:\n" + Files.readAllLines(ROOT.resolve("deploy/remediator.example.yaml")).stream()
        .map(l -> "  " + l).collect(Collectors.joining("\n")) + "\n");
    String rendered = new Helm(CHART).template().withName("gpu-remediator").withNamespace("gpu-remediator")
        .withValuesFile(example).call();
    Map<String, Object> config = new Yaml().load((String) Manifests.map(Manifests.byKey(rendered)
        .get("ConfigMap gpu-remediator/gpu-remediator-config"), "data").get("remediator.yaml"));
    Map<String, Object> expected = new Yaml().load(Files.readString(ROOT.resolve("deploy/remediator.example.yaml")));
    assertThat(config).as("the example config through the chart").isEqualTo(expected);

    assertThatThrownBy(() -> render(Optional.empty(), "config.dry_runn", "false")).as("a misspelt key")
        .hasMessageContaining("dry_runn");
    assertThatThrownBy(() -> render(Optional.empty(), "config.safety.cooldown", "an hour")).as("a duration that is none")
        .hasMessageContaining("cooldown");
    assertThatThrownBy(() -> render(Optional.empty(), "webhookToken.secretName", "")).as("no token Secret")
        .hasMessageContaining("secretName");
  }

  private static List<Optional<String>> withDefault() {
    List<Optional<String>> all = new ArrayList<>(List.of(Optional.empty()));
    PROVIDERS.forEach(p -> all.add(Optional.of(p)));
    return all;
  }

  private static List<String> clusterRoles(String rendered) {
    return Manifests.byKey(rendered).values().stream().filter(o -> "ClusterRole".equals(o.get("kind")))
        .map(o -> (String) Manifests.map(o, "metadata").get("name")).sorted().toList();
  }

  private static void assertSameObjects(String chartYaml, String kustomizeYaml) {
    Map<String, Map<String, Object>> chart = Manifests.byKey(chartYaml);
    Map<String, Map<String, Object>> installed = Manifests.byKey(kustomizeYaml);
    for (DeliberateDifference d : DeliberateDifference.ALL) {
      d.erase().accept(chart, installed);
    }
    assertThat(new TreeSet<>(chart.keySet())).as("the chart's objects and kustomize's").isEqualTo(new TreeSet<>(installed.keySet()));
    for (String key : chart.keySet()) {
      assertThat(dump(chart.get(key))).as("%s, chart (actual) and kustomize (expected), once the deliberate differences (%s)"
          + " are erased", key, DeliberateDifference.ALL.stream().map(DeliberateDifference::name).toList())
          .isEqualTo(dump(installed.get(key)));
    }
  }

  /** A canonical text of an object: keys sorted at every level, so a difference reads as a diff. */
  private static String dump(Map<String, Object> object) {
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    options.setWidth(200);
    return new Yaml(options).dump(sorted(object));
  }

  @SuppressWarnings("unchecked")
  private static Object sorted(Object node) {
    if (node instanceof Map<?, ?> map) {
      Map<String, Object> out = new TreeMap<>();
      ((Map<String, Object>) map).forEach((k, v) -> out.put(k, sorted(v)));
      return out;
    }
    if (node instanceof List<?> list) {
      return list.stream().map(HelmChartTest::sorted).toList();
    }
    return node;
  }

  private static Path copyChart(String name) throws IOException {
    Path copy = work.resolve("chart-copy-" + name + "/gpu-remediator");
    Dirs.copyTree(CHART, copy);
    return copy;
  }

  @SuppressWarnings("unchecked")
  private static void mergeValues(Path chart, Path overrides) {
    try {
      Map<String, Object> values = new Yaml().load(Files.readString(chart.resolve("values.yaml")));
      deepMerge(values, new Yaml().load(Files.readString(overrides)));
      Files.writeString(chart.resolve("values.yaml"), new Yaml().dump(values));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static void deepMerge(Map<String, Object> into, Map<String, Object> from) {
    from.forEach((k, v) -> {
      if (v instanceof Map<?, ?> m && into.get(k) instanceof Map<?, ?> existing) {
        deepMerge((Map<String, Object>) existing, (Map<String, Object>) m);
      } else {
        into.put(k, v);
      }
    });
  }
}
