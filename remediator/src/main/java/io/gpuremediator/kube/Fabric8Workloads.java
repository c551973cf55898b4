package io.gpuremediator.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.workload.Eviction;
import io.gpuremediator.workload.JobRun;
import io.gpuremediator.workload.LabelledJob;
import io.gpuremediator.workload.NodeJob;
import io.gpuremediator.workload.PodInfo;
import io.gpuremediator.workload.Workloads;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The pods and Jobs on a node, through fabric8. Evictions are posted as raw requests so the answer's
 * body can be read: fabric8's {@code evict()} drops the 429 body, and with it the cause that tells a
 * PodDisruptionBudget block from API throttling.
 */
final class Fabric8Workloads implements Workloads {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern BUDGET_NAME = Pattern.compile("disruption budget (\\S+) needs");

  private final KubernetesClient client;
  private final ApiThrottle throttle;
  /** The watch of our Jobs while one runs: the cache {@link #job} reads first. */
  private volatile JobWatch jobs;

  Fabric8Workloads(KubernetesClient client, ApiThrottle throttle) {
    this.client = client;
    this.throttle = throttle;
  }

  @Override
  public List<PodInfo> podsOn(String node) throws ClusterException {
    try {
      List<PodInfo> out = new ArrayList<>();
      for (Pod p : throttle.read(() -> client.pods().inAnyNamespace().withField("spec.nodeName", node).list()).getItems()) {
        out.add(info(p));
      }
      return out;
    } catch (KubernetesClientException e) {
      throw ApiFailures.of("list pods on node " + node, e);
    }
  }

  private static PodInfo info(Pod p) {
    List<OwnerReference> owners = p.getMetadata().getOwnerReferences() == null ? List.of() : p.getMetadata().getOwnerReferences();
    boolean daemonSet = owners.stream().anyMatch(o -> "DaemonSet".equals(o.getKind()) && Boolean.TRUE.equals(o.getController()));
    boolean mirror = p.getMetadata().getAnnotations() != null
        && p.getMetadata().getAnnotations().containsKey("kubernetes.io/config.mirror");
    Long grace = p.getSpec() == null ? null : p.getSpec().getTerminationGracePeriodSeconds();
    Set<String> conditions = p.getStatus() == null || p.getStatus().getConditions() == null ? Set.of()
        : p.getStatus().getConditions().stream().filter(c -> "True".equals(c.getStatus())).map(PodCondition::getType)
            .collect(Collectors.toSet());
    return new PodInfo(p.getMetadata().getNamespace(), p.getMetadata().getName(), p.getMetadata().getUid(),
        p.getStatus() == null ? null : p.getStatus().getPhase(), daemonSet, mirror,
        p.getMetadata().getDeletionTimestamp() != null, Optional.ofNullable(grace), p.getMetadata().getLabels(),
        p.getMetadata().getAnnotations(), conditions, JobManifest.accelerators(p));
  }

  @Override
  public void recordPodEvent(PodInfo pod, String reason, String message, Instant time) throws ClusterException {
    Event e = KubeEvents.of(pod.namespace(), "Pod", pod.namespace(), pod.name(), pod.uid().isEmpty() ? null : pod.uid(),
        "Warning", reason, message, time, NodeKeys.COMPONENT);
    try {
      throttle.write(() -> client.v1().events().inNamespace(pod.namespace()).resource(e).create());
    } catch (KubernetesClientException ex) {
      throw ApiFailures.of("record event " + reason + " on pod " + pod.ref(), ex);
    }
  }

