package io.gpuremediator.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Latency samples in milliseconds, sorted once: the percentiles the latency sections print. */
record Samples(List<Double> sorted) {
  /** The samples, sorted (the list given is left as it is). */
  static Samples of(List<Double> ms) {
    List<Double> copy = new ArrayList<>(ms);
    Collections.sort(copy);
    return new Samples(List.copyOf(copy));
  }

  int size() {
    return sorted.size();
  }

  double p50() {
    return sorted.get(sorted.size() / 2);
  }

  double p90() {
    return sorted.get((int) (sorted.size() * 0.9));
  }

  double p99() {
    return sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1);
  }

  double max() {
    return sorted.get(sorted.size() - 1);
  }
}
