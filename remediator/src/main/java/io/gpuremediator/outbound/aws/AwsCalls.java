package io.gpuremediator.outbound.aws;

import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * How every AWS client of ours is built and called: the URL-connection HTTP client, the SDK's retries off (the loop
 * retries with its own backoff), a 20 s budget per call; and what an answer means for the loop: throttled, busy or 5xx
 * is retriable, another error is a refusal, and no answer after the request went out may have been applied.
 */
final class AwsCalls {
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);
  /** Error codes that say: later. */
  private static final Set<String> BUSY = Set.of("Throttling", "ThrottlingException", "RequestLimitExceeded",
      "ResourceContention", "ServiceUnavailable", "InternalFailure", "InternalError", "Unavailable");

  private AwsCalls() {}

  /** Builds a client with the region, credentials, HTTP client, retries and timeout (and endpoint, for tests). */
  static <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> C build(B builder, String region,
      Optional<URI> endpoint, AwsCredentialsProvider credentials) {
    builder.region(Region.of(region))
        .credentialsProvider(credentials)
        .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(5))
            .socketTimeout(Duration.ofSeconds(15)))
        .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()).apiCallTimeout(CALL_TIMEOUT));
    endpoint.ifPresent(builder::endpointOverride);
    return builder.build();
  }

  /**
   * Calls once, counting the outcome under {@code target}.
   *
   * @param service how messages name the service ("Auto Scaling")
   */
  static <T> T call(OutboundListener listener, String target, String service, Supplier<T> request)
      throws OutboundException {
    try {
      T answer = request.get();
      listener.request(target, "ok");
      return answer;
    } catch (AwsServiceException e) {
      String code = e.awsErrorDetails() == null || e.awsErrorDetails().errorCode() == null ? "http_" + e.statusCode()
          : e.awsErrorDetails().errorCode();
      listener.request(target, code);
      String message = service + " answered " + e.statusCode() + " " + code
          + (e.awsErrorDetails() == null ? "" : ": " + e.awsErrorDetails().errorMessage());
      if (BUSY.contains(code) || e.isThrottlingException() || e.statusCode() >= 500) {
        throw OutboundException.transientFailure(message);
      }
      throw OutboundException.refused(message);
    } catch (SdkException e) {
      if (notSent(e)) {
        listener.request(target, "error");
        throw OutboundException.transientFailure(service + " not reached: " + e.getMessage());
      }
      listener.request(target, "no_answer");
      throw OutboundException.unanswered(service + " sent no answer: " + e.getMessage());
    }
  }

  /** Whether the failure surely came before the request reached the service (no connection was made). */
  private static boolean notSent(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof UnknownHostException || t instanceof NoRouteToHostException) {
        return true;
      }
    }
    return false;
  }
}
