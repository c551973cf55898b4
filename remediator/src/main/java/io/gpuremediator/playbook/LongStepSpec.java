package io.gpuremediator.playbook;

/**
 * The spec of a long step, one carried on in the background after the webhook is answered (a drain, a Job on the
 * node, a reboot, a replacement): said once, by the record's type.
 */
public interface LongStepSpec extends ActionSpec {
  @Override
  default boolean isLongStep() {
    return true;
  }
}
