package io.gpuremediator.testing;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.Blob;

/**
 * A real S3-compatible server on 127.0.0.1 for the evidence store: S3Proxy (org.gaul:s3proxy, from Maven Central) over
 * jclouds' in-memory blob store, checking AWS Signature V4 with these credentials as S3 does. Stopped by {@link #close}.
 */
public final class LocalS3 implements AutoCloseable {
  /** The access key the server accepts. */
  public static final String ACCESS_KEY = "AKIDEXAMPLE";
  /** Its secret. */
  public static final String SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

  private final BlobStoreContext context;
  private final S3Proxy proxy;

  /** Starts the server on a free port, with {@code bucket} created. */
  public LocalS3(String bucket) throws Exception {
    context = ContextBuilder.newBuilder("transient").credentials("identity", "credential").build(BlobStoreContext.class);
    proxy = S3Proxy.builder().blobStore(context.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET).build();
    proxy.start();
    // A deadline-bounded poll, not a spin: on a busy machine a spinning thread takes the core the server starts on.
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
        .until(() -> "STARTED".equals(proxy.getState()));
    context.getBlobStore().createContainerInLocation(null, bucket);
  }

  /** Where the server listens. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + proxy.getPort());
  }

  /** The object's bytes, read from the server's store; empty when it holds none under that key. */
  public Optional<byte[]> object(String bucket, String key) {
    BlobStore store = context.getBlobStore();
    Blob blob = store.getBlob(bucket, key);
    if (blob == null) {
      return Optional.empty();
    }
    try (InputStream in = blob.getPayload().openStream()) {
      return Optional.of(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() throws Exception {
    proxy.stop();
    context.close();
  }
}
