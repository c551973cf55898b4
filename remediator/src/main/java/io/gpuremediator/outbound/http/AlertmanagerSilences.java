package io.gpuremediator.outbound.http;

import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.SilenceRequest;
import io.gpuremediator.outbound.Silences;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.net.URI;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * Alertmanager's silences, API v2. Blocking calls for the loop's threads (never called on an event loop): each
 * waits at most {@value #TIMEOUT_MILLIS} ms. Alertmanager 0.25 answers 500, not 404, when asked to expire a silence
 * it does not know: that, and an already expired one, count as expired. A renewal of a silence it no longer knows
 * (404: it lost its data) creates it again.
 */
public final class AlertmanagerSilences implements Silences {
  private static final String TARGET = "alertmanager";
  private static final long TIMEOUT_MILLIS = 10_000;
  /** Alertmanager's silence ids: UUIDs. */
  private static final Pattern SILENCE_ID = Pattern.compile("[0-9a-fA-F-]{1,64}");

  private final WebClient client;
  private final URI base;
  private final Optional<String> bearerToken;
  private final OutboundListener listener;

  /** A client of the Alertmanager at {@code base} (its API v2 under {@code /api/v2}). */
  public AlertmanagerSilences(Vertx vertx, URI base, Optional<String> bearerToken, OutboundListener listener) {
    this.client = WebClient.create(vertx, new WebClientOptions().setConnectTimeout(5000).setIdleTimeout(60)
        .setUserAgent("gpu-remediator").setFollowRedirects(false));
    this.base = base;
    this.bearerToken = bearerToken;
    this.listener = listener;
  }

  @Override
  public String put(Optional<String> id, SilenceRequest silence) throws OutboundException {
    JsonArray matchers = new JsonArray();
    for (SilenceRequest.Matcher m : silence.matchers()) {
      matchers.add(new JsonObject().put("name", m.name()).put("value", m.value()).put("isRegex", m.isRegex())
          .put("isEqual", m.isEqual()));
    }
    JsonObject body = new JsonObject().put("matchers", matchers).put("startsAt", silence.startsAt().toString())
        .put("endsAt", silence.endsAt().toString()).put("createdBy", silence.createdBy()).put("comment", silence.comment());
    id.ifPresent(i -> body.put("id", i));
    HttpResponse<Buffer> answer = send(request(HttpMethod.POST, "/api/v2/silences").sendJsonObject(body));
    if (id.isPresent() && answer.statusCode() == 404) {
      // Alertmanager no longer knows it (restarted without its data): create it anew rather than fail forever.
      body.remove("id");
      answer = send(request(HttpMethod.POST, "/api/v2/silences").sendJsonObject(body));
    }
    expectOk(answer, "creating a silence");
    String given = json(answer).getString("silenceID", "");
    if (given.isEmpty()) {
      throw OutboundException.transientFailure("Alertmanager answered a silence without silenceID");
    }
    return given;
  }

  @Override
  public Optional<String> findByMarker(String marker) throws OutboundException {
    HttpResponse<Buffer> answer = send(request(HttpMethod.GET, "/api/v2/silences").send());
    expectOk(answer, "listing silences");
    JsonArray all;
    try {
      all = answer.bodyAsJsonArray();
    } catch (RuntimeException e) {
      throw OutboundException.transientFailure("Alertmanager listed silences in a form we cannot read");
    }
    for (Object o : all) {
      if (o instanceof JsonObject s && s.getString("comment", "").endsWith(marker)) {
        String state = s.getJsonObject("status", new JsonObject()).getString("state", "");
        if (state.equals("active") || state.equals("pending")) {
          return Optional.ofNullable(s.getString("id"));
        }
      }
    }
    return Optional.empty();
  }

  @Override
  public void expire(String id) throws OutboundException {
    if (!SILENCE_ID.matcher(id).matches()) {
      throw OutboundException.refused("\"" + (id.length() > 64 ? id.substring(0, 61) + "..." : id) + "\" is not a"
          + " silence id: nothing expired");
    }
    HttpResponse<Buffer> found = send(request(HttpMethod.GET, "/api/v2/silence/" + id).send());
    String seen = found.bodyAsString() == null ? "" : found.bodyAsString();
    if (found.statusCode() == 404 || (found.statusCode() == 500 && seen.contains("not found"))) {
      return;
    }
    expectOk(found, "reading silence " + id);
    JsonObject silence = json(found);
    if (!CREATED_BY.equals(silence.getString("createdBy")) || !silence.getString("comment", "").contains("[" + CREATED_BY + " ")) {
      throw OutboundException.refused("silence " + id + " is not ours (created by \"" + silence.getString("createdBy", "")
          + "\", without our marker): not expired");
    }
    HttpResponse<Buffer> answer = send(request(HttpMethod.DELETE, "/api/v2/silence/" + id).send());
    String text = answer.bodyAsString() == null ? "" : answer.bodyAsString();
    if (answer.statusCode() == 404 || (answer.statusCode() == 500 && text.contains("not found"))
        || text.contains("already expired")) {
      return;
    }
    expectOk(answer, "expiring silence " + id);
  }

  private HttpRequest<Buffer> request(HttpMethod method, String path) {
    String prefix = base.getPath() == null || base.getPath().equals("/") ? "" : base.getPath().replaceAll("/$", "");
    int port = base.getPort() > 0 ? base.getPort() : "https".equals(base.getScheme()) ? 443 : 80;
    HttpRequest<Buffer> r = client.request(method, port, base.getHost(), prefix + path)
        .ssl("https".equals(base.getScheme())).timeout(TIMEOUT_MILLIS).putHeader("Accept", "application/json");
    bearerToken.ifPresent(t -> r.bearerTokenAuthentication(t));
    return r;
  }

  private HttpResponse<Buffer> send(Future<HttpResponse<Buffer>> sent) throws OutboundException {
    try {
      HttpResponse<Buffer> answer = sent.toCompletionStage().toCompletableFuture().get(TIMEOUT_MILLIS + 1000,
          TimeUnit.MILLISECONDS);
      listener.request(TARGET, answer.statusCode() / 100 == 2 ? "ok" : "http_" + answer.statusCode());
      return answer;
    } catch (TimeoutException e) {
      listener.request(TARGET, "timeout");
      throw OutboundException.transientFailure("Alertmanager did not answer within " + TIMEOUT_MILLIS + " ms");
    } catch (ExecutionException e) {
      boolean timeout = e.getCause() instanceof TimeoutException
          || String.valueOf(e.getCause()).contains("timeout");
      listener.request(TARGET, timeout ? "timeout" : "error");
      throw OutboundException.transientFailure("Alertmanager not reached: " + e.getCause().getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw OutboundException.transientFailure("interrupted");
    }
  }

  private static void expectOk(HttpResponse<Buffer> answer, String what) throws OutboundException {
    if (answer.statusCode() / 100 == 2) {
      return;
    }
    String body = answer.bodyAsString() == null ? "" : answer.bodyAsString().strip();
    String message = "Alertmanager answered " + answer.statusCode() + " " + what + ": "
        + (body.length() > 300 ? body.substring(0, 300) + "..." : body);
    if (answer.statusCode() / 100 == 4 && answer.statusCode() != 408 && answer.statusCode() != 429) {
      throw OutboundException.refused(message);
    }
    throw OutboundException.transientFailure(message);
  }

  private static JsonObject json(HttpResponse<Buffer> answer) throws OutboundException {
    try {
      return answer.bodyAsJsonObject();
    } catch (RuntimeException e) {
      throw OutboundException.transientFailure("Alertmanager answered something other than JSON");
    }
  }
}
