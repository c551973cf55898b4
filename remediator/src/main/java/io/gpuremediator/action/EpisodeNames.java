package io.gpuremediator.action;

import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.state.Episode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;

/**
 * Names that follow from an episode, so that doing a thing twice (a restart between the ledger write and the create)
 * finds what the first time made: the Jobs of its steps, and the marker of its silences.
 */
public final class EpisodeNames {
  /** The label every Job of an episode's step carries, with the episode's hash. */
  public static final String JOB_EPISODE_LABEL = NodeKeys.DOMAIN + "episode";

  private EpisodeNames() {}

  /** The Job's name for this episode, step, start and attempt (a retry is a new attempt): stable across restarts. */
  public static String jobName(String prefix, String node, Episode e, int step, Instant started, int attempt) {
    return prefix + hash(node + "/" + e.fingerprint() + "@" + e.startsAt() + "/" + step + "/" + started + "/" + attempt)
        .substring(0, 16);
  }

  /**
   * The evidence Job of the episode's step {@code step} in the playbook it runs now: one per step, whatever the attempt,
   * so the reboot or replacement after it finds it by name (an escalation's playbook collects anew).
   */
  public static String evidenceJobName(String node, Episode e, int step) {
    return "gpu-evidence-" + hash(node + "/" + e.fingerprint() + "@" + e.startsAt() + "/" + e.playbook() + "/" + step)
        .substring(0, 16);
  }

  /** A short hash of the episode on this node. */
  public static String episodeHash(String node, Episode e) {
    return episodeHash(node, e.fingerprint(), e.startsAt());
  }

  /** The same hash from the alert that starts or continues the episode: its fingerprint and start. */
  public static String episodeHash(String node, String fingerprint, Instant startsAt) {
    return hash(node + "/" + fingerprint + "@" + startsAt).substring(0, 16);
  }

  /**
   * The DeviceTaintRule fencing one device of the node: named from node and device, never from the episode, so a
   * restart, a failover or a second episode finds the rule there and never writes a second one for that device.
   */
  public static String fenceRuleName(String node, String pool, String device) {
    String plain = "gpu-remediator." + node + "." + device;
    boolean fits = plain.length() <= 253 && pool.equals(node) && device.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    return fits ? plain : "gpu-remediator." + hash(node + "/" + pool + "/" + device).substring(0, 32);
  }

  /** One digest a thread: looking the algorithm up costs more than hashing a name. */
  private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  });

  private static String hash(String text) {
    return HexFormat.of().formatHex(SHA_256.get().digest(text.getBytes(StandardCharsets.UTF_8)));
  }
}
