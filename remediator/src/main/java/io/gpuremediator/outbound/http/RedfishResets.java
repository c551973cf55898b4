package io.gpuremediator.outbound.http;

import io.gpuremediator.outbound.BmcResets;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
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
 * {@link BmcResets} through Redfish: the system is the one the BMC URL names ({@code .../redfish/v1/Systems/<id>}), or
 * the only member of {@code /redfish/v1/Systems}; its {@code Actions["#ComputerSystem.Reset"].target} (the
 * conventional path when it names none) gets {@code {"ResetType": "ForceRestart"}}. HTTPS only, the BMC's certificate
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
  private static final String RESET_ACTION = "#ComputerSystem.Reset";

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
  public void forceRestart(URI bmc) throws OutboundException {
    String[] credentials = credentials();
    String digest = digest(credentials[0] + ":" + credentials[1]);
    String host = bmc.getHost() + ":" + port(bmc);
    if (digest.equals(rejected.get(host))) {
      listener.request(TARGET, "credentials_rejected");
      throw OutboundException.transientFailure("BMC " + bmc.getHost() + " rejected these credentials before; not asked"
          + " again until " + credentialsFile + " changes (a BMC locks accounts out after failed logins)");
    }
    String system = SYSTEM_PATH.matcher(bmc.getPath() == null ? "" : bmc.getPath()).matches()
        ? bmc.getPath().replaceAll("/$", "") : onlySystem(bmc, credentials, host, digest);
    JsonObject found = json(expectOk(send(request(HttpMethod.GET, bmc, system, credentials).send(), false), bmc, host,
        digest, "reading " + system), "system " + system);
    JsonObject reset = found.getJsonObject("Actions", new JsonObject()).getJsonObject(RESET_ACTION, new JsonObject());
    JsonArray allowed = reset.getJsonArray("ResetType@Redfish.AllowableValues");
    if (allowed != null && !allowed.contains("ForceRestart")) {
      throw OutboundException.refused("BMC " + bmc.getHost() + " does not offer ResetType ForceRestart for " + system
          + " (it offers " + allowed.encode() + ")");
    }
    String target = reset.getString("target", system + "/Actions/ComputerSystem.Reset");
    expectOk(send(request(HttpMethod.POST, bmc, target, credentials)
        .sendJsonObject(new JsonObject().put("ResetType", "ForceRestart")), true), bmc, host, digest, "resetting " + system);
  }

  /** The one system the BMC manages; a BMC of several must be named by its system's URL. */
  private String onlySystem(URI bmc, String[] credentials, String host, String digest) throws OutboundException {
    JsonObject systems = json(expectOk(send(request(HttpMethod.GET, bmc, "/redfish/v1/Systems", credentials).send(), false),
        bmc, host, digest, "listing systems"), "the Systems collection");
    JsonArray members = systems.getJsonArray("Members", new JsonArray());
    if (members.size() != 1 || !(members.getValue(0) instanceof JsonObject only)
        || only.getString("@odata.id", "").isEmpty()) {
      throw OutboundException.refused("BMC " + bmc.getHost() + " lists " + members.size() + " systems: name the node's"
          + " system in its bmc-url (https://<bmc>/redfish/v1/Systems/<id>)");
    }
    return only.getString("@odata.id");
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
