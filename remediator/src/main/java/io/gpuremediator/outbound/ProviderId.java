package io.gpuremediator.outbound;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node's {@code spec.providerID}, read only as far as we can be sure of it. AWS writes
 * {@code aws:///<zone>/<instance-id>} (the cloud provider also accepts {@code aws://<zone>/<instance-id>});
 * anything else names the cloud it saw and is never guessed at.
 */
public sealed interface ProviderId {
  /** An EC2 instance. */
  record Aws(String zone, String instanceId) implements ProviderId {}

  /** Not an EC2 instance, or not a providerID we can read: {@code seen} says what it looked like. */
  record Unsupported(String seen) implements ProviderId {}

  /** AWS instance ids: i- and 8 or 17 hex digits. */
  Pattern AWS = Pattern.compile("aws://(?:/)?([a-z0-9-]*)/(i-(?:[0-9a-f]{8}|[0-9a-f]{17}))");

  /** Reads a providerID (empty or absent: unsupported). */
  static ProviderId parse(String providerId) {
    if (providerId == null || providerId.isEmpty()) {
      return new Unsupported("no spec.providerID");
    }
    Matcher m = AWS.matcher(providerId);
    if (m.matches()) {
      return new Aws(m.group(1), m.group(2));
    }
    String shown = providerId.length() > 128 ? providerId.substring(0, 125) + "..." : providerId;
    int scheme = providerId.indexOf("://");
    String cloud = scheme <= 0 ? "unknown" : switch (providerId.substring(0, scheme)) {
      case "gce" -> "GKE (gce)";
      case "azure" -> "AKS (azure)";
      case "aws" -> "AWS, but not an instance id we can read";
      case "kind" -> "kind";
      default -> providerId.substring(0, Math.min(scheme, 32));
    };
    return new Unsupported(cloud + ": \"" + shown + "\"");
  }
}
