package io.gpuremediator.deploy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/** A multi-document YAML stream of Kubernetes objects, keyed by kind, namespace and name. */
final class Manifests {
  private Manifests() {}

  /** Every object of {@code yaml} by {@code kind namespace/name}; empty documents are skipped. */
  @SuppressWarnings("unchecked")
  static Map<String, Map<String, Object>> byKey(String yaml) {
    Map<String, Map<String, Object>> out = new TreeMap<>();
    LoaderOptions options = new LoaderOptions();
    options.setCodePointLimit(16 * 1024 * 1024);
    for (Object doc : new Yaml(options).loadAll(yaml)) {
      if (doc instanceof Map<?, ?> m && !m.isEmpty()) {
        Map<String, Object> object = (Map<String, Object>) m;
        String key = key(object);
        if (out.put(key, object) != null) {
          throw new IllegalStateException("two objects " + key);
        }
      }
    }
    return out;
  }

  static String key(Map<String, Object> object) {
    Map<String, Object> metadata = map(object, "metadata");
    Object namespace = metadata.get("namespace");
    return object.get("kind") + " " + (namespace == null ? "" : namespace + "/") + metadata.get("name");
  }

  /** The nested map at {@code key}, created empty when absent. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Map<String, Object> parent, String key) {
    return (Map<String, Object>) parent.computeIfAbsent(key, k -> new LinkedHashMap<String, Object>());
  }
}
