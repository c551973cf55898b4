package io.gpuremediator.service;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The service's own threads, and the name it gives itself. */
final class ServiceThreads {
  private ServiceThreads() {}

  /** One daemon thread of this name: it never holds the JVM up at exit. */
  static ExecutorService oneDaemonThread(String name) {
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  /** The pod's name (HOSTNAME), else gpu-remediator. */
  static String hostname() {
    String name = System.getenv("HOSTNAME");
    return name == null || name.isBlank() ? "gpu-remediator" : name;
  }
}
