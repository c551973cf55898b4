package io.gpuremediator.outbound.aws;

import io.gpuremediator.outbound.EvidenceUploads;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * Evidence into S3 or any S3-compatible store ({@code PutObject}, signed with SigV4), one client per endpoint and
 * region, made at first use. A store given by its endpoint is addressed path-style ({@code endpoint/bucket/key}), as
 * S3-compatible servers expect; AWS S3 itself virtual-hosted. Credentials: the SDK's default chain unless given.
 */
public final class S3EvidenceUploads implements EvidenceUploads, AutoCloseable {
  private final String defaultRegion;
  private final AwsCredentialsProvider credentials;
  private final OutboundListener listener;
  private final Map<String, S3Client> clients = new ConcurrentHashMap<>();

  /**
   * Uploads with these credentials.
   *
   * @param defaultRegion the region of a bucket that names none
   */
  public S3EvidenceUploads(String defaultRegion, AwsCredentialsProvider credentials, OutboundListener listener) {
    this.defaultRegion = defaultRegion;
    this.credentials = credentials;
    this.listener = listener;
  }

  /** Uploads with the SDK's default credentials chain (the pod's identity, IRSA, environment). */
  public static S3EvidenceUploads withDefaultCredentials(String defaultRegion, OutboundListener listener) {
    return new S3EvidenceUploads(defaultRegion, DefaultCredentialsProvider.builder().build(), listener);
  }

  @Override
  public void put(Bucket bucket, String key, byte[] body, String contentType) throws OutboundException {
    S3Client s3 = client(bucket.endpoint(), bucket.region().orElse(defaultRegion));
    AwsCalls.call(listener, "s3", "the object store", () -> s3.putObject(b -> b.bucket(bucket.name()).key(key)
        .contentType(contentType), RequestBody.fromBytes(body)));
  }

  private S3Client client(Optional<URI> endpoint, String region) {
    return clients.computeIfAbsent(endpoint.map(URI::toString).orElse("") + "|" + region, k -> {
      S3ClientBuilder builder = S3Client.builder().forcePathStyle(endpoint.isPresent());
      if (endpoint.isPresent()) {
        // The SDK's default since 2.30 (a CRC32 trailer on aws-chunked bodies) is refused by S3-compatible servers
        // ("XAmzContentSHA256Mismatch" from S3Proxy, seen in EvidenceStoreMockTest): checksums only where required.
        builder.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
      }
      return AwsCalls.build(builder, region, endpoint, credentials);
    });
  }

  @Override
  public void close() {
    clients.values().forEach(S3Client::close);
  }
}
