package io.gpuremediator.demo;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.gpuremediator.pipeline.Pipeline;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.StreamSupport;

/** Reads what each part of the pipeline says: Prometheus, Alertmanager, the remediator and the cluster. */
final class Observe {
  /** The decisions the service keeps, all of which a look here reads. */
  private static final int DECISION_LOG = 1000;
  /** The taint key every shipped quarantine playbook sets. */
  static final String TAINT_KEY = "gpu-remediator.io/unhealthy";

  private final Pipeline p;

  Observe(Pipeline p) {
    this.p = p;
  }

  /** An alert Prometheus holds for {@code node} in {@code state} (pending or firing). */
  Optional<JsonNode> prometheusAlert(String alertname, String node, String state) throws IOException, InterruptedException {
    for (JsonNode a : p.http().get(p.prometheusUrl() + "/api/v1/alerts", null).path("data").path("alerts")) {
      JsonNode l = a.path("labels");
      if (l.path("alertname").asText().equals(alertname) && l.path("node").asText().equals(node) && a.path("state").asText().equals(state)) {
        return Optional.of(a);
      }
    }
    return Optional.empty();
  }

  /** The series a PromQL query returns now (each with its {@code metric} labels and {@code value}). */
  JsonNode series(String promql) throws IOException, InterruptedException {
    return p.http().get(p.prometheusUrl() + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8), null)
        .path("data").path("result");
  }

  /** The value of a PromQL query that returns one number, if it returns one. */
  Optional<Double> scalar(String promql) throws IOException, InterruptedException {
    JsonNode result = p.http().get(p.prometheusUrl() + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8), null)
        .path("data").path("result");
    return result.size() == 1 ? Optional.of(result.get(0).path("value").get(1).asDouble()) : Optional.empty();
  }

  /**
   * What Prometheus saw while an alert for {@code node} did not come: the node's scrape targets (health,
   * last error, scrape time), the alert's rule group (last evaluation and how long it took), the alert's
   * state for the node, and the value of each series the rule reads for that node.
   */
  String prometheusWhy(String alertname, String node, List<String> seriesRead) throws IOException, InterruptedException {
    List<String> out = new ArrayList<>();
    for (JsonNode t : p.http().get(p.prometheusUrl() + "/api/v1/targets?state=active", null).path("data").path("activeTargets")) {
      if (t.path("labels").path("node").asText().equals(node)) {
        out.add(String.format("target %s (%s): %s, last scrape %s took %.3f s%s", t.path("scrapeUrl").asText(),
            t.path("labels").path("job").asText(), t.path("health").asText(), t.path("lastScrape").asText(),
            t.path("lastScrapeDuration").asDouble(), t.path("lastError").asText().isEmpty() ? "" : ", error: " + t.path("lastError").asText()));
      }
    }
    for (JsonNode g : p.http().get(p.prometheusUrl() + "/api/v1/rules?type=alert", null).path("data").path("groups")) {
      for (JsonNode r : g.path("rules")) {
        if (!r.path("name").asText().equals(alertname)) {
          continue;
        }
        out.add(String.format("rule %s (group %s, interval %s s): last evaluated %s, the group took %.3f s, health %s%s",
            alertname, g.path("name").asText(), g.path("interval").asText(), g.path("lastEvaluation").asText(),
            g.path("evaluationTime").asDouble(), r.path("health").asText(),
            r.path("lastError").asText().isEmpty() ? "" : ", error: " + r.path("lastError").asText()));
        boolean any = false;
        for (JsonNode a : r.path("alerts")) {
          if (a.path("labels").path("node").asText().equals(node)) {
            out.add("  " + a.path("state").asText() + " since " + a.path("activeAt").asText() + " (value " + a.path("value").asText() + ")");
            any = true;
          }
        }
        if (!any) {
          out.add("  no pending or firing alert for " + node);
        }
      }
    }
    for (String series : seriesRead) {
      String q = series + "{node=\"" + node + "\"}";
      JsonNode result = p.http().get(p.prometheusUrl() + "/api/v1/query?query=" + URLEncoder.encode(q, StandardCharsets.UTF_8), null)
          .path("data").path("result");
      List<String> values = new ArrayList<>();
      result.forEach(r -> values.add(r.path("metric").path("gpu").asText("") + (r.path("metric").has("gpu") ? "=" : "")
          + r.path("value").get(1).asText()));
      out.add(q + " = " + (values.isEmpty() ? "(no series)" : String.join(" ", values)));
    }
    return String.join("\n", out);
  }

  /** Prometheus' scrape targets by health, with the first few errors. */
  String targetsWhy() throws IOException, InterruptedException {
    Map<String, Integer> byHealth = new TreeMap<>();
    List<String> errors = new ArrayList<>();
    for (JsonNode t : p.http().get(p.prometheusUrl() + "/api/v1/targets?state=active", null).path("data").path("activeTargets")) {
      byHealth.merge(t.path("health").asText(), 1, Integer::sum);
      if (!t.path("lastError").asText().isEmpty() && errors.size() < 3) {
        errors.add(t.path("scrapeUrl").asText() + ": " + t.path("lastError").asText());
      }
    }
    return "targets by health " + byHealth + (errors.isEmpty() ? "" : "\n" + String.join("\n", errors));
  }

  /** The remediator's latest decisions about {@code node}, in words, or that it made none. */
  String decisionsWhy(String node) throws IOException, InterruptedException {
    List<JsonNode> d = decisions(node);
    if (d.isEmpty()) {
      return "the remediator has no decision about " + node;
    }
    List<String> out = new ArrayList<>();
    d.stream().limit(5).forEach(x -> out.add(x.path("time").asText() + " " + x.path("alertname").asText() + " " + x.path("status").asText()
        + ": " + x.path("outcome").asText() + "/" + x.path("reason").asText()));
    return String.join("\n", out);
  }

  /** The node's taints, cordon and health conditions, in words. */
  String nodeWhy(String name) {
    Node n = node(name);
    return "taints " + (n.getSpec().getTaints() == null ? "[]" : n.getSpec().getTaints().stream()
        .map(t -> t.getKey() + "=" + t.getValue() + ":" + t.getEffect()).toList())
        + ", unschedulable " + Boolean.TRUE.equals(n.getSpec().getUnschedulable())
        + ", conditions " + n.getStatus().getConditions().stream().map(c -> c.getType() + "=" + c.getStatus()).toList();
  }

  /** Alertmanager's copies of an alert for {@code node}, each with the receivers its routes chose. */
  Optional<JsonNode> alertmanagerAlert(String alertname, String node) throws IOException, InterruptedException {
    String filter = URLEncoder.encode("alertname=\"" + alertname + "\"", StandardCharsets.UTF_8);
    for (JsonNode a : p.http().get(p.alertmanagerUrl() + "/api/v2/alerts?filter=" + filter, null)) {
      if (a.path("labels").path("node").asText().equals(node)) {
        return Optional.of(a);
      }
    }
    return Optional.empty();
  }

  /** The remediator's silences for {@code node} in Alertmanager, in this state (active, pending, expired). */
  List<JsonNode> silences(String node, String state) throws IOException, InterruptedException {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode s : p.http().get(p.alertmanagerUrl() + "/api/v2/silences", null)) {
      boolean ours = s.path("createdBy").asText().equals("gpu-remediator");
      boolean forNode = StreamSupport.stream(s.path("matchers").spliterator(), false)
          .anyMatch(m -> m.path("name").asText().equals("node") && m.path("value").asText().equals(node));
      if (ours && forNode && s.path("status").path("state").asText().equals(state)) {
        out.add(s);
      }
    }
    return out;
  }

  /** A silence's matchers as Alertmanager's syntax writes them. */
  static String matchers(JsonNode silence) {
    List<String> out = new ArrayList<>();
    for (JsonNode m : silence.path("matchers")) {
      String op = (m.path("isEqual").asBoolean(true) ? "=" : "!") + (m.path("isRegex").asBoolean() ? "~" : "");
      out.add(m.path("name").asText() + (op.equals("!") ? "!=" : op) + "\"" + m.path("value").asText() + "\"");
    }
    return "{" + String.join(", ", out) + "}";
  }

  static List<String> receivers(JsonNode alertmanagerAlert) {
    return StreamSupport.stream(alertmanagerAlert.path("receivers").spliterator(), false).map(r -> r.path("name").asText()).toList();
  }

  /**
   * The remediator's decisions about {@code node}, newest first, from its whole log (the API's default is the newest
   * 100 fleet-wide: by the later chapters, a node's first decision can be older than that).
   */
  List<JsonNode> decisions(String node) throws IOException, InterruptedException {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode d : p.http().get(p.remediatorUrl() + "/api/v1/decisions?limit=" + DECISION_LOG, p.operatorToken())
        .path("decisions")) {
      if (d.path("node").asText().equals(node)) {
        out.add(d);
      }
    }
    return out;
  }

  /** The node as GET /api/v1/nodes shows it, when its stage is {@code stage}. */
  Optional<JsonNode> stage(String node, String stage) throws IOException, InterruptedException {
    return nodeState(node).filter(n -> n.path("stage").asText().equals(stage));
  }

  /** The node as GET /api/v1/nodes shows it (stage, since, step, progress), if it is under remediation. */
  Optional<JsonNode> nodeState(String node) throws IOException, InterruptedException {
    for (JsonNode n : p.http().get(p.remediatorUrl() + "/api/v1/nodes", p.operatorToken()).path("nodes")) {
      if (n.path("node").asText().equals(node)) {
        return Optional.of(n);
      }
    }
    return Optional.empty();
  }

  /** What the remediator shows of the node, when a stage does not come. */
  String nodeStateWhy(String node) throws IOException, InterruptedException {
    return nodeState(node).map(n -> "remediator shows " + node + " in stage " + n.path("stage").asText() + " since "
        + n.path("stage_since").asText() + ": " + n.path("progress").asText()).orElse("remediator shows no episode on " + node);
  }

  JsonNode safety() throws IOException, InterruptedException {
    return p.http().get(p.remediatorUrl() + "/api/v1/safety", p.operatorToken());
  }

  Node node(String name) {
    return p.kube().nodes().withName(name).get();
  }

  /** How {@code node} is quarantined (our taint, unschedulable, a False health condition), if it is, in words. */
  Optional<String> quarantine(String name) {
    Node n = node(name);
    Optional<Taint> taint = n.getSpec().getTaints() == null ? Optional.empty()
        : n.getSpec().getTaints().stream().filter(t -> t.getKey().equals(TAINT_KEY)).findFirst();
    Optional<NodeCondition> condition = n.getStatus().getConditions().stream()
        .filter(c -> c.getType().endsWith("Healthy") && c.getStatus().equals("False")).findFirst();
    if (taint.isEmpty() || !Boolean.TRUE.equals(n.getSpec().getUnschedulable()) || condition.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of("taint " + taint.get().getKey() + "=" + taint.get().getValue() + ":" + taint.get().getEffect()
        + ", unschedulable, " + condition.get().getType() + "=False (" + condition.get().getReason() + ")");
  }

  /** Whether the node is back in service: schedulable, and no taint of ours. */
  boolean inService(String name) {
    Node n = node(name);
    return !Boolean.TRUE.equals(n.getSpec().getUnschedulable()) && (n.getSpec().getTaints() == null
        || n.getSpec().getTaints().stream().noneMatch(t -> t.getKey().startsWith("gpu-remediator.io/")));
  }

  /** Whether the node carries anything the remediator sets: our taint, cordon, a health condition, the ledger. */
  boolean touched(String name) {
    Node n = node(name);
    return (n.getSpec().getTaints() != null && n.getSpec().getTaints().stream().anyMatch(t -> t.getKey().startsWith("gpu-remediator.io/")))
        || Boolean.TRUE.equals(n.getSpec().getUnschedulable())
        || n.getStatus().getConditions().stream().anyMatch(c -> c.getType().endsWith("Healthy"))
        || (n.getMetadata().getAnnotations() != null && n.getMetadata().getAnnotations().containsKey("gpu-remediator.io/state"));
  }

  /** The Events about {@code node} with {@code reason}, oldest first. */
  List<Event> events(String node, String reason) {
    return p.kube().v1().events().inAnyNamespace().list().getItems().stream()
        .filter(e -> e.getInvolvedObject() != null && node.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
        .toList();
  }

  /** The pods scheduled on {@code node}, as namespace/name. */
  List<String> pods(String node) {
    return p.kube().pods().inAnyNamespace().list().getItems().stream()
        .filter(pod -> node.equals(pod.getSpec().getNodeName()))
        .map(pod -> pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName()).toList();
  }
}