  @Override
  public Eviction evict(PodInfo pod, long gracePeriodSeconds) throws ClusterException {
    ObjectNode body = JSON.createObjectNode().put("apiVersion", "policy/v1").put("kind", "Eviction");
    body.putObject("metadata").put("name", pod.name()).put("namespace", pod.namespace());
    ObjectNode options = body.putObject("deleteOptions").put("gracePeriodSeconds", gracePeriodSeconds);
    if (!pod.uid().isEmpty()) {
      // Never evict a new pod that took the old one's name.
      options.putObject("preconditions").put("uid", pod.uid());
    }
    String url = base() + "/api/v1/namespaces/" + encode(pod.namespace()) + "/pods/" + encode(pod.name()) + "/eviction";
    HttpRequest eviction = client.getHttpClient().newHttpRequestBuilder().uri(url).post("application/json", body.toString())
        .build();
    HttpResponse<String> response = throttle.write(() -> send(eviction, "evict pod " + pod.ref()));
    return answer(pod, response.code(), response.body(), response.header("Retry-After"));
  }

  private String base() {
    return RawRequests.base(client);
  }

  private HttpResponse<String> send(HttpRequest request, String what) throws ClusterException {
    return RawRequests.send(client, request, what);
  }

  /** Reads an Eviction API answer the way the API server documents it (see closed-loop.md, "Eviction API responses"). */
  static Eviction answer(PodInfo pod, int code, String body, String retryAfterHeader) throws ClusterException {
    JsonNode status = parse(body);
    String message = status.path("message").asText("");
    if (code == 200 || code == 201) {
      return new Eviction.Granted();
    }
    if (code == 404) {
      return new Eviction.Gone();
    }
    if (code == 429) {
      Optional<Duration> retryAfter = retryAfter(status, retryAfterHeader);
      for (JsonNode cause : status.path("details").path("causes")) {
        if ("DisruptionBudget".equals(cause.path("reason").asText())) {
          String text = cause.path("message").asText(message);
          Matcher m = BUDGET_NAME.matcher(text);
          Optional<String> name = m.find() ? Optional.of(pod.namespace() + "/" + m.group(1)) : Optional.empty();
          return new Eviction.BudgetBlocked(name, text, retryAfter);
        }
      }
      return new Eviction.Throttled(retryAfter);
    }
    if (code == 500 && message.contains("more than one PodDisruptionBudget")) {
      return new Eviction.SeveralBudgets(message);
    }
    if (code >= 500 || code <= 0) {
      throw new ClusterException("evict pod " + pod.ref() + " failed (HTTP " + code + "): " + message, true, null);
    }
    return new Eviction.Refused(code, message.isEmpty() ? "HTTP " + code : message);
  }

  private static JsonNode parse(String body) {
    try {
      JsonNode n = body == null || body.isEmpty() ? null : JSON.readTree(body);
      return n == null ? JSON.createObjectNode() : n;
    } catch (IOException e) {
      return JSON.createObjectNode();
    }
  }

  private static Optional<Duration> retryAfter(JsonNode status, String header) {
    long seconds = status.path("details").path("retryAfterSeconds").asLong(0);
    if (seconds <= 0 && header != null) {
      try {
        seconds = Long.parseLong(header.trim());
      } catch (NumberFormatException e) {
        seconds = 0;
      }
    }
    return seconds > 0 ? Optional.of(Duration.ofSeconds(Math.min(seconds, 3600))) : Optional.empty();
  }

  private static String encode(String s) {
    return RawRequests.encode(s);
  }

