package io.gpuremediator.backtest;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * An alert's fingerprint as Alertmanager computes it from its labels (Prometheus' {@code LabelSet.Fingerprint}: FNV-1a
 * 64 over the names in order, each name and value followed by the separator byte 0xff), so a replayed alert is the
 * same episode as the one Alertmanager sent.
 */
final class Fingerprint {
  private static final long OFFSET = 0xcbf29ce484222325L;
  private static final long PRIME = 0x100000001b3L;
  private static final int SEPARATOR = 0xff;

  private Fingerprint() {}

  static String of(Map<String, String> labels) {
    long h = OFFSET;
    for (Map.Entry<String, String> e : new TreeMap<>(labels).entrySet()) {
      h = add(h, e.getKey());
      h = addByte(h, SEPARATOR);
      h = add(h, e.getValue());
      h = addByte(h, SEPARATOR);
    }
    return String.format("%016x", h);
  }

  private static long add(long h, String s) {
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h = addByte(h, b & 0xff);
    }
    return h;
  }

  private static long addByte(long h, int b) {
    return (h ^ b) * PRIME;
  }
}
