package io.gpuremediator.device;

import io.gpuremediator.node.ClusterException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * The port to DRA for fencing one GPU. Reads go to the API server (a fence is rare; its correctness matters more than
 * a cache), except a rule of ours while {@link #watchRules} runs: a fenced episode reads its rule at every look, and
 * the watch already holds it. Synchronous, thread-safe; every failure is a {@link ClusterException}.
 */
public interface Devices {
  /** A cluster without DRA: no node publishes a device, and nothing can be fenced. */
  Devices NONE = new Devices() {
    @Override
    public List<Device> onNode(String node, String driver) {
      return List.of();
    }

    @Override
    public void fence(FenceRule rule) throws ClusterException {
      throw new ClusterException("cannot fence " + rule.device() + ": this port is not a Kubernetes API", false, null);
    }

    @Override
    public Optional<FenceRule> rule(String name) {
      return Optional.empty();
    }

    @Override
    public void unfence(String name) {}

    @Override
    public List<String> holders(String node, DeviceRef device) {
      return List.of();
    }

    @Override
    public List<String> rulesLabelled(String key, String value) {
      return List.of();
    }
  };

  /**
   * Watches our DeviceTaintRules (labelled managed by us) and tells {@code deleted} the name of each one deleted, on the
   * watch's thread (keep it quick); while it runs, {@link #rule} reads from it. Closing the result stops the watch.
   * Without a watch (the default), a deleted rule is found at the episode's next look.
   */
  default AutoCloseable watchRules(Consumer<String> deleted) {
    return () -> { };
  }

  /**
   * Starts the watch of {@code driver}'s ResourceSlices that {@link #publishedGpus} reads, and waits (bounded) for its
   * first list. Closing the result stops the watch once every caller that started it has closed theirs, so a stopped
   * service keeps no watch running. Without a watch (the default), there is nothing to stop.
   */
  default AutoCloseable watchPublished(String driver) {
    return () -> { };
  }

  /**
   * How many GPUs the node publishes in the ResourceSlices of {@code driver} (its devices of type {@code gpu}, or every
   * device where the driver types none: NVIDIA's publishes MIG devices beside its GPUs), from a watch of the slices the
   * first call starts and waits for; empty when it publishes none (a device-plugin node) or the slices cannot be read.
   */
  default OptionalInt publishedGpus(String node, String driver) {
    return OptionalInt.empty();
  }

  /**
   * A number that moves whenever what {@link #publishedGpus} answers for {@code driver} may have changed (a slice
   * written or gone, the watch's first list): the GPU limits count a node's GPUs again only when it or this moves.
   */
  default long publishedGeneration(String driver) {
    return 0;
  }

  /** The devices the node publishes in the ResourceSlices of {@code driver}; none on a device-plugin node. */
  List<Device> onNode(String node, String driver) throws ClusterException;

  /** Creates the rule; one already there under its name is left as it is (the call is idempotent). */
  void fence(FenceRule rule) throws ClusterException;

  /**
   * The rule of this name, or empty when there is none (never written, or deleted by a human): from the watch of our
   * rules where it holds the rule, else from the API server.
   */
  Optional<FenceRule> rule(String name) throws ClusterException;

  /**
   * The names of the rules carrying this label (an episode's: one it wrote and could not record, its instance stopped
   * between the two, is found by it and given back with the rest).
   */
  List<String> rulesLabelled(String key, String value) throws ClusterException;

  /** Deletes the rule; one already gone is fine. */
  void unfence(String name) throws ClusterException;

  /**
   * The pods on the node ({@code namespace/name}) that hold the device: a ResourceClaim of theirs (named in the pod's
   * {@code spec.resourceClaims}, or in {@code status.resourceClaimStatuses} for one made from a template) is allocated
   * the device and reserved for them. Read through the node's pods and their claims, never every claim of the cluster.
   */
  List<String> holders(String node, DeviceRef device) throws ClusterException;
}
