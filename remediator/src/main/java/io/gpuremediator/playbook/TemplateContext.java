package io.gpuremediator.playbook;

import java.util.Map;

/** The values a template may read: {@code labels.X}, {@code annotations.X}, {@code node}, {@code alertname}, {@code fingerprint}. */
public record TemplateContext(
    Map<String, String> labels, Map<String, String> annotations, String node, String alertname, String fingerprint) {
  /** Copies the maps. */
  public TemplateContext {
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
  }
}
