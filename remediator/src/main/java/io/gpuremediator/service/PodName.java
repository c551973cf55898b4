package io.gpuremediator.service;

/** The name the service gives itself: its Lease holder's, its Events' reporting instance. */
final class PodName {
  private PodName() {}

  /** The pod's name (HOSTNAME), else gpu-remediator. */
  static String hostname() {
    String name = System.getenv("HOSTNAME");
    return name == null || name.isBlank() ? "gpu-remediator" : name;
  }
}
