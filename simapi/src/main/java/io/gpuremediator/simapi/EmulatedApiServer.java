package io.gpuremediator.simapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fabric8 mock API server in CRUD mode, plus the API server behaviour it lacks (see the package).
 * Budgets are PodDisruptionBudget objects in the store, as in a cluster: an eviction reads those of the
 * pod's namespace whose {@code spec.selector.matchLabels} match the pod, refuses while
 * {@code status.disruptionsAllowed} is 0, and spends one when it grants; whoever plays the disruption
 * controller raises it again ({@link #allow}).
 */
public final class EmulatedApiServer extends Dispatcher implements AutoCloseable {
  private static final int CLOSE_ATTEMPTS = 3;
  private static final ObjectMapper JSON = Serialization.jsonMapper();
  private static final Pattern EVICTION = Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/]+)/eviction");
  private static final Pattern LOG = Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/?]+)/log(\\?.*)?");
  private static final Pattern FIELD = Pattern.compile("fieldSelector=spec\\.nodeName%3D([^&]+)");
  private static final Pattern POD = Pattern.compile("/api/v1/namespaces/[^/]+/pods(/[^/?]+(/status)?)?(\\?.*)?");
  private static final Pattern LIMIT = Pattern.compile("[?&]limit=(\\d+)");
  private static final Pattern CONTINUE = Pattern.compile("[?&]continue=([^&]+)");
  /** Paged lists in progress, by continue token; the oldest expire (under the map's monitor). */
  private static final int SNAPSHOTS = 64;
  private final Map<String, Snapshot> snapshots = new LinkedHashMap<>(16, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Snapshot> eldest) {
      return size() > SNAPSHOTS;
    }
  };
  private static final String PDBS = "/apis/policy/v1/namespaces/%s/poddisruptionbudgets";

  private final KubernetesMixedDispatcher crud;
  private final MockInternals internals;
  private final KubernetesMockServer server;
  private final Map<String, String> logs = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> evictions = new ConcurrentHashMap<>();
  private final AtomicInteger throttleNext = new AtomicInteger();
  private final AtomicInteger evictionRequests = new AtomicInteger();
  /** The newest requests, at most {@value #LOGGED_REQUESTS} (a bench sends millions). */
  private final Deque<String> requestLog = new ConcurrentLinkedDeque<>();
  private static final int LOGGED_REQUESTS = 10_000;
  private final AtomicInteger logged = new AtomicInteger();
  private final Map<String, AtomicInteger> answersToLose = new ConcurrentHashMap<>();
  private final NodePodWatches podWatches = new NodePodWatches(JSON);
  private final Map<String, AtomicInteger> deviceEvictions = new ConcurrentHashMap<>();
  private final DynamicResources dra = new DynamicResources(this::read, this::deleteForDeviceTaint,
      this::store, Clock.systemUTC());

  /** The mock's client configuration, read once: each of its clients holds a Vert.x instance of its own. */
  private Config config;

  private EmulatedApiServer(Map<ServerRequest, Queue<ServerResponse>> responses) {
    this.crud = new KubernetesMixedDispatcher(responses);
    this.internals = new MockInternals(crud);
    this.server = new KubernetesMockServer(new Context(JSON), new MockWebServer(), responses, this, false);
  }

  /** Starts a server on 127.0.0.1, on a free port. */
  public static EmulatedApiServer start() {
    return start("127.0.0.1", 0);
  }

  /** Starts a server on {@code host:port} (0: a free port). */
  public static EmulatedApiServer start(String host, int port) {
    EmulatedApiServer s = new EmulatedApiServer(new HashMap<>());
    try {
      s.server.init(InetAddress.getByName(host), port);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (KubernetesClient mocks = s.server.createClient()) {
      s.config = mocks.getConfiguration();
    }
    return s;
  }

  /**
   * A client of this server, without the client's own retries (the code under test decides what to retry). Its
   * request timeout is long: on a busy 2-core machine the emulated server (one lock over its store, in the test's own
   * JVM) has held a read past 5 s while it worked through a burst of writes.
   */
  public KubernetesClient client() {
    return new KubernetesClientBuilder().withConfig(new ConfigBuilder(config)
        .withRequestRetryBackoffLimit(0).withRequestTimeout(20_000).build()).build();
  }

  /** Creates a PodDisruptionBudget over the pods of {@code namespace} labelled {@code label=value}. */
  public void budget(String namespace, String name, String label, String value, int disruptionsAllowed) {
    ObjectNode pdb = JSON.createObjectNode().put("apiVersion", "policy/v1").put("kind", "PodDisruptionBudget");
    pdb.putObject("metadata").put("name", name).put("namespace", namespace);
    pdb.putObject("spec").put("minAvailable", 1).putObject("selector").putObject("matchLabels").put(label, value);
    pdb.putObject("status").put("disruptionsAllowed", disruptionsAllowed);
    crud.dispatch(request(HttpMethod.POST, String.format(PDBS, namespace), pdb.toString()));
  }

  /** Lets {@code n} more disruptions through (the disruption controller saw a replacement pod become Ready). */
  public synchronized void allow(String namespace, String name, int n) {
    JsonNode pdb = read(String.format(PDBS, namespace) + "/" + name);
    ObjectNode status = ((ObjectNode) pdb).with("status");
    status.put("disruptionsAllowed", status.path("disruptionsAllowed").asInt(0) + n);
    crud.dispatch(request(HttpMethod.PUT, String.format(PDBS, namespace) + "/" + name + "/status", pdb.toString()));
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

  /** The next request the server received, or null when none came within the timeout. */
  public RecordedRequest takeRequest(long timeout, TimeUnit unit) throws InterruptedException {
    return server.takeRequest(timeout, unit);
  }

  /**
   * The requests answered so far (the newest {@value #LOGGED_REQUESTS}), as {@code METHOD path} (with its query), oldest
   * first: what a client under test asked of the API server, whatever it was told.
   */
  public List<String> requestLog() {
    return new ArrayList<>(requestLog);
  }

  /**
   * The next {@code n} requests of {@code method} whose path starts with {@code pathPrefix} are applied, and answered
   * with the 504 an API server gives when the request outlived its deadline: the client cannot tell it was applied.
   */
  public void loseAnswers(String method, String pathPrefix, int n) {
    answersToLose.put(method + " " + pathPrefix, new AtomicInteger(n));
  }

  /** The mock server, for a test's own expectations (they are answered before anything else). */
  public KubernetesMockServer mock() {
    return server;
  }

  /**
   * Puts objects straight into the store under their collection's path ({@code /api/v1/nodes}), as a restored etcd
   * holds them: no request, no watch event. For fleets of tens of thousands of nodes, each of which a create would cost
   * a request, a resourceVersion and a watch event. Call it before any client watches. The mock keeps its store private
   * ({@link MockInternals}).
   */
  public void preload(String collectionPath, List<? extends HasMetadata> objects) {
    IndexedCrudDispatcher store = internals.store();
    for (HasMetadata o : objects) {
      o.getMetadata().setResourceVersion("1");
      o.getMetadata().setUid(UUID.randomUUID().toString());
      o.getMetadata().setCreationTimestamp("2026-11-01T00:00:00Z");
      o.getMetadata().setGeneration(1L); // the mock's update keeps it from the stored object: one without it is never updated
      String json = Serialization.asJson(o);
      store.getMap().put(AttributeSet.merge(store.getAttributeExtractor().fromPath(collectionPath),
          store.getAttributeExtractor().fromResource(json)), json);
    }
  }

  /** The server's URL. */
  public String url() {
    return config.getMasterUrl();
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    String path = request.getPath();
    requestLog.addLast(request.method().name() + " " + path);
    if (logged.incrementAndGet() > LOGGED_REQUESTS && requestLog.pollFirst() != null) {
      logged.decrementAndGet();
    }
    Matcher field;
    if (request.method() == HttpMethod.GET && path.startsWith("/api/v1/pods?") && path.contains("watch=true")
        && (field = FIELD.matcher(path)).find()) {
      return podWatches.open(URLDecoder.decode(field.group(1), StandardCharsets.UTF_8));
    }
    boolean podChange = request.method() != HttpMethod.GET && POD.matcher(path).matches();
    JsonNode deleted = podChange && request.method() == HttpMethod.DELETE ? read(path.replaceAll("\\?.*", "")) : null;
    MockResponse answer = answer(request, path);
    if (podChange && answer.code() / 100 == 2) {
      podChanged(request.method(), deleted, answer);
    }
    for (Map.Entry<String, AtomicInteger> lose : answersToLose.entrySet()) {
      if ((request.method().name() + " " + path).startsWith(lose.getKey())
          && lose.getValue().getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        return status(504, "Timeout", "Timeout: request did not complete within requested timeout - context deadline"
            + " exceeded", null);
      }
    }
    if (answer.getWebSocketListener() != null) {
      answer.withWebSocketUpgrade(new ClosesOffTheEventLoop(answer.getWebSocketListener(), internals::forget));
    }
    return answer;
  }

  private MockResponse answer(RecordedRequest request, String path) {
    String method = request.method().name();
    if (DynamicResources.slicesByField(method, path)) {
      if (path.contains("watch=")) {
        return status(400, "BadRequest", "simapi: a watch of resourceslices by field is not emulated", null);
      }
      return answered(dra.slices(path));
    }
    RecordedRequest stored = request;
    if (ObjectLimits.checked(method, path)) {
      try {
        Optional<String> broken = ObjectLimits.broken(JSON.readTree(request.getBody().getBytes()));
        if (broken.isPresent()) {
          return status(422, "Invalid", broken.get(), null);
        }
      } catch (IOException e) {
        return status(400, "BadRequest", "the body is not JSON: " + e.getMessage(), null);
      }
    }
    if (DynamicResources.writesRule(method, path)) {
      DynamicResources.Answer rule;
      try {
        rule = dra.rule(JSON.readTree(request.getBody().getBytes()));
      } catch (IOException e) {
        return status(400, "BadRequest", "the body is not JSON: " + e.getMessage(), null);
      }
      if (!rule.ok()) {
        return answered(rule);
      }
      stored = request(request.method(), path, rule.object().toString());
    }
    MockResponse answer = answerCrud(stored, path);
    if (DynamicResources.changesDevices(method, path) && answer.code() / 100 == 2) {
      dra.evict();
    }
    return answer;
  }

  private static MockResponse answered(DynamicResources.Answer a) {
    return a.ok() ? json(a.code(), a.object().toString()) : status(a.code(), a.reason(), a.message(), null);
  }

  /** A pod the device taint eviction controller deletes (as it does: a delete, not an eviction). */
  private void deleteForDeviceTaint(String namespace, String name) {
    String path = "/api/v1/namespaces/" + namespace + "/pods/" + name;
    JsonNode pod = read(path);
    if (pod == null) {
      return;
    }
    crud.dispatch(request(HttpMethod.DELETE, path, null));
    podGone(pod);
    deviceEvictions.computeIfAbsent(namespace + "/" + name, k -> new AtomicInteger()).incrementAndGet();
  }

  /** Pods the device taint eviction controller deleted, by namespace and name. */
  public int deviceTaintEvictions(String namespace, String pod) {
    AtomicInteger n = deviceEvictions.get(namespace + "/" + pod);
    return n == null ? 0 : n.get();
  }

  private MockResponse answerCrud(RecordedRequest request, String path) {
    Matcher m;
    if (request.method() == HttpMethod.POST && (m = EVICTION.matcher(path)).matches()) {
      return evict(m.group(1), m.group(2));
    }
    if (request.method() == HttpMethod.GET && (m = LOG.matcher(path)).matches()) {
      String text = logs.get(m.group(1) + "/" + m.group(2));
      return text == null ? status(404, "NotFound", "pods \"" + m.group(2) + "\" not found", null)
          : new MockResponse().setResponseCode(200).setHeader("Content-Type", "text/plain")
              .setBody(PodLogs.select(text, m.group(3)));
    }
    if (request.method() == HttpMethod.GET && path.startsWith("/api/v1/pods?") && !path.contains("watch=")
        && (m = FIELD.matcher(path)).find()) {
      return podsOn(URLDecoder.decode(m.group(1), StandardCharsets.UTF_8));
    }
    if (request.method() == HttpMethod.GET && !path.contains("watch=") && (m = LIMIT.matcher(path)).find()) {
      int limit = Integer.parseInt(m.group(1));
      return limit > 0 ? page(path, limit) : crud.dispatch(request); // limit=0: no limit, as the API server reads it
    }
    return crud.dispatch(request);
  }

  /**
   * A paged list, as the API server answers {@code ?limit=N}: at most N items, and while more are left a
   * {@code metadata.continue} token and {@code remainingItemCount}. Every page comes from the snapshot the first one
   * took (the server's consistent read at the list's resourceVersion), and a token may be used again until it expires
   * (etcd's compaction there; here, once {@value #SNAPSHOTS} newer pages were served): then it is a 410 Expired.
   */
  private MockResponse page(String path, int limit) {
    Matcher token = CONTINUE.matcher(path);
    ObjectNode list;
    int from;
    if (token.find()) {
      String key = URLDecoder.decode(token.group(1), StandardCharsets.UTF_8);
      Snapshot s;
      synchronized (snapshots) {
        s = snapshots.get(key);
      }
      if (s == null) {
        return status(410, "Expired", "The provided continue parameter is too old to display a consistent list result.", null);
      }
      list = s.list();
      from = s.next();
    } else {
      MockResponse whole = crud.dispatch(request(HttpMethod.GET, path.replaceAll("([?&])limit=\\d+&?", "$1")
          .replaceAll("[?&]$", ""), null));
      if (whole.code() != 200) {
        return whole;
      }
      try {
        list = (ObjectNode) JSON.readTree(whole.getBody().readUtf8());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      from = 0;
    }
    ArrayNode items = (ArrayNode) list.path("items");
    int to = Math.min(items.size(), from + Math.max(1, limit));
    ObjectNode page = JSON.createObjectNode();
    list.fields().forEachRemaining(f -> {
      if (!f.getKey().equals("items")) {
        page.set(f.getKey(), f.getValue().deepCopy());
      }
    });
    ArrayNode slice = page.putArray("items");
    for (int i = from; i < to; i++) {
      slice.add(items.get(i));
    }
    ObjectNode metadata = page.with("metadata");
    metadata.remove(List.of("continue", "remainingItemCount"));
    if (to < items.size()) {
      String next = UUID.randomUUID().toString();
      synchronized (snapshots) {
        snapshots.put(next, new Snapshot(list, to));
      }
      metadata.put("continue", next).put("remainingItemCount", items.size() - to);
    }
    return json(200, page.toString());
  }

  /** A list being paged through: the whole list as first read, and where the next page starts. */
  private record Snapshot(ObjectNode list, int next) {}

  /** The pods bound to a node, from the store's index of them (the API server's watch cache indexes pods by node). */
  private MockResponse podsOn(String node) {
    return json(200, internals.store().podsOn(node));
  }

  /** The eviction handler of the API server (pkg/registry/core/pod/storage/eviction.go), as documented. */
  private synchronized MockResponse evict(String namespace, String name) {
    evictionRequests.incrementAndGet();
    if (throttleNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      return status(429, "TooManyRequests", "Too many requests, please try again later.", null).setHeader("Retry-After", "1");
    }
    JsonNode pod = read("/api/v1/namespaces/" + namespace + "/pods/" + name);
    if (pod == null) {
      return status(404, "NotFound", "pods \"" + name + "\" not found", null);
    }
    String phase = pod.path("status").path("phase").asText("");
    boolean skipsBudget = phase.equals("Succeeded") || phase.equals("Failed") || phase.equals("Pending")
        || pod.path("metadata").has("deletionTimestamp");
    if (!skipsBudget) {
      List<JsonNode> matching = new ArrayList<>();
      JsonNode pdbs = read(String.format(PDBS, namespace));
      for (JsonNode pdb : pdbs == null ? JSON.createArrayNode() : pdbs.path("items")) {
        if (selects(pdb.path("spec").path("selector").path("matchLabels"), pod.path("metadata").path("labels"))) {
          matching.add(pdb);
        }
      }
      if (matching.size() > 1) {
        return status(500, "InternalError",
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.", null);
      }
      if (matching.size() == 1) {
        ObjectNode pdb = (ObjectNode) matching.get(0);
        int allowed = pdb.path("status").path("disruptionsAllowed").asInt(0);
        String pdbName = pdb.path("metadata").path("name").asText();
        if (allowed <= 0) {
          ObjectNode cause = JSON.createObjectNode().put("reason", "DisruptionBudget")
              .put("message", "The disruption budget " + pdbName + " needs 1 healthy pods and has 1 currently");
          return status(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.", cause);
        }
        pdb.with("status").put("disruptionsAllowed", allowed - 1);
        crud.dispatch(request(HttpMethod.PUT, String.format(PDBS, namespace) + "/" + pdbName + "/status", pdb.toString()));
      }
    }
    crud.dispatch(request(HttpMethod.DELETE, "/api/v1/namespaces/" + namespace + "/pods/" + name, null));
    podGone(pod);
    evictions.computeIfAbsent(namespace + "/" + name, k -> new AtomicInteger()).incrementAndGet();
    return json(201, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Success\",\"code\":201}");
  }

  /** Stores an object as a controller writes it. */
  private void store(String path, String json) {
    crud.dispatch(request(HttpMethod.PUT, path, json));
  }

  /** A pod is gone: the watches of its node hear it, and the resource claim controller unreserves its claims. */
  private void podGone(JsonNode pod) {
    podWatches.changed("DELETED", pod);
    if (pod != null) {
      dra.podGone(pod.path("metadata").path("namespace").asText(), pod.path("metadata").path("name").asText());
    }
  }

  /** Tells the watches of the pod's node what the request did to it. */
  private void podChanged(HttpMethod method, JsonNode deleted, MockResponse answer) {
    if (method == HttpMethod.DELETE) {
      podGone(deleted);
      return;
    }
    try {
      podWatches.changed(method == HttpMethod.POST ? "ADDED" : "MODIFIED", JSON.readTree(answer.getBody().getBytes()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean selects(JsonNode matchLabels, JsonNode labels) {
    if (!matchLabels.isObject() || matchLabels.isEmpty()) {
      return false;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = matchLabels.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().asText().equals(labels.path(e.getKey()).asText(null))) {
        return false;
      }
    }
    return true;
  }

  private JsonNode read(String path) {
    MockResponse r = crud.dispatch(request(HttpMethod.GET, path, null));
    if (r.code() != 200) {
      return null;
    }
    try {
      return JSON.readTree(r.getBody().readUtf8());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static RecordedRequest request(HttpMethod method, String path, String body) {
    Headers headers = body == null ? Headers.builder().build()
        : Headers.builder().add("Content-Type", "application/json").build();
    return new RecordedRequest(method.name() + " " + path + " HTTP/1.1", method, path, headers,
        body == null ? null : new Buffer(body.getBytes(StandardCharsets.UTF_8)));
  }

  private static MockResponse json(int code, String body) {
    return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json").setBody(body);
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
    return json(code, s.toString());
  }

  /**
   * Stops the server. The mock's HTTP server gives its close 10 s; on a busy machine (a whole test suite beside other
   * work) that can pass with the close still under way, so the close is awaited again, up to three times in all, before
   * it is reported as failed.
   */
  @Override
  public void close() {
    for (int attempt = 1; ; attempt++) {
      try {
        server.destroy();
        return;
      } catch (IllegalStateException e) {
        if (attempt == CLOSE_ATTEMPTS || !String.valueOf(e.getMessage()).startsWith("Unable to close")) {
          throw new IllegalStateException("the emulated API server did not close after " + attempt + " waits of 10 s",
              e);
        }
      }
    }
  }
}
