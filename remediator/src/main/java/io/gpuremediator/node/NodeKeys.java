package io.gpuremediator.node;

/** Every label, annotation and taint key of our own, defined once. All live under {@link #DOMAIN}. */
public final class NodeKeys {
  /** The domain our keys live under. */
  public static final String DOMAIN = "gpu-remediator.io/";
  /** A node labelled {@code gpu-remediator.io/exclude=true} is never touched. */
  public static final String EXCLUDE_LABEL = DOMAIN + "exclude";
  /** The annotation holding the ledger of what we changed on a node. */
  public static final String LEDGER_ANNOTATION = DOMAIN + "state";
  /**
   * {@code gpu-remediator.io/managed=true} is on a node exactly while it carries a ledger (set and cleared in the same
   * write): a label can be selected, an annotation cannot, and the service watches the nodes it holds state on even when
   * they leave {@code node_selector}.
   */
  public static final String MANAGED_LABEL = DOMAIN + "managed";
  /** The label of a sweep's Jobs, its value the sweep's name (a Job's label, never a node's). */
  public static final String SWEEP_LABEL = DOMAIN + "sweep";
  /** The component name on the Events we record. */
  public static final String COMPONENT = "gpu-remediator";

  private NodeKeys() {}

  /** Whether a playbook may write this key: ours, and not one the service reserves for itself. */
  public static boolean isWritableByPlaybook(String key) {
    return key.startsWith(DOMAIN) && !key.equals(EXCLUDE_LABEL) && !key.equals(LEDGER_ANNOTATION)
        && !key.equals(MANAGED_LABEL);
  }
}
