package io.gpuremediator.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.gpuremediator.node.ClusterException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Requests sent through the client's HTTP client rather than its DSL, where the answer's body matters (an eviction's
 * 429 cause) or the DSL cannot say what the API can (a delete's uid precondition).
 */
final class RawRequests {
  private static final long REQUEST_SECONDS = 15;

  private RawRequests() {}

  /** The API server's URL without a trailing slash. */
  static String base(KubernetesClient client) {
    return client.getMasterUrl().toString().replaceAll("/$", "");
  }

  /** A path segment, percent-encoded. */
  static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** Sends a raw request; no answer in time is a transient failure. */
  static HttpResponse<String> send(KubernetesClient client, HttpRequest request, String what) throws ClusterException {
    try {
      return client.getHttpClient().sendAsync(request, String.class).get(REQUEST_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException(what + " interrupted", true, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new ClusterException(what + " failed (no answer): " + e, true, e);
    }
  }
}
