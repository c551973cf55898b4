package io.gpuremediator.service;

import io.gpuremediator.safety.LimitUsage;
import io.gpuremediator.safety.SafetySnapshot;
import io.prometheus.client.Collector;
import io.prometheus.client.GaugeMetricFamily;
import java.util.List;
import java.util.function.Supplier;

/**
 * Every fleet limit's usage as the gate counts it at scrape time: {@code remediator_limit_used{limit}} and
 * {@code remediator_limit_allowed{limit}}, one series per row of {@code GET /api/v1/safety}'s {@code limits}, so a new
 * limit is on the metrics with nothing added here.
 */
final class LimitsCollector extends Collector {
  private final Supplier<SafetySnapshot> snapshot;

  LimitsCollector(Supplier<SafetySnapshot> snapshot) {
    this.snapshot = snapshot;
  }

  @Override
  public List<MetricFamilySamples> collect() {
    GaugeMetricFamily used = new GaugeMetricFamily("remediator_limit_used",
        "What each fleet limit has used now (nodes out, quarantines or replacements in its window), by limit.",
        List.of("limit"));
    GaugeMetricFamily allowed = new GaugeMetricFamily("remediator_limit_allowed",
        "What each fleet limit allows now, by limit.", List.of("limit"));
    GaugeMetricFamily missing = new GaugeMetricFamily("remediator_domain_label_missing",
        "Selected nodes that show no value for a failure domain's label (safety.domains), which its budget and incidents"
        + " do not count, by label.", List.of("label"));
    SafetySnapshot now = snapshot.get();
    for (LimitUsage u : now.limits()) {
      used.addMetric(List.of(u.limit()), u.used());
      allowed.addMetric(List.of(u.limit()), u.allowed());
    }
    now.domainLabelMissing().forEach((label, n) -> missing.addMetric(List.of(label), n));
    return List.of(used, allowed, missing);
  }
}
