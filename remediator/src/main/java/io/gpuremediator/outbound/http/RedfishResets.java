package io.gpuremediator.outbound.http;

import io.gpuremediator.outbound.BmcAddress;
import io.gpuremediator.outbound.BmcDirectory;
import io.gpuremediator.outbound.BmcResets;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.SystemUuid;
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
 * {@link BmcResets} through Redfish: the node's BMC as the operator's list has it ({@link BmcDirectory}), the host's
 * system and the strongest restarting reset it allows ({@link HostReset}), sent to its {@code
 * Actions["#ComputerSystem.Reset"].target} once the system's {@code UUID} is the node's ({@link SystemUuid}; else
 * nothing is sent). HTTPS with the BMC's certificate and host name verified against the configured CA (no CA: no
 * https BMC is trusted), plain http only where the config allows it; Basic authentication with {@code user:password}
 * read from the BMC's credentials file at each reset (a rotated Secret needs no restart).
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
  private final BmcDirectory directory;
  private final Path defaultCredentials;
  private final boolean trusted;
  private final boolean insecureHttp;
  private final OutboundListener listener;
  /** By BMC host: the hash of the credentials it rejected. */
  private final Map<String, String> rejected = new ConcurrentHashMap<>();

  /** One BMC being asked: its address, host:port, the credentials file and the digest of what it held. */
  private record Call(URI bmc, String host, Path credentialsFile, String digest) {}

  private RedfishResets(WebClient client, BmcDirectory directory, Path defaultCredentials, boolean trusted,
      boolean insecureHttp, OutboundListener listener) {
    this.client = client;
    this.directory = directory;
    this.defaultCredentials = defaultCredentials;
    this.trusted = trusted;
    this.insecureHttp = insecureHttp;
    this.listener = listener;
  }

  /**
   * A client for the BMCs {@code directory} lists, trusting the CA bundle in {@code caFile} for https (none: every
   * https BMC is refused unasked), host names verified; plain http only when {@code insecureHttp}.
   */
  public static RedfishResets create(Vertx vertx, BmcDirectory directory, Path defaultCredentials, Optional<Path> caFile,
      boolean insecureHttp, OutboundListener listener) {
    WebClientOptions options = new WebClientOptions().setConnectTimeout(5000).setIdleTimeout(60)
        .setUserAgent("gpu-remediator").setFollowRedirects(false).setSsl(true).setVerifyHost(true).setTrustAll(false);
    caFile.ifPresent(ca -> options.setTrustOptions(new PemTrustOptions().addCertPath(ca.toString())));
    return new RedfishResets(WebClient.create(vertx, options), directory, defaultCredentials, caFile.isPresent(),
        insecureHttp, listener);
  }

  @Override
  public Reset restart(Target target) throws OutboundException {
    BmcAddress address = directory.find(target.node(), target.providerId());
    URI bmc = address.url();
    if ("https".equals(bmc.getScheme()) ? !trusted : !insecureHttp) {
      throw OutboundException.refused("BMC " + bmc.getHost() + " (" + address.source() + ") is " + bmc.getScheme()
          + ", which needs " + ("https".equals(bmc.getScheme()) ? "cloud.redfish.ca_file" : "insecure_http: true")
          + "; nothing was sent");
    }
    Path file = address.credentialsFile().orElse(defaultCredentials);
    String[] credentials = credentials(file);
    Call call = new Call(bmc, bmc.getHost() + ":" + port(bmc), file, digest(credentials[0] + ":" + credentials[1]));
    if (call.digest().equals(rejected.get(call.host()))) {
      listener.request(TARGET, "credentials_rejected");
      throw OutboundException.transientFailure("BMC " + bmc.getHost() + " rejected these credentials before; not asked"
          + " again until " + file + " changes (a BMC locks accounts out after failed logins)");
    }
    Optional<String> named = SYSTEM_PATH.matcher(bmc.getPath() == null ? "" : bmc.getPath()).matches()
        ? Optional.of(bmc.getPath().replaceAll("/$", "")) : Optional.empty();
    HostReset.Plan plan = HostReset.plan(named, bmc.getHost(), (path, what) -> json(expectOk(send(
        request(HttpMethod.GET, bmc, path, credentials).send(), false), call, "reading " + what), what));
    Optional<String> other = SystemUuid.mismatch(plan.uuid(), target.systemUuid());
    if (other.isPresent()) {
      throw OutboundException.mismatch("BMC " + bmc.getHost() + " (" + address.source() + ") is not " + target.node()
          + "'s: " + other.get() + "; nothing was sent");
    }
    expectOk(send(request(HttpMethod.POST, bmc, plan.target(), credentials)
        .sendJsonObject(new JsonObject().put("ResetType", plan.type())), true), call, "resetting " + plan.system());
    return new Reset(bmc.getHost(), plan.system(), plan.type(), plan.offered());
  }

  private String[] credentials(Path credentialsFile) throws OutboundException {
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
    return client.request(method, port(bmc), bmc.getHost(), path).ssl("https".equals(bmc.getScheme()))
        .timeout(TIMEOUT_MILLIS)
        .putHeader("Accept", "application/json").putHeader("OData-Version", "4.0")
        .basicAuthentication(credentials[0], credentials[1]);
  }

  private static int port(URI bmc) {
    return bmc.getPort() > 0 ? bmc.getPort() : "https".equals(bmc.getScheme()) ? 443 : 80;
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

  private HttpResponse<Buffer> expectOk(HttpResponse<Buffer> answer, Call call, String what) throws OutboundException {
    int status = answer.statusCode();
    if (status / 100 == 2) {
      return answer;
    }
    String body = answer.bodyAsString() == null ? "" : answer.bodyAsString().strip();
    String message = "BMC " + call.bmc().getHost() + " answered " + status + " " + what + ": "
        + (body.length() > 300 ? body.substring(0, 300) + "..." : body);
    if (status == 401 || status == 403) {
      rejected.put(call.host(), call.digest());
      throw OutboundException.transientFailure(message + "; not asked again until " + call.credentialsFile() + " changes");
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