  @Override
  public void delete(PodInfo pod, long gracePeriodSeconds) throws ClusterException {
    try {
      throttle.write(() -> client.pods().inNamespace(pod.namespace()).withName(pod.name()).withGracePeriod(gracePeriodSeconds)
          .delete());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw ApiFailures.of("delete pod " + pod.ref(), e);
      }
    }
  }

  @Override
  public void createJob(NodeJob j) throws ClusterException {
    Job job = JobManifest.of(j);
    try {
      throttle.write(() -> client.batch().v1().jobs().inNamespace(j.namespace()).resource(job).create());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw ApiFailures.of("create job " + j.namespace() + "/" + j.name(), e);
      }
    }
  }

  @Override
  public List<LabelledJob> jobsLabelled(String namespace, String key) throws ClusterException {
    try {
      List<LabelledJob> out = new ArrayList<>();
      for (Job j : throttle.read(() -> client.batch().v1().jobs().inNamespace(namespace).withLabel(key).list()).getItems()) {
        JobWatch.runOf(j).ifPresent(run -> out.add(new LabelledJob(j.getMetadata().getName(), JobManifest.node(j).orElse(""),
            j.getMetadata().getLabels(), run, j.getStatus() != null && j.getStatus().getReady() != null
                && j.getStatus().getReady() > 0)));
      }
      return out;
    } catch (KubernetesClientException e) {
      throw ApiFailures.of("list jobs labelled " + key + " in " + namespace, e);
    }
  }

  @Override
  public void deleteJob(String namespace, String name) throws ClusterException {
    try {
      throttle.write(() -> client.batch().v1().jobs().inNamespace(namespace).withName(name)
          .withPropagationPolicy(DeletionPropagation.BACKGROUND).delete());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw ApiFailures.of("delete job " + namespace + "/" + name, e);
      }
    }
  }

  @Override
  public Optional<JobRun> job(String namespace, String name) throws ClusterException {
    JobWatch watch = jobs;
    Optional<Job> cached = watch == null || !watch.namespace().equals(namespace) ? Optional.empty()
        : watch.cached(name);
    if (cached.isPresent()) {
      return JobWatch.runOf(cached.get());
    }
    try {
      return JobWatch.runOf(throttle.read(() -> client.batch().v1().jobs().inNamespace(namespace).withName(name).get()));
    } catch (KubernetesClientException e) {
      throw ApiFailures.of("read job " + namespace + "/" + name, e);
    }
  }

  /** Read raw: fabric8's getLog() may first watch the pod until it is ready, a call (and a grant) we do not want. */
  @Override
  public String logTail(String namespace, String job, int lines) throws ClusterException {
    return log(namespace, job, "tailLines=" + lines).orElse("");
  }

  @Override
  public Optional<String> log(String namespace, String job, long limitBytes) throws ClusterException {
    return log(namespace, job, "limitBytes=" + limitBytes);
  }

  private Optional<String> log(String namespace, String job, String query) throws ClusterException {
    List<Pod> pods;
    try {
      pods = throttle.read(() -> client.pods().inNamespace(namespace).withLabel("job-name", job).list()).getItems();
    } catch (KubernetesClientException e) {
      throw ApiFailures.of("list the pods of job " + namespace + "/" + job, e);
    }
    if (pods.isEmpty()) {
      return Optional.empty();
    }
    String url = base() + "/api/v1/namespaces/" + encode(namespace) + "/pods/" + encode(pods.get(0).getMetadata().getName())
        + "/log?" + query;
    HttpRequest read = client.getHttpClient().newHttpRequestBuilder().uri(url).build();
    HttpResponse<String> response = throttle.read(() -> send(read, "read the log of job " + namespace + "/" + job));
    return response.code() == 200 && response.body() != null ? Optional.of(response.body()) : Optional.empty();
  }

  /** A watch (no list first: the drain lists the pods itself) of the node's pods, as the node's kubelet watches them. */
  @Override
  public AutoCloseable watchPodsOn(String node, Runnable changed) {
    return throttle.read(() -> client.pods().inAnyNamespace().withField("spec.nodeName", node).watch(new Watcher<Pod>() {
      @Override
      public void eventReceived(Action action, Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if (action == Action.DELETED || "Succeeded".equals(phase) || "Failed".equals(phase)) {
          changed.run();
        }
      }

      @Override
      public void onClose(WatcherException cause) {
        // fabric8 reconnects a watch that broke; one closed for good leaves the drain to the loop's timer
      }
    }));
  }

  @Override
  public AutoCloseable watchJobs(String namespace, String label, Consumer<String> node) {
    JobWatch watch = JobWatch.start(client, namespace, label, node);
    jobs = watch;
    return () -> {
      if (jobs == watch) {
        jobs = null;
      }
      watch.close();
    };
  }
}
