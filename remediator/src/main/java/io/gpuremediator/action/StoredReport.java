package io.gpuremediator.action;

import io.gpuremediator.node.ClusterException;
import io.gpuremediator.outbound.EvidenceUploads;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.playbook.EvidenceStore;
import io.gpuremediator.workload.JobState;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;

/**
 * Where a finished evidence Job's report stands in its store. Into a bucket it is put here, read from the Job's pod log
 * while the node still runs: the gzip the default command wrote between its BEGIN and END lines, else (a command of the
 * playbook's own, a Job that failed) the whole log, gzipped here. Either way one object, {@code NODE/JOB.log.gz} under
 * the prefix.
 */
final class StoredReport {
  /** More than the kubelet keeps of a container's log (10 MiB before it rotates). */
  static final long MAX_LOG_BYTES = 64L << 20;
  static final String BEGIN = "-----BEGIN nvidia-bug-report.log.gz base64-----";
  static final String END = "-----END nvidia-bug-report.log.gz base64-----";

  /** What an upload came to. */
  sealed interface Outcome {
    /** Stored there. */
    record Stored(String where) implements Outcome {}

    /** Not now (the store unreachable or busy): asked again at the next look, within the Job's timeout. */
    record Retry(String why) implements Outcome {}

    /** Never, as things are: the store refused it, or there is nothing to store. */
    record NotStored(String why) implements Outcome {}
  }

  private StoredReport() {}

  /**
   * Where the finished Job's report stands in its store: a claim is written by the Job itself, so only one that
   * completed wrote it; a bucket is filled here, from the Job's log.
   */
  static Outcome of(LongStepRun<?> run, EvidenceStore store, String job, JobState state) throws ClusterException {
    if (store instanceof EvidenceStore.S3 s3) {
      return upload(run, s3, job);
    }
    return state == JobState.SUCCEEDED ? new Outcome.Stored(store.where(run.node(), job))
        : new Outcome.NotStored("the Job did not complete, so it wrote none");
  }

  private static Outcome upload(LongStepRun<?> run, EvidenceStore.S3 s3, String job) throws ClusterException {
    Optional<String> log = run.ports().workloads().log(run.ports().jobNamespace(), job, MAX_LOG_BYTES);
    if (log.isEmpty() || log.get().isEmpty()) {
      return new Outcome.NotStored("the Job's pod left no log to store");
    }
    String where = s3.where(run.node(), job);
    try {
      run.ports().outside().evidence().put(new EvidenceUploads.Bucket(s3.bucket(), s3.endpoint(), s3.region()),
          s3.key(run.node(), job), body(log.get()), "application/gzip");
      return new Outcome.Stored(where);
    } catch (OutboundException e) {
      // A put of the same key is idempotent: one that may have been applied is asked again too.
      return e.retriable() || e.maybeApplied() ? new Outcome.Retry(e.getMessage()) : new Outcome.NotStored(e.getMessage());
    }
  }

  /** The report between the markers, decoded; else the whole log, gzipped. */
  static byte[] body(String log) {
    int begin = log.indexOf(BEGIN);
    int end = begin < 0 ? -1 : log.indexOf(END, begin);
    if (end > begin) {
      String encoded = log.substring(begin + BEGIN.length(), end).replaceAll("\\s", "");
      try {
        return Base64.getDecoder().decode(encoded);
      } catch (IllegalArgumentException e) {
        // not the default command's output after all: stored as it is
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(log.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
