package io.gpuremediator.deploy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;

/**
 * What may differ between the chart's objects and kustomize's, each named with its reason; everything else must be
 * equal. Each one rewrites the two sides (chart first, kustomize second) so that the difference disappears.
 */
record DeliberateDifference(String name, String reason,
    BiConsumer<Map<String, Map<String, Object>>, Map<String, Map<String, Object>>> erase) {

  private static final Set<String> HELM_LABELS = Set.of("app.kubernetes.io/instance", "app.kubernetes.io/version",
      "app.kubernetes.io/managed-by", "helm.sh/chart");
  private static final Pattern HASHED = Pattern.compile("(gpu-remediator-(?:config|playbooks|bmcs))-[a-z0-9]{10}");
  /** Cluster-scoped kinds kustomize's namespace transformer does not know as such. */
  private static final Set<String> ADMISSION = Set.of("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding");

  static final List<DeliberateDifference> ALL = List.of(
      new DeliberateDifference("helm-labels", "Helm's standard labels (instance, version, managed-by, chart) are on"
          + " every object of the chart", (chart, kustomize) -> chart.values().forEach(o -> {
            Map<String, Object> labels = Manifests.map(Manifests.map(o, "metadata"), "labels");
            labels.keySet().removeAll(HELM_LABELS);
          })),
      new DeliberateDifference("configmap-names", "kustomize names a generated ConfigMap by its content's hash, so a"
          + " change rolls the Deployment out; the chart keeps the names and rolls out on checksum annotations",
          (chart, kustomize) -> {
            rekey(kustomize, DeliberateDifference::renameHashed);
            Map<String, Object> deployment = chart.get("Deployment gpu-remediator/gpu-remediator");
            if (deployment != null) {
              Map<String, Object> template = Manifests.map(Manifests.map(deployment, "spec"), "template");
              Map<String, Object> annotations = Manifests.map(Manifests.map(template, "metadata"), "annotations");
              annotations.keySet().removeIf(k -> k.startsWith("checksum/"));
              if (annotations.isEmpty()) {
                Manifests.map(template, "metadata").remove("annotations");
              }
            }
          }),
      new DeliberateDifference("config-text", "the chart writes remediator.yaml from values (no comments, keys sorted);"
          + " it is compared as YAML", (chart, kustomize) -> {
            parseConfig(chart);
            parseConfig(kustomize);
          }),
      new DeliberateDifference("namespace", "a chart does not create its release's namespace unless told"
          + " (createNamespace); kustomize's base does", (chart, kustomize) -> kustomize.remove("Namespace gpu-remediator")),
      new DeliberateDifference("admission-namespace", "kustomize's namespace transformer puts its namespace on the"
          + " ValidatingAdmissionPolicy and its binding, which are cluster-scoped (the API server drops it on create)",
          (chart, kustomize) -> rekey(kustomize, o -> {
            if (o instanceof Map<?, ?> object && ADMISSION.contains(object.get("kind"))) {
              Manifests.map((Map<String, Object>) object, "metadata").remove("namespace");
            }
            return o;
          })));

  /** The difference of this name. */
  static DeliberateDifference named(String name) {
    return ALL.stream().filter(d -> d.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no deliberate difference " + name));
  }

  private static void parseConfig(Map<String, Map<String, Object>> objects) {
    Map<String, Object> config = objects.get("ConfigMap gpu-remediator/gpu-remediator-config");
    if (config != null) {
      Map<String, Object> data = Manifests.map(config, "data");
      data.put("remediator.yaml", new Yaml().load((String) data.get("remediator.yaml")));
    }
  }

  @SuppressWarnings("unchecked")
  private static Object renameHashed(Object node) {
    if (node instanceof String s) {
      var m = HASHED.matcher(s);
      return m.matches() ? m.group(1) : s;
    }
    if (node instanceof Map<?, ?> map) {
      ((Map<String, Object>) map).replaceAll((k, v) -> renameHashed(v));
    } else if (node instanceof List<?> list) {
      ((List<Object>) list).replaceAll(DeliberateDifference::renameHashed);
    }
    return node;
  }

  private static void rekey(Map<String, Map<String, Object>> objects, UnaryOperator<Object> rewrite) {
    Map<String, Map<String, Object>> rewritten = new TreeMap<>();
    objects.values().forEach(o -> {
      rewrite.apply(o);
      rewritten.put(Manifests.key(o), o);
    });
    objects.clear();
    objects.putAll(rewritten);
  }
}
