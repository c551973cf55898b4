package io.gpuremediator.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fabric8 mock API server in CRUD mode, plus what it lacks of the real API server, reproduced from the
 * API server's documented behaviour (see {@code closed-loop.md}, "Eviction API responses"): pods listed by
 * the field selector {@code spec.nodeName}, the policy/v1 Eviction subresource with PodDisruptionBudgets
 * (429 with a DisruptionBudget cause, 500 for several budgets), throttling (429 without a cause), and pod
 * logs. Everything else goes to the CRUD store; all of it over real HTTP on 127.0.0.1.
 */
public final class EmulatedApiServer extends Dispatcher implements AutoCloseable {
  private static final ObjectMapper JSON = Serialization.jsonMapper();
  private static final Pattern EVICTION = Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/]+)/eviction");
  private static final Pattern LOG = Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/?]+)/log(\\?.*)?");
  private static final Pattern FIELD = Pattern.compile("fieldSelector=spec\\.nodeName%3D([^&]+)");

  private final KubernetesMixedDispatcher crud;
  private final KubernetesMockServer server;
  private final Map<String, Budget> budgets = new ConcurrentHashMap<>();
  private final Map<String, String> logs = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> evictions = new ConcurrentHashMap<>();
  private final AtomicInteger throttleNext = new AtomicInteger();
  private final AtomicInteger evictionRequests = new AtomicInteger();

  /** A PodDisruptionBudget: the pods of a namespace with this label, and how many may be disrupted now. */
  public static final class Budget {
    final String namespace;
    final String name;
    final String label;
    final String value;
    final AtomicInteger allowed;

    Budget(String namespace, String name, String label, String value, int allowed) {
      this.namespace = namespace;
      this.name = name;
      this.label = label;
      this.value = value;
      this.allowed = new AtomicInteger(allowed);
    }

    /** Lets {@code n} more disruptions through (a replacement pod became Ready, say). */
    public void allow(int n) {
      allowed.addAndGet(n);
    }
  }

  private EmulatedApiServer(Map<ServerRequest, Queue<ServerResponse>> responses) {
    this.crud = new KubernetesMixedDispatcher(responses);
    this.server = new KubernetesMockServer(new Context(JSON), new MockWebServer(), responses, this, true);
  }

  /** Starts a server on 127.0.0.1. */
  public static EmulatedApiServer start() {
    EmulatedApiServer s = new EmulatedApiServer(new HashMap<>());
    try {
      s.server.init(InetAddress.getByName("127.0.0.1"), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return s;
  }

  /** A client of this server, without the client's own retries. */
  public KubernetesClient client() {
    return Nodes.noRetry(server.createClient());
  }

  /** Adds a budget over the pods of {@code namespace} labelled {@code label=value}. */
  public Budget budget(String namespace, String name, String label, String value, int allowed) {
    Budget b = new Budget(namespace, name, label, value, allowed);
    budgets.put(namespace + "/" + name, b);
    return b;
  }

  /** The next {@code n} eviction requests are throttled (429 without a cause, Retry-After: 1). */
  public void throttleEvictions(int n) {
    throttleNext.set(n);
  }

  /** Sets what the log of a pod says. */
  public void log(String namespace, String pod, String text) {
    logs.put(namespace + "/" + pod, text);
  }

  /** Evictions granted for a pod (each deletes it, so more than one would mean a pod evicted twice). */
  public int evictionsGranted(String namespace, String pod) {
    AtomicInteger n = evictions.get(namespace + "/" + pod);
    return n == null ? 0 : n.get();
  }

  /** Every eviction request answered, whatever the answer. */
  public int evictionRequests() {
    return evictionRequests.get();
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    String path = request.getPath();
    Matcher m;
    if (request.method() == HttpMethod.POST && (m = EVICTION.matcher(path)).matches()) {
      return evict(request, m.group(1), m.group(2));
    }
    if (request.method() == HttpMethod.GET && (m = LOG.matcher(path)).matches()) {
      String text = logs.get(m.group(1) + "/" + m.group(2));
      return text == null ? status(404, "NotFound", "pods \"" + m.group(2) + "\" not found", null)
          : new MockResponse().setResponseCode(200).setHeader("Content-Type", "text/plain").setBody(text);
    }
    if (request.method() == HttpMethod.GET && path.startsWith("/api/v1/pods?") && !path.contains("watch=")
        && (m = FIELD.matcher(path)).find()) {
      return podsOn(URLDecoder.decode(m.group(1), StandardCharsets.UTF_8));
    }
    return crud.dispatch(request);
  }

  private MockResponse podsOn(String node) {
    MockResponse all = crud.dispatch(get("/api/v1/pods"));
    try {
      ObjectNode list = (ObjectNode) JSON.readTree(all.getBody().readUtf8());
      ArrayNode kept = JSON.createArrayNode();
      for (JsonNode pod : list.path("items")) {
        if (node.equals(pod.path("spec").path("nodeName").asText())) {
          kept.add(pod);
        }
      }
      list.set("items", kept);
      return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json").setBody(list.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private MockResponse evict(RecordedRequest request, String namespace, String name) {
    evictionRequests.incrementAndGet();
    if (throttleNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      return status(429, "TooManyRequests", "Too many requests, please try again later.", null).setHeader("Retry-After", "1");
    }
    MockResponse found = crud.dispatch(get("/api/v1/namespaces/" + namespace + "/pods/" + name));
    if (found.code() == 404) {
      return status(404, "NotFound", "pods \"" + name + "\" not found", null);
    }
    JsonNode pod;
    try {
      pod = JSON.readTree(found.getBody().readUtf8());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String phase = pod.path("status").path("phase").asText("");
    boolean skipsBudget = phase.equals("Succeeded") || phase.equals("Failed") || phase.equals("Pending")
        || pod.path("metadata").has("deletionTimestamp");
    if (!skipsBudget) {
      List<Budget> matching = new ArrayList<>();
      for (Budget b : budgets.values()) {
        if (b.namespace.equals(namespace) && b.value.equals(pod.path("metadata").path("labels").path(b.label).asText(null))) {
          matching.add(b);
        }
      }
      if (matching.size() > 1) {
        return status(500, "InternalError",
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.", null);
      }
      if (matching.size() == 1) {
        Budget b = matching.get(0);
        if (b.allowed.getAndUpdate(n -> n > 0 ? n - 1 : n) <= 0) {
          ObjectNode cause = JSON.createObjectNode().put("reason", "DisruptionBudget")
              .put("message", "The disruption budget " + b.name + " needs 2 healthy pods and has 2 currently");
          return status(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.", cause);
        }
      }
    }
    crud.dispatch(new RecordedRequest("DELETE /api/v1/namespaces/" + namespace + "/pods/" + name + " HTTP/1.1",
        HttpMethod.DELETE, "/api/v1/namespaces/" + namespace + "/pods/" + name, headers(), null));
    evictions.computeIfAbsent(namespace + "/" + name, k -> new AtomicInteger()).incrementAndGet();
    return new MockResponse().setResponseCode(201).setHeader("Content-Type", "application/json")
        .setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Success\",\"code\":201}");
  }

  private static RecordedRequest get(String path) {
    return new RecordedRequest("GET " + path + " HTTP/1.1", HttpMethod.GET, path, headers(), null);
  }

  private static Headers headers() {
    return Headers.builder().build();
  }

  /** A Status body as the API server writes it. */
  private static MockResponse status(int code, String reason, String message, ObjectNode cause) {
    ObjectNode s = JSON.createObjectNode().put("kind", "Status").put("apiVersion", "v1");
    s.putObject("metadata");
    s.put("status", "Failure").put("message", message).put("reason", reason);
    if (cause != null) {
      s.putObject("details").putArray("causes").add(cause);
    }
    s.put("code", code);
    return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json").setBody(s.toString());
  }

  @Override
  public void close() {
    server.destroy();
  }
}
