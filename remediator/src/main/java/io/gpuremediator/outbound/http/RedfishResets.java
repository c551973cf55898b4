package io.gpuremediator.outbound.http;

import io.gpuremediator.outbound.BmcResets;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * {@link BmcResets} through Redfish: the host's system and the strongest restarting reset it allows ({@link HostReset}),
 * sent to its {@code Actions["#ComputerSystem.Reset"].target}. HTTPS only, the BMC's certificate
 * and host name verified against the configured CA; Basic authentication with {@code user:password} read from the
 * credentials file at each reset (a rotated Secret needs no restart).
 *
 * <p>A BMC that rejects the credentials (401, 403) is not asked again with the same ones: BMCs lock an account out
 * after a few failed logins, so the next request waits until the credentials file changes. Blocking calls for the
 * loop's threads, each bounded by {@value #TIMEOUT_MILLIS} ms.
 */
public final class RedfishResets implements BmcResets {
  private static final String TARGET = "redfish";
  private static final long TIMEOUT_MILLIS = 15_000;
  private static final Pattern SYSTEM_PATH = Pattern.compile("/redfish/v1/Systems/[^/]+/?");

  private final WebClient client;
  private final Path credentialsFile;
  private final OutboundListener listener;
  /** By BMC host: the hash of the credentials it rejected. */
  private final Map<String, String> rejected = new ConcurrentHashMap<>();

  private RedfishResets(WebClient client, Path credentialsFile, OutboundListener listener) {
    this.client = client;
    this.credentialsFile = credentialsFile;
    this.listener = listener;
  }

  /** A client trusting the CA bundle in {@code caFile} (else the JVM's trust store), host names verified. */
  public static RedfishResets create(Vertx vertx, Path credentialsFile, Optional<Path> caFile, OutboundListener listener) {
    WebClientOptions options = new WebClientOptions().setConnectTimeout(5000).setIdleTimeout(60)
        .setUserAgent("gpu-remediator").setFollowRedirects(false).setSsl(true).setVerifyHost(true).setTrustAll(false);
    caFile.ifPresent(ca -> options.setTrustOptions(new PemTrustOptions().addCertPath(ca.toString())));
    return new RedfishResets(WebClient.create(vertx, options), credentialsFile, listener);
  }

  @Override
  public Reset restart(URI bmc) throws OutboundException {
    String[] credentials = credentials();
    String digest = digest(credentials[0] + ":" + credentials[1]);
    String host = bmc.getHost() + ":" + port(bmc);
    if (digest.equals(rejected.get(host))) {
      listener.request(TARGET, "credentials_rejected");
      throw OutboundException.transientFailure("BMC " + bmc.getHost() + " rejected these credentials before; not asked"
          + " again until " + credentialsFile + " changes (a BMC locks accounts out after failed logins)");
    }
    Optional<String> named = SYSTEM_PATH.matcher(bmc.getPath() == null ? "" : bmc.getPath()).matches()
        ? Optional.of(bmc.getPath().replaceAll("/$", "")) : Optional.empty();
    HostReset.Plan plan = HostReset.plan(named, bmc.getHost(), (path, what) -> json(expectOk(send(
        request(HttpMethod.GET, bmc, path, credentials).send(), false), bmc, host, digest, "reading " + what), what));
    expectOk(send(request(HttpMethod.POST, bmc, plan.target(), credentials)
        .sendJsonObject(new JsonObject().put("ResetType", plan.type())), true), bmc, host, digest,
        "resetting " + plan.system());
    return new Reset(plan.system(), plan.type(), plan.offered());
  }

  private String[] credentials() throws OutboundException {
    String text;
    try {
      text = Files.readString(credentialsFile, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw OutboundException.transientFailure("the Redfish credentials file " + credentialsFile + " cannot be read: "
          + e.getMessage());
    }
    int colon = text.indexOf(':');
    if (colon <= 0 || colon == text.length() - 1 || text.contains("\n")) {
      throw OutboundException.transientFailure("the Redfish credentials file " + credentialsFile + " must hold one line,"
          + " user:password");
    }
    return new String[] {text.substring(0, colon), text.substring(colon + 1)};
  }

  private HttpRequest<Buffer> request(HttpMethod method, URI bmc, String path, String[] credentials) {
    return client.request(method, port(bmc), bmc.getHost(), path).ssl(true).timeout(TIMEOUT_MILLIS)
        .putHeader("Accept", "application/json").putHeader("OData-Version", "4.0")
        .basicAuthentication(credentials[0], credentials[1]);
  }

  private static int port(URI bmc) {
    return bmc.getPort() > 0 ? bmc.getPort() : 443;
  }

  /**
   * Waits for the answer.
   *
   * @param changes whether the request changes something (the reset): no answer after it went out may mean it was
   *     applied
   */
  private HttpResponse<Buffer> send(Future<HttpResponse<Buffer>> sent, boolean changes) throws OutboundException {
    try {
      HttpResponse<Buffer> answer = sent.toCompletionStage().toCompletableFuture().get(TIMEOUT_MILLIS + 1000,
          TimeUnit.MILLISECONDS);
      listener.request(TARGET, answer.statusCode() / 100 == 2 ? "ok" : "http_" + answer.statusCode());
      return answer;
    } catch (TimeoutException | ExecutionException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      boolean notSent = cause instanceof ConnectException || String.valueOf(cause).contains("SSLHandshake")
          || cause instanceof SSLException;
      listener.request(TARGET, notSent ? "error" : "no_answer");
      String message = "BMC not reached or silent: " + (cause == null ? "timeout" : cause.getMessage());
      throw changes && !notSent ? OutboundException.unanswered(message) : OutboundException.transientFailure(message);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw OutboundException.transientFailure("interrupted");
    }
  }

  private HttpResponse<Buffer> expectOk(HttpResponse<Buffer> answer, URI bmc, String host, String digest, String what)
      throws OutboundException {
    int status = answer.statusCode();
    if (status / 100 == 2) {
      return answer;
    }
    String body = answer.bodyAsString() == null ? "" : answer.bodyAsString().strip();
    String message = "BMC " + bmc.getHost() + " answered " + status + " " + what + ": "
        + (body.length() > 300 ? body.substring(0, 300) + "..." : body);
    if (status == 401 || status == 403) {
      rejected.put(host, digest);
      throw OutboundException.transientFailure(message + "; not asked again until " + credentialsFile + " changes");
    }
    if (status / 100 == 5 || status == 408 || status == 429) {
      throw OutboundException.transientFailure(message);
    }
    throw OutboundException.refused(message);
  }

  private static JsonObject json(HttpResponse<Buffer> answer, String what) throws OutboundException {
    try {
      return answer.bodyAsJsonObject();
    } catch (RuntimeException e) {
      throw OutboundException.transientFailure("the BMC answered " + what + " in a form we cannot read");
    }
  }

  private static String digest(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
