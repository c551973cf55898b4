package io.gpuremediator.outbound;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/** Puts an evidence report into an S3-compatible object store, off the node it was collected on. */
public interface EvidenceUploads {
  /**
   * Where a report goes.
   *
   * @param endpoint an S3-compatible store's URL (addressed path-style); empty: AWS S3 of the region
   * @param region the bucket's region; empty: the service's {@code cloud.aws.region}, else us-east-1
   */
  record Bucket(String name, Optional<URI> endpoint, Optional<String> region) {
    /** Validates presence. */
    public Bucket {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(endpoint, "endpoint");
      Objects.requireNonNull(region, "region");
    }
  }

  /**
   * Stores {@code body} under {@code key} once (a second put of the same key replaces it with the same bytes).
   *
   * @throws OutboundException retriable when the store was not reached or busy; refused when it never will take it
   */
  void put(Bucket bucket, String key, byte[] body, String contentType) throws OutboundException;

  /** A port for a service built without a store client (tests): every put is refused, saying so. */
  EvidenceUploads NOT_CONFIGURED = (bucket, key, body, type) -> {
    throw OutboundException.refused("no object store client is configured");
  };
}
