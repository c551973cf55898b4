package io.gpuremediator.playbook;

import io.gpuremediator.yaml.MapReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;

/**
 * {@code collect.store}: where an evidence Job's report goes, off the node, before a reboot or replacement. Each report
 * is one gzip object named for its node and Job ({@code NODE/JOB.log.gz}): under {@code prefix} in an S3-compatible
 * bucket, which the service fills from the Job's pod log; or on a PersistentVolumeClaim of the Job's namespace, which
 * the Job mounts and writes itself ({@code $EVIDENCE_FILE}).
 */
public sealed interface EvidenceStore {
  /** Where the claim is mounted in an evidence Job. */
  String MOUNT = "/evidence";

  /** The object's name within the store. */
  static String object(String node, String job) {
    return node + "/" + job + ".log.gz";
  }

  /** Where the node's reports go, as decisions name it ({@code s3://bucket/prefix/NODE/}, {@code pvc/NAME:NODE/}). */
  String under(String node);

  /** How decisions, notifications and the page name where the report of this Job is stored. */
  default String where(String node, String job) {
    return under(node) + job + ".log.gz";
  }

  /**
   * An S3-compatible bucket; the service uploads.
   *
   * @param prefix before every key: empty, or ending in '/'
   * @param endpoint an S3-compatible store's URL (addressed path-style); empty: AWS S3 of the region
   * @param region the bucket's region; empty: the service's {@code cloud.aws.region}, else us-east-1
   */
  record S3(String bucket, String prefix, Optional<URI> endpoint, Optional<String> region) implements EvidenceStore {
    /** The object's key. */
    public String key(String node, String job) {
      return prefix + object(node, job);
    }

    @Override
    public String under(String node) {
      return "s3://" + bucket + "/" + prefix + node + "/";
    }
  }

  /** A PersistentVolumeClaim of the Job's namespace; the Job writes. */
  record Pvc(String claim) implements EvidenceStore {
    @Override
    public String under(String node) {
      return "pvc/" + claim + ":" + node + "/";
    }
  }

  /** Decodes {@code store: {s3: {bucket, prefix, endpoint, region}}} or {@code store: {pvc: NAME}}; empty on a problem. */
  public static Optional<Optional<EvidenceStore>> decode(MapReader params, String kind) {
    if (!params.has("store")) {
      params.take("store");
      return Optional.of(Optional.empty());
    }
    Optional<MapReader> store = params.map("store", kind + ".store");
    if (store.isEmpty()) {
      return Optional.empty();
    }
    MapReader r = store.get();
    boolean s3 = r.has("s3");
    if (s3 == r.has("pvc")) {
      r.problems().add(r.node(), kind + ".store must name one of \"s3\" or \"pvc\"");
      r.take("s3");
      r.take("pvc");
      r.finish();
      return Optional.empty();
    }
    Optional<EvidenceStore> decoded = s3 ? r.map("s3", kind + ".store.s3").flatMap(b -> bucket(b, kind))
        : r.string("pvc").flatMap(claim -> claim(r, claim, kind));
    r.finish();
    return decoded.map(Optional::of);
  }

  private static Optional<EvidenceStore> bucket(MapReader b, String kind) {
    Optional<String> name = b.requiredString("bucket");
    String prefix = b.string("prefix").orElse("");
    Optional<String> region = b.string("region");
    Optional<URI> endpoint = b.parsed("endpoint", text -> {
      try {
        URI u = new URI(text);
        return ("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && u.getHost() != null
            && u.getUserInfo() == null ? MapReader.Parsed.ok(u)
            : MapReader.Parsed.error("must be an http(s) URL without credentials, not \"" + text + "\"");
      } catch (URISyntaxException e) {
        return MapReader.Parsed.error("must be an http(s) URL, not \"" + text + "\"");
      }
    });
    boolean endpointBad = b.has("endpoint") && endpoint.isEmpty();
    b.finish();
    if (name.isEmpty() || endpointBad) {
      return Optional.empty();
    }
    if (!name.get().matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
      b.problems().add(b.node(), "\"bucket\" in " + kind + ".store.s3 must be an S3 bucket name (3 to 63 of a-z, 0-9,"
          + " '.', '-'), not \"" + name.get() + "\"");
      return Optional.empty();
    }
    String normalized = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
    return Optional.of(new S3(name.get(), normalized, endpoint, region));
  }

  private static Optional<EvidenceStore> claim(MapReader r, String claim, String kind) {
    if (!claim.matches("[a-z0-9]([-a-z0-9]{0,251}[a-z0-9])?")) {
      r.problems().add(r.at("pvc"), "\"pvc\" in " + kind + ".store must be a PersistentVolumeClaim name, not \"" + claim
          + "\"");
      return Optional.empty();
    }
    return Optional.of(new Pvc(claim));
  }
}
