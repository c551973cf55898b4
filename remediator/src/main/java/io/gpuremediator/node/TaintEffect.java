package io.gpuremediator.node;

import java.util.Arrays;
import java.util.Optional;

/** The three taint effects the API server accepts. */
public enum TaintEffect {
  /** New pods are not scheduled. */
  NO_SCHEDULE("NoSchedule"),
  /** The scheduler avoids the node. */
  PREFER_NO_SCHEDULE("PreferNoSchedule"),
  /** Running pods without a toleration are evicted. */
  NO_EXECUTE("NoExecute");

  private final String apiName;

  TaintEffect(String apiName) {
    this.apiName = apiName;
  }

  /** The spelling the Kubernetes API uses. */
  public String apiName() {
    return apiName;
  }

  /** The effect with this API spelling. */
  public static Optional<TaintEffect> fromApiName(String name) {
    return Arrays.stream(values()).filter(e -> e.apiName.equals(name)).findFirst();
  }
}
