package io.gpuremediator.decision;

import java.util.Locale;

/** The closed set of decision outcomes of the HTTP API. */
public enum Outcome {
  /** Kubernetes was changed (or already was as the playbook wants). */
  APPLIED,
  /** Nothing was written; the decision records what would have been. */
  DRY_RUN,
  /** A safety limit refused the remediation. */
  SUPPRESSED,
  /** Nothing to do for this alert (no playbook, node not eligible, ...). */
  IGNORED,
  /** The remediation could not be carried out. */
  FAILED;

  private final String code = name().toLowerCase(Locale.ROOT);

  /** The API spelling, e.g. {@code dry_run}. */
  public String code() {
    return code;
  }
}
