package io.gpuremediator.state;

import java.util.Optional;

/**
 * An evidence Job a {@code collect} step left running, kept for people: {@code namespace/name}, and where its report is
 * stored when the step has a store (empty when not). Held as {@code evidence_job/<namespace>/<name>}, its value the
 * store's address.
 */
public record EvidenceJob(String job, String storedAt) {
  /** The kind of holding. */
  public static final String KIND = "evidence_job";

  /** The evidence Job a holding is, if it is one. */
  public static Optional<EvidenceJob> of(Held h) {
    return h.kind().equals(KIND) ? Optional.of(new EvidenceJob(h.name(), h.value())) : Optional.empty();
  }

  /** The Job's namespace (empty when the ledger named none). */
  public String namespace() {
    int slash = job.indexOf('/');
    return slash < 0 ? "" : job.substring(0, slash);
  }

  /** The Job's name. */
  public String name() {
    return job.substring(job.indexOf('/') + 1);
  }

  /** As the ledger holds it. */
  public Held held() {
    return new Held(KIND, job, storedAt);
  }

  /** As people read it: {@code namespace/name}, then {@code -> WHERE} its report is stored when it has a store. */
  @Override
  public String toString() {
    return storedAt.isEmpty() ? job : job + " -> " + storedAt;
  }
}
