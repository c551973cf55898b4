package io.gpuremediator.sweep;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.workload.JobState;
import io.gpuremediator.workload.LabelledJob;
import java.util.Map;
import java.util.Optional;

/**
 * The alert {@value #ALERTNAME} a failed sweep raises (labels: node, sweep, job, source sweep, severity critical,
 * remediate "true"), started when its Job was created, its fingerprint from the node and the Job: one episode per failed
 * run, however often it is raised, across restarts and failovers.
 */
final class SweepFailure {
  /** The alert's name. */
  static final String ALERTNAME = "GpuSweepFailed";
  /** The most characters of the Job's log the alert's description keeps. */
  private static final int LOG_CHARS = 1500;

  private SweepFailure() {}

  static Alert of(LabelledJob job, String namespace, String logTail) {
    String sweep = job.labels().getOrDefault(SweepJobs.LABEL, "");
    String how = job.run().state() == JobState.TIMED_OUT ? "did not finish within its timeout" : "failed";
    Map<String, String> labels = Map.of("alertname", ALERTNAME, "node", job.node(), "sweep", sweep, "job", job.name(),
        "source", "sweep", "severity", "critical", "remediate", "true");
    String tail = logTail.length() > LOG_CHARS ? logTail.substring(logTail.length() - LOG_CHARS) : logTail;
    Map<String, String> annotations = Map.of("summary", "sweep " + sweep + ": the diagnostic " + namespace + "/" + job.name()
        + " " + how + " on idle node " + job.node(), "description", tail.isBlank() ? "(no log)" : tail);
    return new Alert(AlertStatus.FIRING, labels, annotations, job.run().created(), Optional.empty(), "",
        fingerprint(job.node(), job.name()));
  }

  static String fingerprint(String node, String job) {
    return SweepJobs.hash(ALERTNAME + "/" + node + "/" + job).substring(0, 16);
  }
}
